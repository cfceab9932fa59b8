/// One silent-failure trap a push hits, keyed by its id in the trap catalog
/// (`docs/reference/traps.md`, DT-001 … DT-123).
public struct LintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable, Codable, Hashable {
        /// The device or provider will drop or mis-show the push.
        case error
        /// Likely wrong, or wrong under conditions the push alone cannot show.
        case warning
        /// Worth knowing; not a failure.
        case info
    }

    /// The catalog id, e.g. `DT-013`.
    public var trap: String
    /// How bad it is.
    public var severity: Severity
    /// The header or payload key at fault (`aps.content-state.eta`, `apns-topic`, …).
    public var field: String?
    /// What is wrong.
    public var message: String
    /// The one-line fix.
    public var fix: String

    /// Creates a finding.
    public init(trap: String, severity: Severity, field: String?, message: String, fix: String) {
        self.trap = trap
        self.severity = severity
        self.field = field
        self.message = message
        self.fix = fix
    }

    public var description: String {
        "\(trap) [\(severity.rawValue)]\(field.map { " \($0)" } ?? ""): \(message) Fix: \(fix)"
    }
}
