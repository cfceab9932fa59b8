import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Configuration and the serve, apps and tokens commands")
struct ServeCommandTests {
    @Test("a misspelt key in the config file is refused with the key named and a suggestion")
    func unknownKeys() throws {
        let directory = makeTemporaryDirectory("config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/droptrack.json"
        try #"{"listen":"127.0.0.1:0","maxInFlite":10}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            let message = (error as? ConfigurationError)?.message ?? ""
            return message.contains("maxInFlite") && message.contains("did you mean 'maxInFlight'")
        }
        try #"{"apps":[{"id":"a","bundleID":"x","apiKeyHashes":[]}]}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("apps[0].bundleID") == true
        }
        // One level down, inside an app's credentials, and a wrong type in plain words.
        try
            #"{"apps":[{"id":"a","apiKeyHashes":[],"apns":{"keyfile":"k.p8","keyId":"ABCDEFGHIJ","teamId":"ABCDEFGHIJ","environment":"sandbox"}}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            let message = (error as? ConfigurationError)?.message ?? ""
            return message.contains("'apps[0].apns.keyfile'") && message.contains("did you mean 'keyFile'")
        }
        try #"{"listen":8080,"maxAttempts":"5"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            let message = (error as? ConfigurationError)?.message ?? ""
            return message.hasSuffix("'listen' must be a string, not a number") && !message.contains("decode")
        }
        try #"{"maxInFlight":10}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(file: file, environment: ["DROPTRACK_MAX_IN_FLIGHT": "20"])
        #expect(loaded.maxInFlight == 20, "variables win over the file")
        #expect(throws: ConfigurationError.self) {
            _ = try ServerConfiguration.load(file: file, environment: ["DROPTRACK_MAX_IN_FLIGHT": "lots"])
        }
        try #"{"timelineRetentionDays":-1}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.key == "timelineRetentionDays"
        }
        #expect(
            try ServerConfiguration.load(file: nil, environment: ["DROPTRACK_TOKEN_RETENTION_DAYS": "7"])
                .tokenRetentionDays == 7)
        try #"{"tokenRetentionDays":-2}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.key == "tokenRetentionDays"
        }
    }

    @Test("caFile and a sqlite store written in the config file are the file's paths, not the shell's")
    func pathsOfTheFile() throws {
        let directory = makeTemporaryDirectory("config-paths")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/droptrack.json"
        try #"{"caFile":"dev/ca.pem","store":"sqlite:data/droptrack.sqlite"}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(file: file, environment: [:])
        let root = URL(fileURLWithPath: directory).standardizedFileURL.path
        #expect(loaded.caFile == root + "/dev/ca.pem")
        #expect(loaded.store == "sqlite:" + root + "/data/droptrack.sqlite")
        // What the file does not say, and what the shell says, stay the shell's.
        try #"{"listen":"127.0.0.1:0"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try ServerConfiguration.load(file: file, environment: [:]).store == "sqlite:droptrack.sqlite")
        let overridden = try ServerConfiguration.load(
            file: file, environment: ["DROPTRACK_STORE": "sqlite:here.sqlite", "DROPTRACK_CA_FILE": "ca.pem"])
        #expect(overridden.store == "sqlite:here.sqlite" && overridden.caFile == "ca.pem")
    }

    @Test("the configuration reference page documents every configuration key and its variable")
    func referenceListsEveryKey() throws {
        let page = try String(
            contentsOfFile: repositoryRoot + "/docs/reference/configuration.md", encoding: .utf8)
        for entry in ServerConfiguration.keys {
            #expect(page.contains("`\(entry.key)`"), "configuration.md lacks \(entry.key)")
            if entry.variable != "-" {
                #expect(page.contains("`\(entry.variable)`"), "configuration.md lacks \(entry.variable)")
            }
        }
    }

    @Test("the CLI reference page has a section for every command droptrack and droptrack-dev --help list")
    func referenceListsEveryCommand() throws {
        let page = try String(contentsOfFile: repositoryRoot + "/docs/reference/cli.md", encoding: .utf8)
        for program in ["droptrack", "droptrack-dev"] {
            let help = try runDropTrack(["--help"], program: program)
            let commandLines = help.out.components(separatedBy: "COMMANDS:").last?.split(separator: "\n") ?? []
            // Each line is two spaces, the command words, padded with at least two spaces, then the abstract.
            let commands = commandLines.filter { $0.hasPrefix("  ") }.compactMap {
                $0.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ").first
            }
            let expected = program == "droptrack" ? "apps rotate-key" : "demo"
            #expect(commands.contains(expected), "\(help.out)")
            for command in commands {
                let documented = page.contains("## `\(program) \(command)`")
                #expect(documented, "docs/reference/cli.md lacks \(program) \(command)")
            }
        }
    }

    @Test("apps add stores only a hash; serve answers with that key, refuses others, and exits 0 on SIGTERM")
    func serveEndToEnd() throws {
        let directory = makeTemporaryDirectory("serve")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        let added = try runDropTrack(["apps", "add", "--config", config, "--id", "shop", "--bundle-id", "com.x"])
        #expect(added.status == 0, "\(added.err)")
        let key = added.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("dt_shop_"))
        let stored = try String(contentsOfFile: config, encoding: .utf8)
        #expect(!stored.contains(key) && stored.contains("sha256:"))
        let rotated = try runDropTrack(["apps", "add", "--config", config, "--id", "shop"])
        #expect(rotated.status == 0)
        let bad = try runDropTrack(["apps", "add", "--config", config, "--id", "bad id"])
        #expect(bad.status == 2 && bad.err.contains("--id 'bad id'"))
        #expect(try String(contentsOfFile: config, encoding: .utf8).contains("sha256:"), "the file is intact")

        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/droptrack")
        process.arguments = ["serve", "--config", config, "--listen", "127.0.0.1:\(port)"]
        process.environment = ["DROPTRACK_STORE": "sqlite:\(directory)/store.sqlite", "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let banner = out.fileHandleForReading.availableData
        #expect(String(decoding: banner, as: UTF8.self).contains("droptrack serving on http://127.0.0.1:\(port)"))

        func get(_ path: String, key: String?) throws -> Int {
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            try connection.send(
                "GET \(path) HTTP/1.1\r\nHost: x\r\n\(key.map { "Authorization: Bearer \($0)\r\n" } ?? "")\r\n")
            return try connection.readResponse().status
        }
        #expect(try get("/readyz", key: nil) == 200)
        #expect(try get("/v1/activities/none", key: key) == 404)
        #expect(try get("/v1/activities/none", key: key + "0") == 401)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let logs = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(logs.contains("\"msg\":\"server.stopped\""))
        #expect(!logs.contains(key))
    }

    @Test("SIGHUP drains and exits 0 like SIGTERM, logging server.stopping with the signal; --help says so")
    func sighup() throws {
        let directory = makeTemporaryDirectory("hup")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        _ = try runDropTrack(["apps", "add", "--config", config, "--id", "shop", "--bundle-id", "com.x"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/droptrack")
        process.arguments = [
            "serve", "--config", config, "--listen", "127.0.0.1:\(try freePort())", "--store", "memory",
        ]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        #expect(
            String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("droptrack serving on"))
        kill(process.processIdentifier, SIGHUP)
        process.waitUntilExit()
        // Left to its default, SIGHUP killed the process (terminationReason .uncaughtSignal), no drain, no line.
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let logs = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(logs.contains(#""msg":"server.stopping""#) && logs.contains(#""signal":"SIGHUP""#))
        #expect(logs.contains("\"msg\":\"server.stopped\""))
        let help = try runDropTrack(["serve", "--help"])
        #expect(help.out.contains("SIGHUP"))
    }

    @Test("tokens import checks every line first and writes nothing when one is wrong")
    func tokenImport() throws {
        let directory = makeTemporaryDirectory("import")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        _ = try runDropTrack(["apps", "add", "--config", config, "--id", "shop", "--bundle-id", "com.x"])
        let environment = ["DROPTRACK_STORE": "sqlite:\(directory)/store.sqlite"]
        let good = (0..<50).map {
            #"{"kind":"fcm","userId":"u\#($0)","deviceId":"d\#($0)","token":"fcm-token-\#($0)"}"#
        }
        try
            (good + [
                #"{"kind":"push_to_start","userId":"u","deviceId":"d","token":"xyz","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            ])
            .joined(separator: "\n").write(toFile: directory + "/bad.jsonl", atomically: true, encoding: .utf8)
        let refused = try runDropTrack(
            ["tokens", "import", "--config", config, "--app", "shop", "--file", directory + "/bad.jsonl"],
            environment: environment)
        #expect(refused.status == 1)
        #expect(refused.err.contains("line 51: token:"))
        #expect(refused.err.contains("nothing was written"))
        try good.joined(separator: "\n").write(toFile: directory + "/good.jsonl", atomically: true, encoding: .utf8)
        let imported = try runDropTrack(
            ["tokens", "import", "--config", config, "--app", "shop", "--file", directory + "/good.jsonl"],
            environment: environment)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("50 tokens: 50 new, 0 already registered"))
        let again = try runDropTrack(
            ["tokens", "import", "--config", config, "--app", "shop", "--file", directory + "/good.jsonl"],
            environment: environment)
        #expect(again.out.contains("50 tokens: 0 new, 50 already registered"))
        #expect(again.err.contains("importing tokens"), "progress lines without a TTY")
        // The kind as the help spells it (the route's `push-to-start`) and as it is stored.
        let token = { (n: Int) in String(repeating: "ab", count: 31) + String(format: "%02x", n) }
        let spelled = [
            #"{"kind":"push-to-start","userId":"p1","deviceId":"p1","token":"\#(token(1))","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
            #"{"kind":"push_to_start","userId":"p2","deviceId":"p2","token":"\#(token(2))","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
        ]
        try spelled.joined(separator: "\n").write(toFile: directory + "/kinds.jsonl", atomically: true, encoding: .utf8)
        let kinds = try runDropTrack(
            ["tokens", "import", "--config", config, "--app", "shop", "--file", directory + "/kinds.jsonl"],
            environment: environment)
        #expect(kinds.status == 0 && kinds.out.contains("2 tokens: 2 new"), "\(kinds.out)\(kinds.err)")
    }
}

/// A port nothing listens on right now.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
