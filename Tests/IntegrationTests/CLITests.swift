import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackModel
import DropTrackTesting
import Foundation
import Testing

/// Runs the built `droptrack` binary, or `droptrack-dev` (built by `swift build --build-tests`, as scripts/test.sh
/// does).
func runDropTrack(
    _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, directory: String? = nil,
    program: String = "droptrack"
) throws -> (status: Int32, out: String, err: String) {
    let binary = repositoryRoot + "/.build/debug/" + program
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        throw CocoaError(
            .fileNoSuchFile, userInfo: [NSFilePathErrorKey: binary + " (run `swift build --build-tests` first)"])
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DROPTRACK_") }
    env.merge(environment) { _, new in new }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
    )
}

@Suite("The droptrack CLI")
struct CLITests {
    @Test("--help lists the commands; an unknown command exits 2")
    func help() throws {
        let help = try runDropTrack(["--help"])
        #expect(help.status == 0)
        for command in ["serve", "push apns", "keys apns-token"] { #expect(help.out.contains(command)) }
        for command in ["emulate apns", "bench apns", "keys dev", "demo"] {
            #expect(!help.out.contains("  \(command) "))
        }
        let dev = try runDropTrack(["--help"], program: "droptrack-dev")
        #expect(dev.status == 0)
        for command in ["demo", "emulate apns", "emulate fcm", "bench apns", "keys dev"] {
            #expect(dev.out.contains("  \(command) "), "droptrack-dev --help lacks \(command)")
        }
        let moved = try runDropTrack(["emulate", "apns", "--listen", "127.0.0.1:0"])
        #expect(moved.status == 2 && moved.err.contains("run 'droptrack-dev emulate apns --listen 127.0.0.1:0'"))
        let unknown = try runDropTrack(["launch", "rockets"])
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("unknown command"))
        let sub = try runDropTrack(["push", "apns", "--help"])
        #expect(sub.status == 0 && sub.out.contains("--dry-run") && sub.out.contains("DROPTRACK_APNS_"))
    }

    @Test("a missing flag names the flag and its environment variable; a bad value says what fits")
    func usageErrors() throws {
        let missing = try runDropTrack(["push", "apns", "--event", "update", "--state", "{}"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("--token is required") && missing.err.contains("DROPTRACK_APNS_TOKEN"))
        let event = try runDropTrack(["push", "apns", "--token", "ab", "--event", "begin", "--state", "{}"])
        #expect(event.status == 2 && event.err.contains("--event must be start, update or end"))
        let unknownFlag = try runDropTrack(["push", "apns", "--tokne", "ab"])
        #expect(unknownFlag.status == 2 && unknownFlag.err.contains("unknown option --tokne"))
        let start = try runDropTrack([
            "push", "apns", "--token", "ab", "--event", "start", "--state", "{}", "--attributes", "{}",
        ])
        #expect(start.status == 2 && start.err.contains("--alert-title"))
    }

    @Test("an unreadable key file is named in the error, and the token never appears in output")
    func keyFile() throws {
        let token = String(repeating: "ab", count: 40)
        let result = try runDropTrack(
            [
                "push", "apns", "--token", token, "--event", "update", "--state", #"{"a":1}"#, "--key",
                "/nonexistent/AuthKey.p8",
            ],
            environment: [
                "DROPTRACK_APNS_KEY_ID": "K", "DROPTRACK_APNS_TEAM_ID": "T", "DROPTRACK_APNS_BUNDLE_ID": "com.x",
            ])
        #expect(result.status == 1)
        #expect(result.err.contains("/nonexistent/AuthKey.p8"))
        #expect(!result.err.contains(token) && !result.out.contains(token))
    }

    @Test("--dry-run prints the exact headers and JSON, with the token and the JWT as fingerprints")
    func dryRun() throws {
        let directory = makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keyFile = directory + "/AuthKey.p8"
        try PrivateKey.generate(.es256).pkcs8PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let token = String(repeating: "cd", count: 32)
        let result = try runDropTrack(
            [
                "push", "apns", "--event", "update", "--timestamp", "1796000000", "--dry-run", "--state",
                #"{"status":"On the way","progress":0.5,"etaEpochMillis":1796000720000,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}"#,
            ],
            environment: [
                "DROPTRACK_APNS_TOKEN": token, "DROPTRACK_APNS_KEY": keyFile, "DROPTRACK_APNS_KEY_ID": "KEY1234567",
                "DROPTRACK_APNS_TEAM_ID": "TEAM123456", "DROPTRACK_APNS_BUNDLE_ID": "com.droptrack.demo",
            ])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("apns-topic: com.droptrack.demo.push-type.liveactivity"))
        #expect(result.out.contains("apns-push-type: liveactivity"))
        #expect(result.out.contains("apns-priority: 5"))
        #expect(result.out.contains(#""eta":817693520"#))
        #expect(result.out.contains(#""timestamp":1796000000"#))
        #expect(result.out.contains("<token \(Fingerprint(of: token))>"))
        #expect(!result.out.contains(token))
        #expect(!result.out.contains("eyJ"))
    }

    @Test("a push to the emulator succeeds with status and apns-id; a dead token prints the reason and remedy")
    func pushToEmulator() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let directory = makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keyFile = directory + "/AuthKey.p8"
        try harness.key.pkcs8PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let environment = [
            "DROPTRACK_APNS_KEY": keyFile, "DROPTRACK_APNS_KEY_ID": APNsHarness.keyID,
            "DROPTRACK_APNS_TEAM_ID": APNsHarness.teamID, "DROPTRACK_APNS_BUNDLE_ID": APNsHarness.bundleID,
            "DROPTRACK_APNS_HOST": "127.0.0.1:\(harness.port)", "DROPTRACK_APNS_CA_FILE": TestPKI.shared.caFile,
        ]
        let token = APNsHarness.randomToken()
        let ok = try runDropTrack(
            ["push", "apns", "--token", token, "--event", "update", "--state", #"{"n":1}"#], environment: environment)
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("200 accepted") && ok.out.contains("apns-id:"))
        #expect(harness.emulator.latestAccepted(forToken: token) != nil)

        harness.emulator.markTokenDead(token)
        let gone = try runDropTrack(
            ["push", "apns", "--token", token, "--event", "update", "--state", #"{"n":2}"#], environment: environment)
        #expect(gone.status == 1)
        #expect(gone.err.contains("410 Unregistered") && gone.err.contains("delete it"))
        #expect(!gone.err.contains(token))
    }

    @Test("push fcm: a Live Update to the FCM emulator, a refused non-string --data value, and the remedy on failure")
    func pushFCM() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let directory = makeTemporaryDirectory("cli-fcm")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let accountFile = directory + "/service-account.json"
        try Data(harness.accountJSON).write(to: URL(fileURLWithPath: accountFile))
        let environment = [
            "DROPTRACK_FCM_SERVICE_ACCOUNT": accountFile, "DROPTRACK_FCM_BASE_URL": "https://127.0.0.1:\(harness.port)",
            "DROPTRACK_FCM_CA_FILE": TestPKI.shared.caFile,
        ]
        let token = harness.newToken()
        let state =
            #"{"status":"On the way","progress":0.7142857142857143,"etaEpochMillis":1796000720000,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}"#
        let ok = try runDropTrack(
            [
                "push", "fcm", "--token", token, "--event", "update", "--activity-id", "act-1", "--state", state,
                "--sequence", "7",
            ],
            environment: environment)
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("200 accepted") && ok.out.contains("projects/droptrack-demo/messages/"))
        let delivered = try #require(harness.emulator.latestDelivered(forToken: token))
        #expect(delivered.data?["progress"] == "0.7142857142857143" && delivered.data?["sequence"] == "7")
        #expect(delivered.priority == "high")

        let dry = try runDropTrack(
            ["push", "fcm", "--token", token, "--data", #"{"a":"1"}"#, "--dry-run"], environment: environment)
        #expect(dry.status == 0 && dry.out.contains(#""data":{"a":"1"}"#) && !dry.out.contains(token))
        let number = try runDropTrack(
            ["push", "fcm", "--token", token, "--data", #"{"eta":5}"#], environment: environment)
        #expect(number.status == 2 && number.err.contains("'eta'") && number.err.contains("must be strings"))
        let reserved = try runDropTrack(
            ["push", "fcm", "--token", token, "--data", #"{"google.x":"1"}"#], environment: environment)
        #expect(reserved.status == 1 && reserved.err.contains("message.data.google.x"))

        harness.emulator.markTokenDead(token)
        let gone = try runDropTrack(
            ["push", "fcm", "--token", token, "--data", #"{"a":"1"}"#], environment: environment)
        #expect(gone.status == 1 && gone.err.contains("404 UNREGISTERED") && gone.err.contains("delete it"))
        #expect(!gone.err.contains(token))
        let missing = try runDropTrack([
            "push", "fcm", "--token", token, "--data", #"{"a":"1"}"#, "--service-account", directory + "/nope.json",
        ])
        #expect(missing.status == 1 && missing.err.contains("nope.json"))
    }
}
