import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 2, continued (DT-027 … DT-033): what the app's contract declares (static and changing
/// fields, expo-widgets' wrapper, versions, ranges), and the fields and alerts that depend on the OS or the event.
extension Doctor {
    static let contractPayloadRules: [DoctorRule] = [
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
            stepProblem(e, &r)
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
                "this \(e.event ?? "update") alerts again \(Int(saturating: now - Double(last))) s after the last alert; users turn Live Activities off when every tick buzzes",
                fix: "send alerts only for transitions the user must notice")
        },
    ]
}

extension Doctor {
    /// N of M in the delivery contract: `step` beyond `stepCount`, or given without it, is in range
    /// field by field but misdraws the bar (the field ranges themselves are the schema's to report).
    static func stepProblem(_ e: Examination, _ r: inout DoctorReport) {
        guard e.stateContract?.attributesType == DeliveryAttributes.typeName, let state = e.effectiveState else {
            return
        }
        func count(_ key: String) -> Int? {
            state.value[key]?.numberValue.flatMap { Int(exactly: $0) }
        }
        let stepCount = count("stepCount")
        guard stepCount.map({ (1...DeliveryWidgetLogic.maximumStepCount).contains($0) }) ?? true,
            let step = count("step"), step >= 0,
            let problem = DeliveryWidgetLogic.stepProblem(step: step, stepCount: stepCount)
        else { return }
        r.warning(
            "\(state.path).\(problem.key)", problem.message,
            fix: "send 'step' from 0 to 'stepCount', and 'stepCount' with it")
    }
}
