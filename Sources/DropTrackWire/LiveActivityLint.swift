import DropTrackContract
import DropTrackCore
import Foundation

/// The checks for a Live Activity payload that APNs itself does not make: the push is accepted
/// with 200, and the phone then drops it without a word. The APNs emulator records these next to
/// its verdict; the doctor runs them before a send.
public struct LiveActivityLint: Sendable {
    /// What is known about the destination beyond the payload itself.
    public struct Context: Sendable {
        /// Now, for stale-date, dismissal-date and timestamp checks; nil skips the checks that need it.
        public var now: Date?
        /// The newest `timestamp` already accepted for this token, if any.
        public var lastTimestamp: Int64?
        /// The contract the token's activity was started with (for update and end), if known.
        public var contract: LiveActivityContract?
        /// Contracts by `attributes-type`, for starts.
        public var contracts: [String: LiveActivityContract]
        /// True when the token's activity has already ended.
        public var activityEnded: Bool
        /// True for a broadcast to an iOS 18 channel, which can update and end but never start.
        public var broadcast: Bool
        /// `attributes-type` names the app registered with a field map only (no compiled contract):
        /// known names, so a start naming one is not reported as unknown.
        public var registeredTypes: Set<String>
        /// How far `timestamp` may lag behind now before the push counts as a job that waited too
        /// long in a queue and must be re-stamped (the catalog's DT-018 window).
        public var maxTimestampAge: TimeInterval
        /// The caller asked for the ended card to leave the screen at once, so a past
        /// dismissal-date is intended.
        public var immediateDismissal: Bool
        /// The longest an ended card stays: 4 hours on iOS 16–17, 8 hours from iOS 18; a later
        /// dismissal-date is clamped.
        public var dismissalCeiling: TimeInterval

        /// Creates a context.
        public init(
            now: Date?, lastTimestamp: Int64? = nil, contract: LiveActivityContract? = nil,
            contracts: [String: LiveActivityContract] = [:], activityEnded: Bool = false, broadcast: Bool = false,
            registeredTypes: Set<String> = [], maxTimestampAge: TimeInterval = 3600, immediateDismissal: Bool = false,
            dismissalCeiling: TimeInterval = 4 * 3600
        ) {
            self.now = now
            self.lastTimestamp = lastTimestamp
            self.contract = contract
            self.contracts = contracts
            self.activityEnded = activityEnded
            self.broadcast = broadcast
            self.registeredTypes = registeredTypes
            self.maxTimestampAge = maxTimestampAge
            self.immediateDismissal = immediateDismissal
            self.dismissalCeiling = dismissalCeiling
        }
    }

    /// Keys ActivityKit reads inside `aps`.
    public static let knownAPSKeys: Set<String> = [
        "event", "timestamp", "content-state", "stale-date", "dismissal-date", "relevance-score", "alert",
        "attributes-type", "attributes", "input-push-token", "input-push-channel",
    ]

    /// Keys a Live Activity alert reads.
    public static let knownAlertKeys: Set<String> = ["title", "body", "sound"]

    /// Common misspellings and where they belong.
    static let misspellings: [String: String] = [
        "state-date": "stale-date", "staleDate": "stale-date", "stale_date": "stale-date",
        "contentState": "content-state", "content_state": "content-state", "contentstate": "content-state",
        "dismissalDate": "dismissal-date", "dismissal_date": "dismissal-date", "events": "event",
        "relevanceScore": "relevance-score", "relevance_score": "relevance-score", "attributesType": "attributes-type",
        "attributes_type": "attributes-type", "inputPushToken": "input-push-token",
        "inputPushChannel": "input-push-channel",
    ]

    /// aps-level keys that sometimes end up inside content-state, where ActivityKit never reads them.
    static let apsKeysMisplacedInState: Set<String> = [
        "stale-date", "staleDate", "dismissal-date", "dismissalDate", "relevance-score", "relevanceScore", "alert",
    ]

    /// Reference seconds (since 2001) for dates from 2001 to about 2040 fall below this; Unix
    /// seconds for recent dates sit far above it.
    package static let latestPlausibleReferenceSeconds = ContentDates.latestReferenceSeconds

    /// How far ahead of now `timestamp` may run: a few seconds of monotonic stamping in a burst
    /// is normal, minutes mean a clock or unit problem.
    static let timestampLead: Double = 300

    /// Checks a decoded `{"aps": …}` payload.
    public static func check(_ payload: JSONValue, context: Context) -> [LintFinding] {
        var findings: [LintFinding] = []
        guard let aps = payload["aps"]?.objectValue else {
            return [
                LintFinding(
                    trap: "DT-023", severity: .error, field: "aps",
                    message: "the payload has no \"aps\" object, so ActivityKit sees nothing",
                    fix: "wrap event, timestamp and content-state in {\"aps\": {…}}")
            ]
        }
        for key in aps.keys.sorted() where !knownAPSKeys.contains(key) {
            if let intended = misspellings[key] ?? KeySuggestion.nearest(key, among: knownAPSKeys) {
                findings.append(
                    LintFinding(
                        trap: "DT-023", severity: .error, field: "aps.\(key)",
                        message: "\"\(key)\" is not a key ActivityKit reads inside aps, so it has no effect",
                        fix: "rename it to \"\(intended)\""))
            } else {
                findings.append(
                    LintFinding(
                        trap: "DT-023", severity: .warning, field: "aps.\(key)",
                        message: "\"\(key)\" is not a key ActivityKit reads inside aps, so it is ignored",
                        fix: "remove it, or move custom data next to aps"))
            }
        }
        let event = aps["event"]?.stringValue
        if event == nil {
            findings.append(
                LintFinding(
                    trap: "DT-023", severity: .error, field: "aps.event",
                    message: "aps.event is missing or not a string",
                    fix: "set \"event\" to \"start\", \"update\" or \"end\""))
        } else if let event, !["start", "update", "end"].contains(event) {
            findings.append(
                LintFinding(
                    trap: "DT-023", severity: .error, field: "aps.event",
                    message: "aps.event is \"\(event)\"; ActivityKit knows start, update and end",
                    fix: "use \"start\", \"update\" or \"end\""))
        }
        // ActivityKit reads the score as a Double; a quoted number is not converted, so the
        // activity silently loses its place in the Dynamic Island ranking.
        if let score = aps["relevance-score"], score.numberValue == nil {
            findings.append(
                LintFinding(
                    trap: "DT-023", severity: .error, field: "aps.relevance-score",
                    message: "aps.relevance-score is a \(score.typeName), not a number, so ActivityKit cannot use it",
                    fix: "send relevance-score as a JSON number, e.g. 50"))
        }
        findings += checkTimestamps(aps, event: event, context: context)
        findings += checkAlert(aps["alert"], event: event)
        if context.broadcast && event == "start" {
            findings.append(
                LintFinding(
                    trap: "DT-032", severity: .error, field: "aps.event",
                    message: "a broadcast cannot start an activity",
                    fix: "start with push-to-start carrying input-push-channel"))
        }
        if let state = aps["content-state"]?.objectValue {
            for key in state.keys.sorted() where apsKeysMisplacedInState.contains(key) {
                findings.append(
                    LintFinding(
                        trap: "DT-023", severity: .warning, field: "aps.content-state.\(key)",
                        message: "\"\(key)\" sits inside content-state, where ActivityKit does not read it",
                        fix: "move it into aps next to content-state"))
            }
        }
        if event == "start" {
            findings += checkStart(aps, context: context)
        } else {
            if context.activityEnded {
                findings.append(
                    LintFinding(
                        trap: "DT-037", severity: .error, field: nil,
                        message: "this token's activity has already ended; the device ignores pushes after end",
                        fix: "stop sending to tokens of ended activities"))
            }
            if let state = aps["content-state"] {
                findings += checkContentState(state, contract: context.contract, now: context.now)
            } else {
                findings.append(
                    LintFinding(
                        trap: "DT-014", severity: .error, field: "aps.content-state",
                        message: "no content-state: every \(event ?? "update") must carry the whole state",
                        fix: "send the full content-state with every update and end"))
            }
        }
        return findings
    }

    /// Checks a content-state against a contract (when known) and for Unix-time dates.
    public static func checkContentState(_ state: JSONValue, contract: LiveActivityContract?, now: Date?)
        -> [LintFinding]
    {
        var findings: [LintFinding] = []
        if let contract {
            switch contract.checkContentState(state.encoded()) {
            case .fails(let reason, let keyPath):
                findings.append(
                    LintFinding(
                        trap: "DT-013", severity: .error, field: "aps.content-state" + (keyPath.map { ".\($0)" } ?? ""),
                        message:
                            "content-state does not decode as \(contract.attributesType).ContentState: \(reason); APNs answers 200 and the card stays the same",
                        fix: "send exactly the ContentState's keys and JSON types"))
            case .decodes(let dates):
                for date in dates where date.timeIntervalSinceReferenceDate > latestPlausibleReferenceSeconds {
                    let unix = date.timeIntervalSinceReferenceDate
                    let looksLikeMillis = unix >= 1e11
                    findings.append(
                        LintFinding(
                            trap: "DT-017", severity: .error, field: "aps.content-state",
                            message: looksLikeMillis
                                ? "a date in content-state (\(JSONInteger.text(unix))) looks like Unix milliseconds; ActivityKit reads seconds since 2001-01-01"
                                : "a date in content-state (\(JSONInteger.text(unix))) looks like Unix seconds; ActivityKit reads seconds since 2001-01-01, so it shows about 31 years ahead",
                            fix: "send floor(unixMillis / 1000) − 978307200"))
                }
            }
        } else {
            findings += heuristicDates(state, path: "aps.content-state")
        }
        return findings
    }

    /// Without a contract: numbers under date-like keys that are Unix seconds or milliseconds.
    private static func heuristicDates(_ value: JSONValue, path: String) -> [LintFinding] {
        guard let object = value.objectValue else { return [] }
        var findings: [LintFinding] = []
        for (key, member) in object {
            let lower = key.lowercased()
            let dateLike = ["date", "eta", "time", "at", "until", "deadline", "start", "end"].contains {
                lower.hasSuffix($0)
            }
            if dateLike, let number = member.numberValue, number > latestPlausibleReferenceSeconds {
                findings.append(
                    LintFinding(
                        trap: "DT-017", severity: .warning, field: "\(path).\(key)",
                        message:
                            "\(key) = \(JSONInteger.text(number)) looks like a Unix \(number >= 1e11 ? "millisecond" : "second") time; a Swift Date decodes seconds since 2001-01-01",
                        fix: "send floor(unixMillis / 1000) − 978307200"))
            } else if member.objectValue != nil {
                findings += heuristicDates(member, path: "\(path).\(key)")
            }
        }
        return findings
    }
}
