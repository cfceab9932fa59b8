import DropTrackContract
import Foundation

extension LiveActivityLint {
    /// `timestamp`, `stale-date` and `dismissal-date`: whole Unix seconds, and sensible against now.
    static func checkTimestamps(_ aps: [String: JSONValue], event: String?, context: Context) -> [LintFinding] {
        var findings: [LintFinding] = []
        let nowUnix = context.now?.timeIntervalSince1970
        if let value = aps["timestamp"] {
            if let number = value.numberValue {
                if let problem = unixSecondsProblem(number) {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .error, field: "aps.timestamp",
                            message: "aps.timestamp \(describe(number)) \(problem)",
                            fix: "stamp every push with floor(nowMillis / 1000)"))
                } else if let nowUnix, number > nowUnix + 8 * 3600 {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .warning, field: "aps.timestamp",
                            message:
                                "aps.timestamp is more than 8 hours in the future; devices are reported to drop it",
                            fix: "stamp pushes with the current Unix time"))
                } else if let nowUnix, number > nowUnix + timestampLead {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .warning, field: "aps.timestamp",
                            message:
                                "aps.timestamp is \(Int64(saturating: number - nowUnix)) s ahead of now; a fast clock makes every later, correct push look older",
                            fix: "stamp pushes with the current Unix time from one clock"))
                } else if let nowUnix, number < nowUnix - context.maxTimestampAge {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .warning, field: "aps.timestamp",
                            message:
                                "aps.timestamp is \(Int64(saturating: nowUnix - number)) s old: the push waited in a queue and may show an outdated state",
                            fix: "re-read the state and re-stamp the push when it is sent, or drop it"))
                }
                if let last = context.lastTimestamp, number < Double(last) {
                    findings.append(
                        LintFinding(
                            trap: "DT-020", severity: .error, field: "aps.timestamp",
                            message:
                                "timestamp \(JSONInteger.text(number)) is older than \(last), the newest already sent to this token; the device drops it",
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
                if let problem = unixSecondsProblem(number) {
                    findings.append(
                        LintFinding(
                            trap: "DT-018", severity: .error, field: "aps.stale-date",
                            message: "stale-date \(describe(number)) \(problem)", fix: "send Unix seconds"))
                } else if let nowUnix, number < nowUnix {
                    findings.append(
                        LintFinding(
                            trap: "DT-021", severity: .warning, field: "aps.stale-date",
                            message: "stale-date is already in the past, so the activity shows as stale at once",
                            fix: "compute stale-date at send time as now plus the expected freshness"))
                } else if let nowUnix, number < nowUnix + 60 {
                    findings.append(
                        LintFinding(
                            trap: "DT-021", severity: .warning, field: "aps.stale-date",
                            message: "stale-date is less than a minute away, so the card turns stale almost at once",
                            fix: "compute stale-date at send time as now plus the expected freshness"))
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
            guard let number = dismissal.numberValue else {
                findings.append(
                    LintFinding(
                        trap: "DT-018", severity: .error, field: "aps.dismissal-date",
                        message: "dismissal-date is a \(dismissal.typeName), not a number",
                        fix: "send Unix seconds as a JSON integer"))
                return findings
            }
            if let problem = unixSecondsProblem(number) {
                findings.append(
                    LintFinding(
                        trap: "DT-018", severity: .error, field: "aps.dismissal-date",
                        message: "dismissal-date \(describe(number)) \(problem)",
                        fix: "send Unix seconds; to dismiss at once, send the current Unix time"))
            } else if event != "end" {
                findings.append(
                    LintFinding(
                        trap: "DT-022", severity: .warning, field: "aps.dismissal-date",
                        message: "dismissal-date only means something on end; here it is ignored",
                        fix: "send dismissal-date with the end event"))
            } else if let nowUnix, number <= nowUnix + 60, !context.immediateDismissal {
                findings.append(
                    LintFinding(
                        trap: "DT-022", severity: .warning, field: "aps.dismissal-date",
                        message:
                            "dismissal-date is now or past: the card is removed at once and its final state is never seen",
                        fix: "choose a dismissal per outcome, e.g. keep a delivered card for 15–30 minutes"))
            } else if let nowUnix, number > nowUnix + context.dismissalCeiling {
                findings.append(
                    LintFinding(
                        trap: "DT-022", severity: .warning, field: "aps.dismissal-date",
                        message:
                            "dismissal-date is more than \(Int(saturating: context.dismissalCeiling / 3600)) hours after the end; iOS clamps it, so the card leaves earlier than planned",
                        fix:
                            "keep dismissal-date within \(Int(saturating: context.dismissalCeiling / 3600)) hours of the end"
                    ))
            }
        }
        return findings
    }

    /// Why a number is not whole Unix seconds, or nil when it is.
    static func unixSecondsProblem(_ number: Double) -> String? {
        if number >= 1e11 { return "looks like milliseconds; it must be Unix seconds" }
        if number < 1e9 { return "is not a plausible Unix time (reference-date seconds?)" }
        if number != number.rounded() { return "has a fraction; it must be whole Unix seconds" }
        return nil
    }

    private static func describe(_ number: Double) -> String { JSONInteger.text(number) }

    /// A Live Activity alert: an object of `title`, `body` (strings or `loc-key` objects) and
    /// `sound`; a start needs a non-empty title and body.
    static func checkAlert(_ alert: JSONValue?, event: String?) -> [LintFinding] {
        var findings: [LintFinding] = []
        guard let alert else {
            if event == "start" {
                findings.append(
                    LintFinding(
                        trap: "DT-025", severity: .error, field: "aps.alert",
                        message: "a start without alert is accepted by APNs and never shown",
                        fix: "add \"alert\": {\"title\": …, \"body\": …} to every start"))
            }
            return findings
        }
        guard let object = alert.objectValue else {
            findings.append(
                LintFinding(
                    trap: event == "start" ? "DT-025" : "DT-023", severity: event == "start" ? .error : .warning,
                    field: "aps.alert",
                    message: "a Live Activity alert is an object with title and body, not a \(alert.typeName)",
                    fix: "send \"alert\": {\"title\": …, \"body\": …}"))
            return findings
        }
        for key in object.keys.sorted() where !knownAlertKeys.contains(key) {
            findings.append(
                LintFinding(
                    trap: "DT-023", severity: .warning, field: "aps.alert.\(key)",
                    message: "a Live Activity alert reads title, body and sound; \"\(key)\" is ignored",
                    fix: KeySuggestion.nearest(key, among: knownAlertKeys).map { "rename it to \"\($0)\"" }
                        ?? "remove it"))
        }
        if event == "start" {
            for part in ["title", "body"] where !isAlertText(object[part]) {
                findings.append(
                    LintFinding(
                        trap: "DT-025", severity: .error, field: "aps.alert.\(part)",
                        message: "the start's alert has no \(part); an incomplete alert behaves like none",
                        fix: "give the start's alert a non-empty title and body"))
            }
        }
        return findings
    }

    /// A non-empty string, or a localization object with a `loc-key`.
    private static func isAlertText(_ value: JSONValue?) -> Bool {
        if let text = value?.stringValue { return !text.trimmingCharacters(in: .whitespaces).isEmpty }
        if let key = value?["loc-key"]?.stringValue { return !key.isEmpty }
        return false
    }

    static func checkStart(_ aps: [String: JSONValue], context: Context) -> [LintFinding] {
        var findings: [LintFinding] = []
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
            let known = Set(context.contracts.keys).union(context.registeredTypes)
            if !known.isEmpty && !known.contains(typeName) {
                let hint = KeySuggestion.nearest(typeName, among: known).map { "; did you mean \"\($0)\"?" } ?? ""
                findings.append(
                    LintFinding(
                        trap: "DT-026", severity: .error, field: "aps.attributes-type",
                        message:
                            "no ActivityAttributes type named \"\(typeName)\" is registered (known: \(known.sorted().joined(separator: ", ")))\(hint)",
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

}
