import DropTrackContract
import DropTrackTesting
import Foundation
import Testing

/// A crash of `serve` under the Debian unit's `SWIFT_BACKTRACE=enable=no` is one JSON line in its
/// JSON-line log. Before, it was lines of text, or nothing at all with the backtracer off.
@Suite("A crash is one JSON log line")
struct CrashLineTests {
    @Test("SIGSEGV and SIGILL: every line on stderr is JSON, one says server.crashed with the signal")
    func crashLine() throws {
        for signal in [SIGSEGV, SIGILL] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/droptrack")
            process.arguments = ["serve", "--listen", "127.0.0.1:\(try freePort())", "--store", "memory"]
            process.environment = [
                "PATH": "/usr/bin:/bin",
                "SWIFT_BACKTRACE": "enable=no",
            ]
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            #expect(
                String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).contains("droptrack serving on")
            )
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "it still dies of the signal, for systemd to restart")
            let lines = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let parsed = lines.map { try? JSONValue.parse(String($0)) }
            #expect(parsed.allSatisfy { $0?.objectValue != nil }, "every line is JSON: \(lines)")
            let crash = parsed.compactMap { $0 }.filter { $0["msg"] == .string("server.crashed") }
            #expect(crash.count == 1, "\(lines)")
            #expect(
                crash.first?["level"] == .string("critical")
                    && crash.first?["time"]?.stringValue?.hasSuffix("Z") == true)
            #expect(crash.first?["signal"] == .string(signal == SIGSEGV ? "SIGSEGV" : "SIGILL"))
        }
    }
}
