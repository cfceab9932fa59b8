import DropTrackContract
import DropTrackWire
import Foundation

/// Catalog group 2: the `aps` payload and content-state (DT-013 … DT-033). The checks
/// LiveActivityLint already makes (it also serves the APNs emulator) are adopted by id; the field
/// map, the context and the history add the rest.
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

        DoctorRule("DT-027", "Static and dynamic fields mixed up in a start payload", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            r.adopt(e.lintFindings)
            guard let contract = e.stateContract, let staticFields = contract.schema.attributes else { return }
            let dynamicFields = contract.schema.contentState
            if e.isStart, let attributes = e.aps?["attributes"], attributes.objectValue != nil {
                let compiled = contract.compiled != nil
                for issue in ContractSchema.check(attributes, against: staticFields) {
                    let field = "aps.attributes.\(issue.key)"
                    switch issue.kind {
                    case .unknownKey where dynamicFields[issue.key] != nil:
                        r.error(
                            field,
                            "\"\(issue.key)\" is a ContentState field but sits under attributes, where it is never read",
                            fix: "build both parts from the contract: \"\(issue.key)\" goes in content-state")
                    case .unknownKey(let suggestion):
                        r.warning(
                            field, "the static attributes have no key \"\(issue.key)\"",
                            fix: suggestion.map { "rename it to \"\($0)\"" } ?? "remove it")
                    case .missing where !compiled:
                        r.error(
                            field,
                            "static attribute \"\(issue.key)\" is missing: the attributes do not decode and nothing starts",
                            fix: "build both parts from the contract")
                    case .wrongType(let expected, let got, _) where !compiled:
                        r.error(
                            field,
                            "static attribute \"\(issue.key)\" is a \(got) but must be \(expected): nothing starts",
                            fix: "build both parts from the contract")
                    default:
                        break
                    }
                }
            }
            if let state = e.effectiveState?.value.objectValue {
                for key in state.keys.sorted() where staticFields[key] != nil && dynamicFields[key] == nil {
                    r.add(
                        e.isStart ? .error : .warning, "\(e.effectiveState!.path).\(key)",
                        "\"\(key)\" is a static attribute but sits in content-state, where it is never read",
                        fix: "send \"\(key)\" once, under attributes in the start")
                }
            }
        },

        DoctorRule("DT-028", "A field that can change was declared static (the courierName trap)", scope: .payload) {
            e, r in
            guard e.isLiveActivity else { return }
            if e.isUpdateOrEnd, e.aps?["attributes"] != nil {
                r.warning(
                    "aps.attributes",
                    "attributes on an \(e.event ?? "update") are ignored: static attributes are fixed when the activity starts",
                    fix: "move anything that can change into the ContentState")
            }
            if e.isStart, let mutable = e.stateContract?.schema.mutableAttributes, !mutable.isEmpty {
                r.warning(
                    "aps.attributes",
                    "the contract marks \(mutable.joined(separator: ", ")) as static although the domain can change it; no push can update it later",
                    fix: "keep only true identity (like orderId) static, and move the rest into the ContentState")
            }
            if let sent = e.activity?.staticAttributes?.objectValue,
                let current = e.activity?.domainAttributes?.objectValue
            {
                for key in current.keys.sorted() where sent[key] != nil && sent[key] != current[key] {
                    r.error(
                        "activity.domainAttributes.\(key)",
                        "\"\(key)\" changed since the start, but it is a static attribute: no push can show the new value",
                        fix: "move \"\(key)\" into the ContentState (only true identity stays static)")
                }
            }
        },

        DoctorRule("DT-029", "expo-widgets content-state sent without its wrapper", scope: .payload) { e, r in
            guard e.isLiveActivity, e.isExpoWidgets else { return }
            if e.isStart, let type = e.aps?["attributes-type"]?.stringValue, type != "LiveActivityAttributes" {
                r.error(
                    "aps.attributes-type", "expo-widgets apps start \"LiveActivityAttributes\", not \"\(type)\"",
                    fix: "send \"attributes-type\": \"LiveActivityAttributes\"")
            }
            // LiveActivityAttributes decodes `url: String?` only: a mistyped url drops the start, other keys are lost.
            if e.isStart, let attributes = e.aps?["attributes"]?.objectValue {
                if let url = attributes["url"], url != .null, url.stringValue == nil {
                    r.error(
                        "aps.attributes.url", "url is a \(url.typeName); LiveActivityAttributes decodes a string",
                        fix: "send the deep link as a string, or leave url out")
                }
                for key in attributes.keys.sorted() where key != "url" {
                    r.warning(
                        "aps.attributes.\(key)",
                        "LiveActivityAttributes has no \"\(key)\": the widget never sees it",
                        fix: "move \"\(key)\" into props")
                }
            }
            guard let state = e.aps?["content-state"] else { return }
            guard let object = state.objectValue else {
                r.error(
                    "aps.content-state", "expo-widgets' content-state is {name, props}, not a \(state.typeName)",
                    fix: "wrap in the projection: {name, props: JSON.stringify(state)}")
                return
            }
            let extra = Set(object.keys).subtracting(["name", "props"])
            if !extra.isEmpty {
                r.error(
                    "aps.content-state",
                    "content-state has \(extra.sorted().joined(separator: ", ")) at the top level; expo-widgets decodes only {name, props}, so the card never updates",
                    fix: "wrap in the projection: {name, props: JSON.stringify(state)}")
            }
            let widgets = e.stateContract?.schema.expoWidgetNames ?? []
            if let name = object["name"]?.stringValue {
                if !widgets.isEmpty, !widgets.contains(name) {
                    r.error(
                        "aps.content-state.name",
                        "content-state names widget \"\(name)\"; the app registered \(widgets.map { "\"\($0)\"" }.joined(separator: ", "))",
                        fix: "send a registered widget name in \"name\"")
                }
            } else {
                r.error(
                    "aps.content-state.name", "the wrapper has no widget name",
                    fix: "send {name: <widget name>, props: …}")
            }
            switch object["props"] {
            case .string(let text):
                if (try? JSONValue.parse(text))?.objectValue == nil {
                    r.error(
                        "aps.content-state.props", "props is not a JSON object in a string",
                        fix: "send props as JSON.stringify(state)")
                }
            case nil:
                r.error(
                    "aps.content-state.props", "the wrapper has no props", fix: "send props as JSON.stringify(state)")
            case .some(let other):
                r.error(
                    "aps.content-state.props",
                    "props is a \(other.typeName); expo-widgets reads a string holding JSON",
                    fix: "send props as JSON.stringify(state)")
            }
        },

        DoctorRule("DT-030", "Contract version skew between the server and installed app builds", scope: .payload) {
            e, r in
            guard e.isLiveActivity, let built = e.token?.contractVersion, let schema = e.stateContract?.schema,
                let version = schema.version
            else { return }
            let compatible = Set([version] + (schema.compatibleVersions ?? []))
            if !compatible.contains(built) {
                r.error(
                    "token.contractVersion",
                    "the app build behind this token has contract version \(built); this payload follows version \(version), which that build may not decode",
                    fix: "keep one projection per contract version and send each token the version its build reported")
            }
        },

        DoctorRule("DT-031", "Values outside the declared range or length", scope: .payload) { e, r in
            guard e.isLiveActivity else { return }
            for (issues, path) in contractIssues(e) {
                for issue in issues {
                    switch issue.kind {
                    case .outOfRange(let bound):
                        r.warning(
                            "\(path).\(issue.key)",
                            "\"\(issue.key)\" must be \(bound); the layout over-fills or misdraws",
                            fix: "clamp values in the projection")
                    case .tooLong(let length, let limit):
                        r.warning(
                            "\(path).\(issue.key)",
                            "\"\(issue.key)\" has \(length) characters; the layout shows \(limit)",
                            fix: "keep display strings short, or shorten them in the projection")
                    default:
                        break
                    }
                }
            }
        },

        DoctorRule("DT-032", "iOS 18 start and channel fields used on the wrong OS or path", scope: .payload) { e, r in
            guard e.isLiveActivity, let aps = e.aps else { return }
            r.adopt(e.lintFindings)
            if !e.isStart {
                for key in ["input-push-token", "input-push-channel"] where aps[key] != nil {
                    r.warning(
                        "aps.\(key)", "\(key) only means something on a start", fix: "send \(key) with the start only")
                }
                return
            }
            if let version = e.osMajorMinor {
                if version.major < 17 || (version.major == 17 && version.minor < 2) {
                    r.error(
                        "aps.event", "push-to-start needs iOS 17.2; this device reports \(e.device?.osVersion ?? "")",
                        fix: "start the activity in the app on older systems")
                } else if version.major < 18, aps["input-push-channel"] != nil {
                    r.error(
                        "aps.input-push-channel",
                        "input-push-channel needs iOS 18; on \(e.device?.osVersion ?? "") the activity does not start",
                        fix: "branch start payloads on the OS version reported with the push-to-start token")
                } else if version.major >= 18, aps["input-push-channel"] == nil,
                    aps["input-push-token"]?.numberValue != 1
                {
                    r.warning(
                        "aps.input-push-token",
                        "an iOS 18 start without input-push-token: 1 may never issue an update token, so the activity cannot be updated",
                        fix: "send \"input-push-token\": 1 with every iOS 18 start that has no channel")
                }
            }
            if let value = aps["input-push-token"], value.numberValue != 1 {
                r.warning(
                    "aps.input-push-token", "input-push-token must be the number 1", fix: "send \"input-push-token\": 1"
                )
            }
        },

        DoctorRule("DT-033", "An alert (sound, banner) on every update", scope: .payload) { e, r in
            guard e.isLiveActivity, e.isUpdateOrEnd, e.aps?["alert"] != nil, e.activity?.significant != true,
                let last = e.history?.lastAlertAt, let now = e.now, now - Double(last) < 600
            else { return }
            r.warning(
                "aps.alert",
                "this \(e.event ?? "update") alerts again \(Int(now - Double(last))) s after the last alert; users turn Live Activities off when every tick buzzes",
                fix: "send alerts only for transitions the user must notice")
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
