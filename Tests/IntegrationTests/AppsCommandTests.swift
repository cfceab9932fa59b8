import DropTrackDemo
import DropTrackDispatch
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

/// `droptrack apps`: add checks every file and id before it writes, list shows no secrets, remove and
/// rotate-key edit the file in place, and key paths in the file are the file's, not the shell's.
@Suite("The apps commands")
struct AppsCommandTests {
    static let bundleID = "com.example.shop"

    /// A directory with development keys (an APNs .p8 and a service account) and a config with one app.
    struct Workspace {
        let directory: String
        let keys: DevelopmentKeys
        var config: String { directory + "/droptrack.json" }

        init() throws {
            directory = makeTemporaryDirectory("apps")
            keys = try DevelopmentKeys.write(to: directory, bundleID: AppsCommandTests.bundleID, overwrite: true)
        }

        func add(_ id: String, _ extra: [String] = []) throws -> (status: Int32, out: String, err: String) {
            try runDropTrack(["apps", "add", "--config", config, "--id", id] + extra)
        }

        var apnsFlags: [String] {
            [
                "--bundle-id", AppsCommandTests.bundleID, "--apns-key-file", keys.apnsKeyFile, "--apns-key-id",
                keys.keyID, "--apns-team-id", keys.teamID,
            ]
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("apps add refuses each wrong credential with exit 2, naming the flag and the fix, and writes nothing")
    func validation() throws {
        let space = try Workspace()
        defer { space.remove() }
        let junk = space.directory + "/junk.p8"
        try "not a key".write(toFile: junk, atomically: true, encoding: .utf8)
        let notAnAccount = space.directory + "/user.json"
        try #"{"type":"authorized_user","client_id":"x"}"#.write(
            toFile: notAnAccount, atomically: true, encoding: .utf8)
        let noEmail = space.directory + "/no-email.json"
        try #"{"type":"service_account","project_id":"p","private_key_id":"k","private_key":"x"}"#.write(
            toFile: noEmail, atomically: true, encoding: .utf8)
        let apns = space.apnsFlags
        func with(_ flag: String, _ value: String) -> [String] {
            var flags = apns
            flags[flags.firstIndex(of: flag)! + 1] = value
            return flags
        }
        let cases: [(arguments: [String], expected: [String])] = [
            (with("--apns-key-file", space.directory + "/missing.p8"), ["--apns-key-file", "no such file"]),
            (with("--apns-key-file", space.directory), ["--apns-key-file", "is a directory"]),
            (with("--apns-key-file", junk), ["--apns-key-file", "not a PEM private key", "AuthKey_"]),
            (
                with("--apns-key-file", space.keys.serviceAccountFile),
                ["--apns-key-file", "service-account JSON", "pass it as --fcm-service-account"]
            ),
            (with("--apns-key-id", "ABC123"), ["--apns-key-id 'ABC123'", "ten characters", "Keys"]),
            (with("--apns-team-id", space.keys.teamID.lowercased()), ["--apns-team-id", "A–Z and 0–9"]),
            (Array(apns.prefix(4)), ["add --apns-key-id, --apns-team-id"]),
            (Array(apns.dropFirst(2)), ["need --bundle-id"]),
            (
                ["--fcm-service-account", space.keys.apnsKeyFile],
                ["--fcm-service-account", "is a PEM key", "--apns-key-file"]
            ),
            (["--fcm-service-account", notAnAccount], ["--fcm-service-account", "service_account"]),
            (["--fcm-service-account", noEmail], ["client_email", "Service accounts"]),
            (["--fcm-service-account", space.directory + "/none.json"], ["--fcm-service-account", "no such file"]),
        ]
        for (arguments, expected) in cases {
            let result = try space.add("shop", arguments)
            #expect(result.status == 2, "\(arguments): \(result.err)")
            for text in expected { #expect(result.err.contains(text), "\(arguments): \(result.err)") }
            #expect(result.out.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: space.config), "\(arguments) wrote the file")
        }
        let badID = try space.add("bad id")
        #expect(badID.status == 2 && badID.err.contains("--id 'bad id'"), "\(badID.err)")

        // An existing file stays byte for byte as it was.
        #expect(try space.add("shop", space.apnsFlags).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: space.config))
        let refused = try space.add("other", ["--fcm-service-account", space.keys.apnsKeyFile])
        #expect(refused.status == 2)
        let again = try space.add("shop", ["--bundle-id", "com.other"])
        #expect(again.status == 2 && again.err.contains("already in") && again.err.contains("--bundle-id"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: space.config)) == before)
    }

    @Test("list shows ids, bundle ids, providers and key counts, never a key; remove and rotate-key edit the file")
    func listRemoveRotate() throws {
        let space = try Workspace()
        defer { space.remove() }
        let first = try space.add("shop", space.apnsFlags + ["--fcm-service-account", space.keys.serviceAccountFile])
        #expect(first.status == 0, "\(first.err)")
        let firstKey = first.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try space.add("news").status == 0)
        #expect(try space.add("news").status == 0, "another key for an existing app")

        let list = try runDropTrack(["apps", "list", "--config", space.config])
        #expect(list.status == 0, "\(list.err)")
        let lines = list.out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines == ["ID BUNDLE ID PROVIDERS API KEYS", "shop \(Self.bundleID) apns (sandbox), fcm 1", "news - - 2"])
        for secret in [firstKey, "sha256:", "PRIVATE KEY", space.keys.apnsKeyFile] {
            #expect(!list.out.contains(secret) && !list.err.contains(secret))
        }

        let kept = try runDropTrack(["apps", "rotate-key", "--config", space.config, "--id", "shop", "--keep-old"])
        #expect(kept.status == 0 && kept.err.contains("keep working"), "\(kept.err)")
        let keptKey = kept.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keptKey.hasPrefix("dt_shop_") && keptKey != firstKey)
        #expect(try hashes("shop", in: space.config) == [firstKey, keptKey].map(AppConfiguration.hash(of:)))

        let replaced = try runDropTrack(["apps", "rotate-key", "--config", space.config, "--id", "shop"])
        #expect(replaced.status == 0 && replaced.err.contains("2 old key(s) are revoked"), "\(replaced.err)")
        let newKey = replaced.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try hashes("shop", in: space.config) == [AppConfiguration.hash(of: newKey)])
        #expect(try hashes("news", in: space.config).count == 2, "the other app is untouched")

        let removed = try runDropTrack(["apps", "remove", "--config", space.config, "--id", "news"])
        #expect(removed.status == 0, "\(removed.err)")
        #expect(try ServerConfiguration.load(file: space.config, environment: [:]).apps.map(\.id) == ["shop"])
        let unknown = try runDropTrack(["apps", "remove", "--config", space.config, "--id", "news"])
        #expect(unknown.status == 2 && unknown.err.contains("--id news: no such app") && unknown.err.contains("shop"))
        let noFile = try runDropTrack(["apps", "rotate-key", "--config", space.directory + "/none.json", "--id", "x"])
        #expect(noFile.status == 2 && noFile.err.contains("--config"))

        var info = stat()
        #expect(stat(space.config, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: space.directory).filter {
            $0.hasPrefix("droptrack.json.")
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("relative key paths in the file are taken from its directory: serve starts from any working directory")
    func relativeKeyPaths() throws {
        let space = try Workspace()
        defer { space.remove() }
        let relativeKey = "apns/AuthKey_\(space.keys.keyID).p8"
        try """
        {"apps":[{"id":"shop","bundleId":"\(Self.bundleID)","apiKeyHashes":[],
          "apns":{"keyFile":"\(relativeKey)","keyId":"\(space.keys.keyID)","teamId":"\(space.keys.teamID)","environment":"sandbox"},
          "fcm":{"serviceAccountFile":"./fcm/../fcm/service-account.json"},
          "deviceKeys":[{"kid":"k1","publicKeyFile":"apns/AuthKey_\(space.keys.keyID).pub.pem"}]}]}
        """.write(toFile: space.config, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(file: space.config, environment: [:])
        #expect(loaded.apps.first?.apns?.keyFile == space.keys.apnsKeyFile)
        #expect(loaded.apps.first?.fcm?.serviceAccountFile == space.keys.serviceAccountFile)
        #expect(loaded.apps.first?.deviceKeys?.first?.publicKeyFile == space.keys.apnsPublicKeyFile)

        let elsewhere = makeTemporaryDirectory("elsewhere")
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/droptrack")
        process.currentDirectoryURL = URL(fileURLWithPath: elsewhere)
        process.arguments = [
            "serve", "--config", space.config, "--listen", "127.0.0.1:\(port)", "--store", "memory",
            "--apns-host", "127.0.0.1:1", "--fcm-base-url", "https://127.0.0.1:1",
        ]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let banner = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let logs = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(banner.contains("droptrack serving on"), "\(logs)")
        #expect(process.terminationStatus == 0, "\(logs)")
    }

    /// The API key hashes stored for app `id`.
    func hashes(_ id: String, in config: String) throws -> [String] {
        try ServerConfiguration.load(file: config, environment: [:]).apps.first { $0.id == id }?.apiKeyHashes ?? []
    }
}
