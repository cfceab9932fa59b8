import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation

/// The doctor: lists every known silent-failure trap a push hits, each keyed by its id in the trap
/// catalog (`docs/reference/traps.md`, built in as ``TrapCatalog``) with a one-line fix. Pure and I/O-free: it
/// reads the push and the facts it is given, and nothing else.
///
/// Every trap the catalog marks as server-detectable (S) or server-flaggable (S~) has one rule
/// here, keyed by its id (``coveredTraps``). A rule that needs a fact the push cannot show (the
/// token's environment, the activity's state, the send history) fires only when the
/// ``DoctorContext`` supplies it. S~ rules only warn. Traps that only the app build shows are a
/// ``checklist``; the ones only a device or the simulators can observe are ``simulatedTraps``.
///
/// ```swift
/// let findings = Doctor.examine(.apns(path: "/3/device/\(token)", headers: headers, body: body),
///                               context: DoctorContext(now: now, contract: .delivery))
/// ```
public struct Doctor: Sendable {
    /// The rules this doctor runs.
    public var rules: [DoctorRule]

    /// A doctor running `rules` (all of them by default; a server may leave some out).
    public init(rules: [DoctorRule] = Doctor.standardRules) { self.rules = rules }

    /// Every rule, in catalog order.
    public static let standardRules: [DoctorRule] =
        (requestRules + payloadRules + contractPayloadRules + tokenRules + budgetRules
        + credentialRules + fcmRules + fcmProjectRules + androidRules).sorted { $0.trap < $1.trap }

    /// The catalog ids the rules cover: every S and S~ trap.
    public static var coveredTraps: [String] { standardRules.map(\.trap) }

    /// Examines a push with the standard rules.
    public static func examine(_ push: DoctorPush, context: DoctorContext = DoctorContext()) -> [LintFinding] {
        Doctor().examine(push, context: context)
    }

    /// Examines a push: every trap it hits, errors first, then warnings, then notes, each group in
    /// catalog order.
    public func examine(_ push: DoctorPush, context: DoctorContext = DoctorContext()) -> [LintFinding] {
        let examination = Examination(push: push, context: context)
        var findings = run(examination, scopes: [.request, .payload, .context])
        // FCM's own path to an iOS Live Activity: the APNs payload inside the message meets every
        // payload trap an APNs push would.
        if let embedded = examination.embeddedLiveActivity {
            let nested = Examination(push: embedded, context: context, embedded: true)
            findings += run(nested, scopes: [.payload]).map { finding in
                var finding = finding
                finding.field = finding.field.map { "message.apns.payload.\($0)" } ?? "message.apns.payload"
                return finding
            }
        }
        var seen = Set<LintFinding>()
        let unique = findings.filter { seen.insert($0).inserted }
        let rank: [LintFinding.Severity: Int] = [.error: 0, .warning: 1, .info: 2]
        return unique.enumerated().sorted { a, b in
            let (ra, rb) = (rank[a.element.severity]!, rank[b.element.severity]!)
            if ra != rb { return ra < rb }
            if a.element.trap != b.element.trap { return a.element.trap < b.element.trap }
            return a.offset < b.offset
        }.map(\.element)
    }

    private func run(_ examination: Examination, scopes: Set<DoctorRule.Scope>) -> [LintFinding] {
        var findings: [LintFinding] = []
        for rule in rules where scopes.contains(rule.scope) {
            var report = DoctorReport(rule: rule)
            rule.check(examination, &report)
            findings += report.findings
        }
        return findings
    }

    /// Findings as the doctor's JSON: an array of `{id, severity, field, message, fix}` (`field` is
    /// null when the finding is about the send as a whole). The CLI's `--json` and the server share it.
    public static func json(_ findings: [LintFinding]) -> JSONValue {
        .array(
            findings.map { finding in
                .object([
                    "id": .string(finding.trap), "severity": .string(finding.severity.rawValue),
                    "field": finding.field.map(JSONValue.string) ?? .null, "message": .string(finding.message),
                    "fix": .string(finding.fix),
                ])
            })
    }
}

/// One catalog trap and the check that finds it.
public struct DoctorRule: Sendable {
    /// How sure the server can be, as the catalog says.
    public enum Detection: String, Sendable, Codable {
        /// S: the server detects it reliably.
        case reliable = "S"
        /// S~: the server can flag the risk but not prove the cause; its findings are warnings.
        case risk = "S~"
    }

    /// What part of a send the rule reads, so FCM's embedded APNs payload runs only payload rules.
    enum Scope: Sendable {
        /// Path, method, headers, host: the request as such.
        case request
        /// The APNs `aps` payload.
        case payload
        /// The token, device, activity, history, configuration or FCM message.
        case context
    }

    /// The catalog id, `DT-nnn`.
    public let trap: String
    /// The catalog's title, shortened.
    public let title: String
    /// S or S~.
    public let detection: Detection
    let scope: Scope
    let check: @Sendable (Examination, inout DoctorReport) -> Void

    init(
        _ trap: String, _ title: String, _ detection: Detection = .reliable, scope: Scope = .context,
        check: @escaping @Sendable (Examination, inout DoctorReport) -> Void
    ) {
        self.trap = trap
        self.title = title
        self.detection = detection
        self.scope = scope
        self.check = check
    }
}

/// What one rule reports: every finding carries the rule's id, and an S~ rule never says more
/// than "warning".
struct DoctorReport {
    let rule: DoctorRule
    private(set) var findings: [LintFinding] = []

    init(rule: DoctorRule) { self.rule = rule }

    mutating func add(_ severity: LintFinding.Severity, _ field: String?, _ message: String, fix: String) {
        let capped: LintFinding.Severity = rule.detection == .risk && severity == .error ? .warning : severity
        findings.append(LintFinding(trap: rule.trap, severity: capped, field: field, message: message, fix: fix))
    }

    mutating func error(_ field: String?, _ message: String, fix: String) { add(.error, field, message, fix: fix) }
    mutating func warning(_ field: String?, _ message: String, fix: String) { add(.warning, field, message, fix: fix) }
    mutating func info(_ field: String?, _ message: String, fix: String) { add(.info, field, message, fix: fix) }

    /// Takes over findings a shared check (LiveActivityLint, `validate()`) made for this rule's trap.
    mutating func adopt(_ shared: [LintFinding]) {
        for finding in shared where finding.trap == rule.trap {
            add(finding.severity, finding.field, finding.message, fix: finding.fix)
        }
    }
}
