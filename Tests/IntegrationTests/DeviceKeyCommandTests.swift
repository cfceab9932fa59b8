import DropTrackAPI
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

@Suite("droptrack apps device-key add, remove and rotate")
struct DeviceKeyCommandTests {
    @Test("add registers a P-256 public key, refuses a bad one with the flag, remove takes it out")
    func addAndRemove() throws {
        let directory = makeTemporaryDirectory("device-key")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        #expect(try runDropTrack(["apps", "add", "--config", config, "--id", "shop"]).status == 0)
        let pem = directory + "/backend.pem"
        try PrivateKey.generate(.es256).publicKeyPEM.write(toFile: pem, atomically: true, encoding: .utf8)
        let added = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "shop", "--kid", "k1", "--public-key", pem,
        ])
        #expect(added.status == 0, "\(added.err)")
        var loaded = try ServerConfiguration.load(file: config, environment: [:])
        #expect(loaded.apps[0].deviceKeys == [.init(kid: "k1", publicKeyFile: pem)])

        let again = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "shop", "--kid", "k1", "--public-key", pem,
        ])
        #expect(again.status == 2 && again.err.contains("--kid"))
        let garbage = directory + "/garbage.pem"
        try "not a key".write(toFile: garbage, atomically: true, encoding: .utf8)
        let bad = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "shop", "--kid", "k2", "--public-key", garbage,
        ])
        #expect(bad.status == 2 && bad.err.contains("--public-key"), "\(bad.err)")
        let rsa = directory + "/rsa.pem"
        try PrivateKey.generate(.rs256).publicKeyPEM.write(toFile: rsa, atomically: true, encoding: .utf8)
        let wrongCurve = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "shop", "--kid", "k2", "--public-key", rsa,
        ])
        #expect(wrongCurve.status == 2 && wrongCurve.err.contains("P-256"))
        let badKid = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "shop", "--kid", "a b", "--public-key", pem,
        ])
        #expect(badKid.status == 2 && badKid.err.contains("--kid"))
        let noApp = try runDropTrack([
            "apps", "device-key", "add", "--config", config, "--app", "nope", "--kid", "k2", "--public-key", pem,
        ])
        #expect(noApp.status == 2 && noApp.err.contains("--app"))

        let removed = try runDropTrack([
            "apps", "device-key", "remove", "--config", config, "--app", "shop", "--kid", "k1",
        ])
        #expect(removed.status == 0, "\(removed.err)")
        loaded = try ServerConfiguration.load(file: config, environment: [:])
        #expect(loaded.apps[0].deviceKeys == [])
        let unknown = try runDropTrack([
            "apps", "device-key", "remove", "--config", config, "--app", "shop", "--kid", "k1",
        ])
        #expect(unknown.status == 2)
    }

    @Test("rotate writes a 0600 P-256 key beside the config and keeps the older keys")
    func rotate() throws {
        let directory = makeTemporaryDirectory("device-key")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        #expect(try runDropTrack(["apps", "add", "--config", config, "--id", "shop"]).status == 0)
        let first = try runDropTrack(["apps", "device-key", "rotate", "--config", config, "--app", "shop"])
        let second = try runDropTrack(["apps", "device-key", "rotate", "--config", config, "--app", "shop"])
        #expect(first.status == 0 && second.status == 0, "\(first.err)")
        let kids = [first.out, second.out].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(kids[0] != kids[1] && kids.allSatisfy { $0.hasPrefix("dt-") })
        let loaded = try ServerConfiguration.load(file: config, environment: [:])
        let entries = try #require(loaded.apps[0].deviceKeys)
        #expect(entries.map(\.kid) == kids)
        for (entry, kid) in zip(entries, kids) {
            let file = try #require(entry.privateKeyFile)
            #expect(file == directory + "/shop-device-\(kid).p8")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try PrivateKey(pemFile: file, expected: .es256).algorithm == .es256)
        }
        // The server starts with these keys and mints with the newest.
        let authority = try ES256DeviceCredentials(apps: loaded.apps, clock: SystemWallClock())
        // Minted under the app's key, named by its fingerprint: the first 16 hex digits of the stored hash.
        let keyFingerprint = String(try #require(loaded.apps[0].apiKeyHashes.first).dropFirst(7).prefix(16))
        let minted = try #require(
            try authority.mint(app: "shop", userId: "u1", ttl: 60, mintedUnder: keyFingerprint, notBefore: nil))
        #expect(try authority.verify(minted.credential).userId.rawValue == "u1")
        let header = try #require(JWS.parse(minted.credential)?.header)
        #expect(String(decoding: header, as: UTF8.self).contains(kids[1]))
    }
}

@Suite("deviceKeys and requestsPerSecondPerUser in the configuration")
struct DeviceKeyConfigurationTests {
    func refusal(_ keys: [AppConfiguration.DeviceKey]) -> ConfigurationError? {
        do {
            try ServerConfiguration(apps: [AppConfiguration(id: "shop", deviceKeys: keys)]).validate()
            return nil
        } catch {
            return error
        }
    }

    @Test("a kid appears once, an entry names exactly one file, and the error names the field")
    func validation() throws {
        #expect(refusal([.init(kid: "k1", publicKeyFile: "a.pem"), .init(kid: "k2", privateKeyFile: "b.p8")]) == nil)
        let twice = refusal([.init(kid: "k1", publicKeyFile: "a.pem"), .init(kid: "k1", publicKeyFile: "b.pem")])
        #expect(twice?.key == "apps[0].deviceKeys[1].kid" && twice?.message.contains("twice") == true)
        let both = refusal([.init(kid: "k1", publicKeyFile: "a.pem", privateKeyFile: "b.p8")])
        #expect(both?.key == "apps[0].deviceKeys[0]" && both?.message.contains("exactly one") == true)
        #expect(refusal([.init(kid: "k1")])?.key == "apps[0].deviceKeys[0]")
        #expect(refusal([.init(kid: "a/b", publicKeyFile: "a.pem")])?.key == "apps[0].deviceKeys[0].kid")
    }

    @Test("requestsPerSecondPerUser defaults to 5, reads its variable, and a missing key file stops the start")
    func rateAndFiles() throws {
        #expect(ServerConfiguration().requestsPerSecondPerUser == 5)
        let set = try ServerConfiguration.load(
            file: nil, environment: ["DROPTRACK_REQUESTS_PER_SECOND_PER_USER": "0"])
        #expect(set.requestsPerSecondPerUser == 0)
        let apps = [AppConfiguration(id: "shop", deviceKeys: [.init(kid: "k1", publicKeyFile: "/nonexistent.pem")])]
        #expect {
            _ = try ES256DeviceCredentials(apps: apps, clock: SystemWallClock())
        } throws: { error in
            (error as? ConfigurationError)?.key == "apps[0].deviceKeys[0]"
                && "\(error)".contains("/nonexistent.pem")
        }
    }
}
