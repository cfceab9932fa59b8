import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackTesting
import Foundation
import Testing

/// What a newcomer meets first: the doctor before a push, the token format, a missing CA, usage
/// mistakes, misspelt variables and `--version`.
@Suite("The droptrack CLI on first contact")
struct CLIFirstContactTests {
    static let unixEtaState =
        #"{"status":"On the way","progress":0.5,"eta":1796000720,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}"#

    func apnsEnvironment(_ harness: APNsHarness, _ directory: String, caFile: Bool = true) throws -> [String: String] {
        let keyFile = directory + "/AuthKey.p8"
        try harness.key.pkcs8PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        var environment = [
            "DROPTRACK_APNS_KEY": keyFile, "DROPTRACK_APNS_KEY_ID": APNsHarness.keyID,
            "DROPTRACK_APNS_TEAM_ID": APNsHarness.teamID, "DROPTRACK_APNS_BUNDLE_ID": APNsHarness.bundleID,
            "DROPTRACK_APNS_HOST": "127.0.0.1:\(harness.port)",
        ]
        if caFile { environment["DROPTRACK_APNS_CA_FILE"] = TestPKI.shared.caFile }
        return environment
    }

    @Test(
        "push apns runs the doctor: a Unix-seconds eta is DT-017, not sent (exit 1) unless --force; --dry-run shows it")
    func doctorBeforeSending() throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let directory = makeTemporaryDirectory("cli-first")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = try apnsEnvironment(harness, directory)
        let token = APNsHarness.randomToken()
        let arguments = ["push", "apns", "--token", token, "--event", "update", "--state", Self.unixEtaState]
        let refused = try runDropTrack(arguments, environment: environment)
        #expect(refused.status == 1, "\(refused.out)\(refused.err)")
        #expect(refused.err.contains("DT-017") && refused.err.contains("fix:") && refused.err.contains("--force"))
        #expect(!refused.out.contains("accepted"))
        #expect(harness.emulator.latestAccepted(forToken: token) == nil)
        #expect(!refused.err.contains(token))

        let dry = try runDropTrack(arguments + ["--dry-run"], environment: environment)
        #expect(dry.status == 1 && dry.err.contains("DT-017") && dry.out.contains("apns-push-type: liveactivity"))

        let forced = try runDropTrack(arguments + ["--force"], environment: environment)
        #expect(forced.status == 0 && forced.out.contains("200 accepted") && forced.err.contains("DT-017"))
    }

    @Test("push fcm runs the doctor too, in --dry-run")
    func fcmDoctor() throws {
        let token = "fcm-" + APNsHarness.randomToken(bytes: 24) + ":APA91b" + APNsHarness.randomToken(bytes: 40)
        let dry = try runDropTrack([
            "push", "fcm", "--token", token, "--data", #"{"eta":"1796000720","title":"x"}"#, "--ttl", "0", "--dry-run",
        ])
        // Whatever it finds, the findings carry the trap id and the fix, and the token stays hidden.
        #expect(dry.status == 0 || dry.status == 1, "\(dry.err)")
        #expect(!dry.err.contains(token) && !dry.out.contains(token))
        let lines = dry.err.split(separator: "\n").filter { $0.contains("DT-") && !$0.hasPrefix("droptrack") }
        #expect(lines.allSatisfy { $0.hasPrefix("error") || $0.hasPrefix("warning") || $0.hasPrefix("info") })
    }

    @Test("a token that cannot be one is a usage error naming --token (exit 2), for APNs and FCM")
    func tokenFormat() throws {
        let short = try runDropTrack(["push", "apns", "--token", "abcd", "--event", "update", "--state", "{}"])
        #expect(
            short.status == 2 && short.err.contains("--token has 4 hex digits") && short.err.contains("whole token"))
        let notHex = try runDropTrack(["push", "apns", "--token", "zz12", "--event", "update", "--state", "{}"])
        #expect(notHex.status == 2 && notHex.err.contains("--token must be the hex"))
        let fcm = try runDropTrack(["push", "fcm", "--token", "abcd", "--data", #"{"a":"1"}"#])
        #expect(fcm.status == 2 && fcm.err.contains("--token"))
    }

    @Test("a missing CA says to pass --ca-file and push apns fails at once, not after the 10 s deadline")
    func missingCA() throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let directory = makeTemporaryDirectory("cli-first")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = try apnsEnvironment(harness, directory, caFile: false)
        let started = ContinuousClock.now
        let result = try runDropTrack(
            ["push", "apns", "--token", APNsHarness.randomToken(), "--event", "update", "--state", #"{"n":1}"#],
            environment: environment)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1)
        #expect(result.err.contains("certificate verification failed"))
        #expect(result.err.contains("--ca-file PATH") && result.err.contains("keys/ca.pem"))
        #expect(!result.err.contains("backing off"))
        #expect(elapsed < .seconds(5), "took \(elapsed)")

    }

    @Test("usage mistakes: a bare command word names its subcommands, a misspelt flag gets a suggestion, exit 2")
    func usageMistakes() throws {
        let apps = try runDropTrack(["apps"])
        #expect(apps.status == 2 && apps.err.contains("droptrack apps add") && !apps.err.contains("COMMANDS:"))
        let push = try runDropTrack(["push", "apn"])
        #expect(push.status == 2 && push.err.contains("did you mean 'push apns'"))
        let flag = try runDropTrack(["push", "apns", "--ca-flie", "x"])
        #expect(flag.status == 2 && flag.err.contains("did you mean --ca-file?"))
        let listen = try runDropTrack(["serve", "--listen", "8080", "--store", "memory"])
        #expect(listen.status == 2 && listen.err.contains("--listen must be HOST:PORT"))
    }

    @Test("a port in use says to pick another with --listen")
    func portInUse() throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let taken = try runDropTrack(["serve", "--listen", "127.0.0.1:\(harness.port)", "--store", "memory"])
        #expect(taken.status == 1)
        #expect(taken.err.contains("--listen 127.0.0.1:PORT"), "\(taken.err)")
    }

    @Test("a misspelt DROPTRACK_ variable is warned about, with the nearest name")
    func misspeltVariable() throws {
        let result = try runDropTrack(
            ["push", "apns", "--token", "abcd", "--event", "update", "--state", "{}"],
            environment: ["DROPTRACK_APNS_KEYID": "K", "DROPTRACK_APNS_KEY_ID": "K"])
        #expect(
            result.err.contains("DROPTRACK_APNS_KEYID") && result.err.contains("did you mean DROPTRACK_APNS_KEY"))
        let known = try runDropTrack(
            ["push", "apns", "--token", "abcd", "--event", "update", "--state", "{}"],
            environment: ["DROPTRACK_STORE": "memory", "DROPTRACK_APNS_KEY_ID": "K", "DROPTRACK_DOCTOR_CONTEXT": "x"])
        #expect(!known.err.contains("warning:"), "\(known.err)")
    }

    @Test("--version prints the version and exits 0")
    func version() throws {
        let result = try runDropTrack(["--version"])
        #expect(result.status == 0 && result.out.hasPrefix("droptrack ") && result.out.contains("."))
    }
}
