import DropTrackWire
import Foundation
import Synchronization

/// A usage mistake: printed to stderr with the command's usage, exit code 2.
package struct UsageError: Error, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A failure while running a command: printed to stderr, exit code 1.
package struct CommandFailure: Error, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Parsed `--flag value`, `--flag=value` and bare `--switch` arguments. Every flag can also come
/// from an environment variable: `--key-id` under prefix `DROPTRACK_APNS_` is `DROPTRACK_APNS_KEY_ID`.
package struct Arguments {
    private var values: [String: String] = [:]
    private var switches: Set<String> = []
    package private(set) var positional: [String] = []
    package let environmentPrefix: String
    private let environment: [String: String]

    /// Parses `arguments` against the flags a command knows; anything else is a usage error.
    package init(
        _ arguments: [String], valued: Set<String>, switches allowedSwitches: Set<String>, environmentPrefix: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        self.environmentPrefix = environmentPrefix
        self.environment = environment
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            var name = argument.hasPrefix("--") ? String(argument.dropFirst(2)) : String(argument.dropFirst())
            var inline: String? = nil
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if allowedSwitches.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else {
                let all = valued.union(allowedSwitches)
                if let nearest = KeySuggestion.nearest(name, among: all) {
                    throw UsageError("unknown option \(argument); did you mean --\(nearest)?")
                }
                let known = all.sorted().map { "--\($0)" }.joined(separator: ", ")
                throw UsageError("unknown option \(argument); known options: \(known)")
            }
        }
    }

    package static func environmentName(prefix: String, flag: String) -> String {
        prefix + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The flag's value, from the command line or else the environment.
    package func value(_ name: String) -> String? {
        values[name] ?? environment[Arguments.environmentName(prefix: environmentPrefix, flag: name)]
    }

    /// The value, or a usage error naming the flag and its variable.
    package func required(_ name: String) throws -> String {
        guard let value = value(name), !value.isEmpty else {
            throw UsageError(
                "--\(name) is required (or set \(Arguments.environmentName(prefix: environmentPrefix, flag: name)))")
        }
        return value
    }

    /// An integer value, or a usage error naming the flag.
    package func integer(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw UsageError("--\(name) must be a whole number, not '\(text)'") }
        return number
    }

    /// A switch, from the command line or the environment (`1`, `true`, `yes`).
    package func flag(_ name: String) -> Bool {
        if switches.contains(name) { return true }
        let raw = environment[Arguments.environmentName(prefix: environmentPrefix, flag: name)]?.lowercased()
        return raw == "1" || raw == "true" || raw == "yes"
    }

    /// Reads `JSON` or `@FILE`.
    package func jsonText(_ name: String) throws -> String? {
        guard let raw = value(name) else { return nil }
        guard raw.hasPrefix("@") else { return raw }
        let path = String(raw.dropFirst())
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--\(name): cannot read file \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One CLI command.
package protocol Command {
    /// The words that select it, e.g. `["push", "apns"]`.
    static var path: [String] { get }
    /// One line for `droptrack --help`.
    static var abstract: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs with the arguments after the command words; returns the exit code.
    static func run(_ arguments: [String]) async throws -> Int32
}

/// The command line, program name first. Preloaded under libfaketime (`LD_PRELOAD`, as
/// checks/clock_jump.py runs the server) the Swift runtime sees no arguments at all, and `droptrack
/// serve` printed the usage; Linux keeps them in /proc/self/cmdline, NUL-terminated.
package func processArguments() -> [String] {
    if !CommandLine.arguments.isEmpty { return CommandLine.arguments }
    guard let bytes = FileManager.default.contents(atPath: "/proc/self/cmdline"), !bytes.isEmpty else { return [] }
    var parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    if bytes.last == 0 { parts.removeLast() }
    return parts
}

/// Writes a line to standard error.
package func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// SIGINT, SIGTERM and SIGHUP, caught from the moment this is created (create it before announcing
/// that a server is up, so a signal sent right after the announcement is not lost). SIGHUP ends the
/// process like SIGTERM, after the same drain: left to its default it killed the server on the spot,
/// leaving the starts in flight in doubt as a kill -9 does (a closed terminal or session sends it).
package final class TerminationSignal: Sendable {
    private let received = OnceFlag()
    private let semaphore = DispatchSemaphore(value: 0)
    private let name = Mutex("")

    /// The signals that end a long-running command, with their names for the log.
    package static let handled: [(number: Int32, name: String)] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"),
    ]

    package init() {
        for (number, _) in Self.handled { signal(number, SIG_IGN) }
        let queue = DispatchQueue(label: "signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, signalName) in Self.handled {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The sources live as long as the process, and so does this object.
            source.setEventHandler { [self] in
                if received.claim() {
                    name.withLock { $0 = signalName }
                    semaphore.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
        SignalSourceKeeper.keep(sources)
    }

    /// Returns once a signal has arrived, with its name (`SIGTERM`).
    @discardableResult
    package func wait() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [semaphore] in
                semaphore.wait()
                continuation.resume()
            }
        }
        return name.withLock { $0 }
    }
}

/// Keeps signal sources alive for the life of the process.
package enum SignalSourceKeeper {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    package static func keep(_ new: [any DispatchSourceSignal]) { sources.append(contentsOf: new) }
}

/// True the first time only.
package final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    package func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        done = true
        return true
    }
}
