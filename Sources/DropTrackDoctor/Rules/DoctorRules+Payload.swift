import DropTrackContract
import DropTrackWire
import Foundation

/// Catalog group 2: the `aps` payload and content-state (DT-013 … DT-026; DT-027 … DT-033 are in
/// DoctorRules+PayloadContract.swift). The checks LiveActivityLint already makes (it also serves the APNs
/// emulator) are adopted by id; the field map, the context and the history add the rest.
extension Doctor {
    static let payloadRules: [DoctorRule] = [
        DoctorRule("DT-013", "content-state keys or types don't match the app's ContentState", scope: .payload) {
            e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
            guard let contract = e.stateContract, let state = e.effectiveState else { return }
            let type = contract.attributesType ?? "the app"
            let compiled = e.stateDecodedByCompiledContract
            if state.value.objectValue == nil {
                if !compiled {
                    r.error(
                        state.path,
                        "content-state is a \(state.value.typeName); \(type).ContentState decodes an object",
                        fix: "send the ContentState's fields as a JSON object")
                }
                return
            }
            let staticKeys = Set(contract.schema.attributes.map { Array($0.keys) } ?? [])
            let partial = isPartial(e.stateIssues)
            for issue in e.stateIssues {
                let field = "\(state.path).\(issue.key)"
                switch issue.kind {
                case .unknownKey(let suggestion) where !staticKeys.contains(issue.key):
                    r.warning(
                        field,
                        "\(type).ContentState has no key \"\(issue.key)\"; it is ignored\(suggestion.map { " (did you mean \"\($0)\"? a rename breaks decoding)" } ?? "")",
                        fix: suggestion.map { "rename it to \"\($0)\"" }
                            ?? "remove it, or add it to the ContentState first")
                case .missing where !compiled && !partial:
                    r.error(
                        field,
                        "required key \"\(issue.key)\" is missing: the device cannot decode \(type).ContentState and drops the update",
                        fix: "send exactly the ContentState's keys and JSON types")
                case .wrongType(let expected, let got, let quoted) where !compiled && !quoted:
                    r.error(
                        field, "\"\(issue.key)\" is a \(got) but must be \(expected): the device drops the update",
                        fix: "send exactly the ContentState's keys and JSON types")
                case .notExactlyOne(let members, let found) where !compiled:
                    r.error(
                        issue.key.isEmpty ? state.path : field,
                        "exactly one of \(members.joined(separator: ", ")) must be set; found \(found.isEmpty ? "none" : found.joined(separator: ", "))",
                        fix: "fill the one member the state calls for and leave the others out")
                default:
                    break
                }
            }
        },

        DoctorRule("DT-014", "Partial (delta) content-state", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
            guard let state = e.effectiveState, let object = state.value.objectValue else { return }
            if e.stateContract != nil, isPartial(e.stateIssues) {
                let missing = e.stateIssues.filter { $0.kind == .missing }.map(\.key)
                r.error(
                    state.path,
                    "content-state leaves out \(missing.map { "\"\($0)\"" }.joined(separator: ", ")): nothing is merged on the device, so the update is dropped",
                    fix: "recompute the full state from the domain record at send time")
            } else if let last = e.activity?.lastSent,
                let previous = (last["aps"] ?? last)["content-state"]?.objectValue,
                Set(object.keys).isStrictSubset(of: Set(previous.keys))
            {
                r.error(
                    state.path,
                    "content-state carries fewer keys than the last one sent: it looks like a diff, and diffs are not merged",
                    fix: "recompute the full state from the domain record at send time")
            }
        },

        DoctorRule("DT-015", "Enum value unknown to the installed app build", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            for (issues, path) in contractIssues(e) {
                for issue in issues {
                    guard case .unknownCase(let allowed) = issue.kind else { continue }
                    r.error(
                        "\(path).\(issue.key)",
                        "\"\(issue.key)\" holds a value the app build does not know (it knows \(allowed.joined(separator: ", "))): the whole update is dropped",
                        fix: "ship new cases in the app first, and gate new values on the build's contract version")
                }
            }
        },

        DoctorRule("DT-016", "Numbers or booleans sent as strings (the Android map reused for iOS)", scope: .payload) {
            e, r in
            guard e.isLiveActivity, let state = e.effectiveState, let object = state.value.objectValue else { return }
            var reported = false
            for issue in e.stateIssues {
                guard case .wrongType(let expected, _, true) = issue.kind else { continue }
                reported = true
                r.error(
                    "\(state.path).\(issue.key)",
                    "\"\(issue.key)\" is a string but must be \(expected): string-typed values (FCM's data map) do not decode on iOS",
                    fix: "build the iOS content-state from the typed domain state, not from the Android data map")
            }
            guard !reported, e.stateContract == nil, object.count >= 2,
                object.values.allSatisfy({ $0.stringValue != nil })
            else { return }
            let quoted = object.values.contains { value in
                let text = value.stringValue ?? ""
                return Double(text) != nil || text == "true" || text == "false"
            }
            if quoted {
                r.error(
                    state.path,
                    "every content-state value is a string, numbers and booleans included: this looks like the Android data map, which ActivityKit cannot decode",
                    fix: "build separate iOS and Android projections from one typed domain state")
            }
        },

        DoctorRule("DT-017", "Dates in content-state or attributes not in Apple reference seconds", scope: .payload) {
            e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
            // A compiled contract reports its dates only when the whole state decodes; otherwise
            // the field map still can.
            let decodeFailed = e.lintFindings.contains { $0.trap == "DT-013" || $0.trap == "DT-027" }
            guard !e.stateDecodedByCompiledContract || decodeFailed else { return }
            for (issues, path) in contractIssues(e) {
                for issue in issues {
                    guard case .badDate(let problem) = issue.kind else { continue }
                    r.error(
                        "\(path).\(issue.key)", "\"\(issue.key)\" \(problem)",
                        fix: "convert in the projection: floor(unixMillis / 1000) − 978307200")
                }
            }
        },

        DoctorRule("DT-018", "timestamp, stale-date, dismissal-date not valid Unix seconds", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule("DT-019", "aps.timestamp missing, or placed only inside content-state", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule("DT-020", "Update older than the last one applied", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule("DT-021", "stale-date already in the past", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule("DT-022", "dismissal-date misused on end (the final state is never seen)", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule("DT-023", "Misspelled or misplaced keys inside aps", scope: .payload) { e, r in
            guard e.isAPNs, e.isDeviceRoute || e.isBroadcast || e.embedded else { return }
            switch e.parsedBody {
            case nil:
                r.error("body", "the body is empty; APNs answers 400 PayloadEmpty", fix: "send {\"aps\": {…}}")
            case .failure(let error):
                r.error(
                    "body", "the body is not JSON (\(error)); nothing reaches the device", fix: "send a JSON object")
            case .success(let value) where value.objectValue == nil:
                r.error("body", "the body is a JSON \(value.typeName), not an object", fix: "send {\"aps\": {…}}")
            case .success:
                if e.isLiveActivity {
                    r.adopt(e.lintFindings)
                } else if e.aps == nil {
                    r.error("aps", "the payload has no \"aps\" object", fix: "wrap the notification in {\"aps\": {…}}")
                }
            }
        },

        DoctorRule("DT-024", "Payload over the size limit", scope: .payload) { e, r in
            guard e.isAPNs else { return }
            r.adopt(e.requestErrors)
            let limit = e.isBroadcast ? APNsLimits.broadcastPayloadBytes : APNsLimits.devicePayloadBytes
            let size = e.push.body.count
            if !e.embedded, size <= limit, size * 5 >= limit * 4, e.isDeviceRoute || e.isBroadcast {
                r.warning(
                    "body",
                    "the body is \(size) bytes, over 80% of the \(limit)-byte limit; a longer string will push it over",
                    fix: "trim fields, keep static identity in attributes, and never embed images")
            }
            if e.isStart, let aps = e.aps {
                let combined =
                    (aps["attributes"]?.serialized().count ?? 0) + (aps["content-state"]?.serialized().count ?? 0)
                if combined > 4096 {
                    r.error(
                        "aps.attributes",
                        "attributes plus content-state are \(combined) bytes; ActivityKit limits them to 4 KB together and the start fails",
                        fix: "trim fields, keep static identity in attributes, and never embed images")
                }
            }
        },

        DoctorRule("DT-025", "Push-to-start without an alert", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },

        DoctorRule(
            "DT-026", "Push-to-start without attributes-type/attributes, or with the wrong type name", scope: .payload
        ) {
            e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
        },
    ]

    /// Required keys are missing and nothing unknown is there: a subset, as a diff would be.
    static func isPartial(_ issues: [SchemaIssue]) -> Bool {
        // Only top-level keys: a nested object missing a member is one the device cannot decode.
        let missing = issues.contains { $0.kind == .missing && !$0.key.contains(".") && !$0.key.contains("[") }
        let unknown = issues.contains { if case .unknownKey = $0.kind { true } else { false } }
        return missing && !unknown
    }

    /// The field-map issues of the content-state and (on a start) the attributes, with their paths.
    static func contractIssues(_ e: Examination) -> [(issues: [SchemaIssue], path: String)] {
        var all: [(issues: [SchemaIssue], path: String)] = []
        if let state = e.effectiveState { all.append((e.stateIssues, state.path)) }
        if e.isStart, let attributes = e.aps?["attributes"], let fields = e.stateContract?.schema.attributes {
            all.append((ContractSchema.check(attributes, against: fields), "aps.attributes"))
        }
        return all
    }
}
