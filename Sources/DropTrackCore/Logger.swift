import Foundation
import Synchronization

/// Severity of a log line. Success paths log at `debug`; `info` and above are for what a caller
/// cannot see in a return value.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Parses `trace|debug|info|notice|warning|error`.
    public init?(name: String) {
        switch name.lowercased() {
        case "trace": self = .trace
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .notice
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}

/// One structured log line: a constant message plus dotted metadata keys.
public struct LogEntry: Sendable {
    /// When the line was logged.
    public var time: Date
    /// Its severity.
    public var level: LogLevel
    /// A constant message; variable data goes in `metadata`.
    public var message: String
    /// Dotted keys such as `request.id` or `apns.reason`. Never a token or key: use fingerprints.
    public var metadata: [String: String]
}

/// Where log lines go.
public protocol LogHandler: Sendable {
    /// Writes one line.
    func log(_ entry: LogEntry)
}

/// A structured logger: a value that carries metadata and a handler, handed down explicitly.
public struct Logger: Sendable {
    /// Lines below this level are dropped.
    public var minimumLevel: LogLevel
    /// Metadata added to every line.
    public var metadata: [String: String]
    private let handler: any LogHandler

    /// Creates a logger over a handler.
    public init(handler: any LogHandler, minimumLevel: LogLevel = .info, metadata: [String: String] = [:]) {
        self.handler = handler
        self.minimumLevel = minimumLevel
        self.metadata = metadata
    }

    /// A logger that drops everything.
    public static let disabled = Logger(handler: NoOpLogHandler(), minimumLevel: .error)

    /// A copy with extra metadata.
    public func with(_ extra: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    /// Logs one line if `level` is at or above the minimum.
    public func log(_ level: LogLevel, _ message: String, _ extra: [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        var all = metadata
        all.merge(extra) { _, new in new }
        handler.log(LogEntry(time: Date(), level: level, message: message, metadata: all))
    }

    public func debug(_ message: String, _ extra: [String: String] = [:]) { log(.debug, message, extra) }
    public func info(_ message: String, _ extra: [String: String] = [:]) { log(.info, message, extra) }
    public func notice(_ message: String, _ extra: [String: String] = [:]) { log(.notice, message, extra) }
    public func warning(_ message: String, _ extra: [String: String] = [:]) { log(.warning, message, extra) }
    public func error(_ message: String, _ extra: [String: String] = [:]) { log(.error, message, extra) }
}

/// Drops every line.
public struct NoOpLogHandler: LogHandler {
    public init() {}
    public func log(_ entry: LogEntry) {}
}

/// Writes one JSON object per line to standard error (`LogLine`: no ICU on the way).
public struct JSONLinesLogHandler: LogHandler {
    public init() {}

    public func log(_ entry: LogEntry) {
        var object: [String: String] = entry.metadata
        object["time"] = LogLine.timestamp(entry.time)
        object["level"] = entry.level.description
        object["msg"] = entry.message
        var line = LogLine.encode(object)
        line.append(0x0a)
        FileHandle.standardError.write(Data(line))
    }
}

/// Keeps lines in memory so tests can assert on them (and on what they must never contain).
public final class InMemoryLogHandler: LogHandler {
    private let stored = Mutex<[LogEntry]>([])

    public init() {}

    public func log(_ entry: LogEntry) { stored.withLock { $0.append(entry) } }

    /// Every line logged so far.
    public var entries: [LogEntry] { stored.withLock { $0 } }
}
