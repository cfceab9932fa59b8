import DropTrackContract
import Foundation

/// The checks for a Live Activity payload that APNs itself does not make: the push is accepted
/// with 200, and the phone then drops it without a word. The APNs emulator records these next to
/// its verdict; the doctor runs them before a send.
public struct LiveActivityLint: Sendable {
    /// What is known about the destination beyond the payload itself.
    public struct Context: Sendable {
        /// Now, for stale-date and timestamp checks.
        public var now: Date
        /// The newest `timestamp` already accepted for this token, if any.
        public var lastTimestamp: Int64?
        /// The contract the token's activity was started with (for update and end), if known.
        public var contract: LiveActivityContract?
        /// Contracts by `attributes-type`, for starts.
        public var contracts: [String: LiveActivityContract]
        /// True when the token's activity has already ended.
        public var activityEnded: Bool

        /// Creates a context.
        public init(
            now: Date, lastTimestamp: Int64? = nil, contract: LiveActivityContract? = nil,
            contracts: [String: LiveActivityContract] = [:], activityEnded: Bool = false
        ) {
            self.now = now
            self.lastTimestamp = lastTimestamp
            self.contract = contract
            self.contracts = contracts
            self.activityEnded = activityEnded
        }
    }

    /// Keys ActivityKit reads inside `aps`.
    public static let knownAPSKeys: Set<String> = [
        "event", "timestamp", "content-state", "stale-date", "dismissal-date", "relevance-score", "alert",
        "attributes-type", "attributes", "input-push-token", "input-push-channel",
    ]

    /// Common misspellings and where they belong.
    static let misspellings: [String: String] = [
        "state-date": "stale-date", "staleDate": "stale-date", "stale_date": "stale-date",
        "contentState": "content-state", "content_state": "content-state", "contentstate": "content-state",
        "dismissalDate": "dismissal-date", "dismissal_date": "dismissal-date", "events": "event",
        "relevanceScore": "relevance-score", "relevance_score": "relevance-score", "attributesType": "attributes-type",
        "attributes_type": "attributes-type", "inputPushToken": "input-push-token",
        "inputPushChannel": "input-push-channel",
    ]

    /// Reference seconds (since 2001) for dates from 2001 to about 2040 fall below this; Unix
    /// seconds for recent dates sit far above it.
    static let latestPlausibleReferenceSeconds: Double = 1.25e9

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
        for key in aps.keys where !knownAPSKeys.contains(key) {
            let suggestion = misspellings[key].map { "rename it to \"\($0)\"" } ?? "remove it or move it next to aps"
            findings.append(
                LintFinding(
                    trap: "DT-023", severity: .warning, field: "aps.\(key)",
                    message: "\"\(key)\" is not a key ActivityKit reads inside aps, so it is ignored", fix: suggestion))
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
        findings += checkTimestamps(aps, event: event, context: context)
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

    private static func checkTimestamps(_ aps: [String: JSONValue], event: String?, context: Context) -> [LintFinding] {
        var findings: [LintFinding] = []
        let nowUnix = context.now.timeIntervalSince1970
        if let value = aps["timestamp"] {
            if let number = value.numberValue {
                if number >= 1e11 {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .error, field: "aps.timestamp",
                            message: "aps.timestamp \(Int64(number)) looks like milliseconds; it must be Unix seconds",
                            fix: "use floor(milliseconds / 1000)"))
                } else if number < 1e9 {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .error, field: "aps.timestamp",
                            message:
                                "aps.timestamp \(Int64(number)) is not a plausible Unix time (reference-date seconds?)",
                            fix: "use the current Unix time in seconds"))
                } else if number > nowUnix + 8 * 3600 {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .warning, field: "aps.timestamp",
                            message:
                                "aps.timestamp is more than 8 hours in the future; devices are reported to drop it",
                            fix: "stamp pushes with the current Unix time"))
                }
                if let last = context.lastTimestamp, Int64(number) < last {
                    findings.append(
                        LintFinding(
                            trap: "DT-020", severity: .error, field: "aps.timestamp",
                            message:
                                "timestamp \(Int64(number)) is older than \(last), the newest already sent to this token; the device drops it",
                            fix: "recompute the state at send time and stamp it with a timestamp that only goes up"))
                }
            } else {
                findings.append(
                    LintFinding(
                        trap: "DT-018", severity: .error, field: "aps.timestamp",
                        message: "aps.timestamp is a \(value.typeName), not a number",
                        fix: "send Unix seconds as a JSON integer"))
            }
        } else {
            let inState = aps["content-state"]?["timestamp"] != nil
            findings.append(
                LintFinding(
                    trap: "DT-019", severity: .warning, field: "aps.timestamp",
                    message: inState
                        ? "timestamp sits inside content-state, where ActivityKit does not read it; aps.timestamp is missing"
                        : "aps.timestamp is missing, so a delayed older push can overwrite a newer one",
                    fix: "set aps.timestamp to the current Unix time in seconds"))
        }
        if let stale = aps["stale-date"] {
            if let number = stale.numberValue {
                if number >= 1e11 || number < 1e9 {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .error, field: "aps.stale-date",
                            message: "stale-date \(Int64(number)) is not Unix seconds", fix: "send Unix seconds"))
                } else if number < nowUnix {
                    findings.append(
                        LintFinding(
                            trap: "DT-021", severity: .warning, field: "aps.stale-date",
                            message: "stale-date is already in the past, so the activity shows as stale at once",
                            fix: "set stale-date in the future, or leave it out"))
                }
            } else {
                findings.append(
                    LintFinding(
                        trap: "DT-018", severity: .error, field: "aps.stale-date",
                        message: "stale-date is a \(stale.typeName), not a number",
                        fix: "send Unix seconds as a JSON integer"))
            }
        }
        if let dismissal = aps["dismissal-date"] {
            if event != "end" {
                findings.append(
                    LintFinding(
                        trap: "DT-022", severity: .warning, field: "aps.dismissal-date",
                        message: "dismissal-date only means something on end; here it is ignored",
                        fix: "send dismissal-date with the end event"))
            } else if let number = dismissal.numberValue, number < nowUnix {
                findings.append(
                    LintFinding(
                        trap: "DT-022", severity: .info, field: "aps.dismissal-date",
                        message:
                            "dismissal-date is in the past: the activity is removed at once and its final state is never seen",
                        fix:
                            "to show the final state, end with a dismissal-date a few minutes ahead, or send a final update first"
                    ))
            }
        }
        return findings
    }

    private static func checkStart(_ aps: [String: JSONValue], context: Context) -> [LintFinding] {
        var findings: [LintFinding] = []
        if aps["alert"] == nil {
            findings.append(
                LintFinding(
                    trap: "DT-025", severity: .error, field: "aps.alert",
                    message: "a start without alert is accepted by APNs and never shown",
                    fix: "add \"alert\": {\"title\": …, \"body\": …} to every start"))
        }
        let typeName = aps["attributes-type"]?.stringValue
        if typeName == nil {
            findings.append(
                LintFinding(
                    trap: "DT-026", severity: .error, field: "aps.attributes-type",
                    message: "a start without attributes-type cannot start anything",
                    fix: "set attributes-type to the ActivityAttributes struct's name"))
        }
        guard let attributes = aps["attributes"] else {
            findings.append(
                LintFinding(
                    trap: "DT-026", severity: .error, field: "aps.attributes",
                    message: "a start without attributes cannot start anything",
                    fix: "send the static attributes as an object"))
            return findings
        }
        guard let typeName else { return findings }
        guard let contract = context.contracts[typeName] else {
            if !context.contracts.isEmpty {
                findings.append(
                    LintFinding(
                        trap: "DT-026", severity: .error, field: "aps.attributes-type",
                        message:
                            "no ActivityAttributes type named \"\(typeName)\" is registered (known: \(context.contracts.keys.sorted().joined(separator: ", ")))",
                        fix: "use the exact Swift type name, case included"))
            }
            return findings
        }
        if case .fails(let reason, let keyPath) = contract.checkAttributes(attributes.encoded()) {
            findings.append(
                LintFinding(
                    trap: "DT-027", severity: .error, field: "aps.attributes" + (keyPath.map { ".\($0)" } ?? ""),
                    message: "attributes do not decode as \(typeName): \(reason)",
                    fix: "attributes must hold exactly the static fields; the changing ones go in content-state"))
        }
        if let state = aps["content-state"] {
            findings += checkContentState(state, contract: contract, now: context.now)
        } else {
            findings.append(
                LintFinding(
                    trap: "DT-014", severity: .error, field: "aps.content-state",
                    message: "a start needs the initial content-state",
                    fix: "send the full content-state with the start"))
        }
        return findings
    }

    /// Checks a content-state against a contract (when known) and for Unix-time dates.
    public static func checkContentState(_ state: JSONValue, contract: LiveActivityContract?, now: Date)
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
                                ? "a date in content-state (\(Int64(unix))) looks like Unix milliseconds; ActivityKit reads seconds since 2001-01-01"
                                : "a date in content-state (\(Int64(unix))) looks like Unix seconds; ActivityKit reads seconds since 2001-01-01, so it shows about 31 years ahead",
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
                            "\(key) = \(Int64(number)) looks like a Unix \(number >= 1e11 ? "millisecond" : "second") time; a Swift Date decodes seconds since 2001-01-01",
                        fix: "send floor(unixMillis / 1000) − 978307200"))
            } else if member.objectValue != nil {
                findings += heuristicDates(member, path: "\(path).\(key)")
            }
        }
        return findings
    }
}
