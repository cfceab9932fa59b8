import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation

/// One push being examined: the request taken apart once, leniently, with the shared analyses
/// (LiveActivityLint, `validate()`, the contract check) computed on first use so each rule reads
/// them without redoing the work.
final class Examination {
    let push: DoctorPush
    let context: DoctorContext
    /// True for the APNs payload inside an FCM message (only payload rules run on it).
    let embedded: Bool

    init(push: DoctorPush, context: DoctorContext, embedded: Bool = false) {
        self.push = push
        self.context = context
        self.embedded = embedded
    }

    var isAPNs: Bool { push.provider == .apns }
    var isFCM: Bool { push.provider == .fcm }
    var now: Double? { context.now.map(Double.init) }
    var token: DoctorContext.Token? { context.token }
    var device: DoctorContext.Device? { context.device }
    var activity: DoctorContext.Activity? { context.activity }
    var history: DoctorContext.History? { context.history }
    var config: DoctorContext.Configuration? { context.config }
    var response: DoctorContext.Response? { context.response }

    /// Values of every header with this name (lowercase), in order.
    func headers(_ name: String) -> [String] { push.headers.filter { $0.name.lowercased() == name }.map(\.value) }
    /// The first header with this name (lowercase).
    func header(_ name: String) -> String? { push.header(name) }

    // MARK: The body

    lazy var parsedBody: Result<JSONValue, JSONSyntaxError>? = {
        guard !push.body.isEmpty else { return nil }
        do throws(JSONSyntaxError) {
            return .success(try JSONValue.parse(bytes: push.body))
        } catch {
            return .failure(error)
        }
    }()

    var json: JSONValue? { if case .success(let value) = parsedBody { value } else { nil } }

    // MARK: APNs request

    /// What an APNs path addresses.
    enum Route: Equatable {
        case device(token: String)
        case broadcast(bundle: String)
        case channels(bundle: String, extra: String?)
        case allChannels(bundle: String)
        /// No path was given (a pasted header-and-body dump): taken as a device push to an unknown token.
        case unspecified
        case unknown
    }

    lazy var route: Route = {
        let path = push.path
        if path.isEmpty { return .unspecified }
        if path.hasPrefix("/3/device/") || path == "/3/device" {
            return .device(token: String(path.dropFirst(min(path.count, "/3/device/".count))))
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", !parts[4].isEmpty {
            return .broadcast(bundle: parts[4])
        }
        if parts.count >= 5, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty {
            if parts[4] == "channels" {
                return .channels(bundle: parts[3], extra: parts.count > 5 ? parts[5...].joined(separator: "/") : nil)
            }
            if parts[4] == "all-channels" && parts.count == 5 { return .allChannels(bundle: parts[3]) }
        }
        return .unknown
    }()

    var deviceToken: String? { if case .device(let token) = route { token } else { nil } }
    var isDeviceRoute: Bool { deviceToken != nil || route == .unspecified }
    var isBroadcast: Bool { if case .broadcast = route { true } else { false } }
    var isChannelManagement: Bool {
        switch route {
        case .channels, .allChannels: true
        default: false
        }
    }

    var pushType: String? { header("apns-push-type") }
    var topic: String? { header("apns-topic") }

    /// `apns-priority` as a number; absent means 10 to APNs.
    var priority: Int? { header("apns-priority").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
    var effectivePriority: Int { header("apns-priority") == nil ? 10 : (priority ?? 10) }

    /// `aps`, when the body has one.
    var aps: [String: JSONValue]? { json?["aps"]?.objectValue }
    /// start, update or end (APNs `aps.event`, or FCM `data.event`).
    var event: String? { isAPNs ? aps?["event"]?.stringValue : fcmData?["event"]?.stringValue }
    var isStart: Bool { event == "start" }
    var isUpdateOrEnd: Bool { event == "update" || event == "end" }

    /// The push drives a Live Activity: the push type says so, or the payload or the topic has its shape.
    /// A wrong push type (`liveActivity`, `alert`) is DT-004's finding, but a payload shaped as a Live
    /// Activity is still examined as one, so the request-level error does not hide the payload's own.
    var isLiveActivity: Bool {
        if embedded { return true }
        guard isAPNs, !isChannelManagement else { return false }
        let payloadIsLiveActivity = aps?["event"] != nil || aps?["content-state"] != nil
        if let pushType { return pushType == "liveactivity" || payloadIsLiveActivity }
        return payloadIsLiveActivity || topic?.hasSuffix(APNsLimits.liveActivityTopicSuffix) == true || isBroadcast
    }

    /// The push is meant for an activity, whatever its type says.
    var addressedToActivity: Bool {
        isLiveActivity || token?.kind == .perActivity || token?.kind == .pushToStart || activity != nil
    }

    /// The environment of the APNs host: the configuration's, else Apple's host name.
    var endpointEnvironment: APNsEnvironment? { config?.environment ?? push.hostEnvironment }

    /// The bundle id the push is for: configured, else the topic's, else the broadcast path's.
    var bundleID: String? {
        if let configured = config?.bundleId, !configured.isEmpty { return configured }
        switch route {
        case .broadcast(let bundle), .channels(let bundle, _), .allChannels(let bundle): return bundle
        default: break
        }
        guard let topic, !topic.isEmpty else { return nil }
        return topic.hasSuffix(APNsLimits.liveActivityTopicSuffix)
            ? String(topic.dropLast(APNsLimits.liveActivityTopicSuffix.count)) : topic
    }

    /// The OS major version, when the device reported one.
    var osMajorMinor: (major: Int, minor: Int)? { device?.osMajorMinor }
    var isIOS18OrLater: Bool { (osMajorMinor?.major ?? 0) >= 18 }

    /// What `APNsPush.validate()` finds, each mapped to its trap.
    lazy var requestErrors: [LintFinding] = {
        guard isAPNs, !embedded else { return [] }
        var push: APNsPush
        switch route {
        case .device, .unspecified:
            // Without a path the token is unknown: a placeholder stands in, and its check is dropped below.
            push = APNsPush(
                deviceToken: deviceToken ?? "00", bundleID: "", payload: self.push.body, priority: priority ?? 10)
            push.topic = topic ?? ""
        case .broadcast(let bundle):
            guard let channel = header("apns-channel-id") else { return [] }
            push = APNsPush(channelID: channel, bundleID: bundle, payload: self.push.body, priority: priority ?? 10)
        default:
            return []
        }
        push.expiration = header("apns-expiration").flatMap { Int64($0) }
        push.apnsID = header("apns-id")
        push.collapseID = header("apns-collapse-id")
        return push.validationErrors().compactMap { error -> LintFinding? in
            let trap: String
            switch error.code {
            case .badDeviceToken:
                guard deviceToken != nil else { return nil }
                trap = "DT-034"
            case .badTopic:
                // The suffix rule is for Live Activity pushes; an empty topic is a missing one.
                guard isLiveActivity else { return nil }
                let topic = self.topic ?? ""
                trap = topic.isEmpty || topic == APNsLimits.liveActivityTopicSuffix ? "DT-003" : "DT-001"
            case .payloadTooLarge: trap = "DT-024"
            case .badPriority: trap = "DT-006"
            case .badCollapseID, .badMessageID: trap = "DT-009"
            case .badExpiration: trap = "DT-007"
            case .badChannelID: trap = "DT-010"
            default: trap = "DT-026"
            }
            return LintFinding(
                trap: trap, severity: .error,
                field: ["token": "path", "payload": "body"][error.field] ?? error.field,
                message: error.message, fix: Examination.fixes[trap] ?? "fix the request before sending it")
        }
    }()

    static let fixes: [String: String] = [
        "DT-001": "build the topic in one place as <bundle id>.push-type.liveactivity",
        "DT-003": "refuse to start without a bundle id, and set apns-topic on every device push",
        "DT-006": "take the priority from a fixed table: 5 or 10 (broadcasts also 1)",
        "DT-007": "send apns-expiration as whole Unix seconds, or 0 to try once",
        "DT-009": "generate apns-id in one place as a lowercase UUID, and keep apns-collapse-id within 64 bytes",
        "DT-010": "store channel ids verbatim and send them in apns-channel-id",
        "DT-024": "trim the content-state and attributes; never embed images",
        "DT-034": "hex-encode the token's raw bytes (%02x) and never length-check against 64",
    ]

    // MARK: Contracts

    /// Every contract the context names, by attributes type.
    lazy var contractsByType: [String: DoctorContract] = {
        var all = context.contracts ?? [:]
        if let contract = context.contract, let name = contract.attributesType ?? token?.attributesType {
            all[name] = all[name] ?? contract
        }
        // expo-widgets starts every widget as LiveActivityAttributes, whatever its contract is called.
        if all[Self.expoWidgetsType] == nil {
            all[Self.expoWidgetsType] =
                context.contract?.schema.isExpoWidgets == true
                ? context.contract : all.sorted { $0.key < $1.key }.first { $0.value.schema.isExpoWidgets }?.value
        }
        return all
    }()

    /// The ActivityKit type every expo-widgets widget is.
    static let expoWidgetsType = "LiveActivityAttributes"

    /// The name iOS matches for a contract: LiveActivityAttributes for an expo-widgets one.
    func activityKitType(_ name: String) -> String {
        context.contracts?[name]?.schema.isExpoWidgets == true ? Self.expoWidgetsType : name
    }

    /// The client renders with expo-widgets (said by the context or by the contract).
    var isExpoWidgets: Bool { context.client == .expoWidgets || stateContract?.schema.isExpoWidgets == true }

    /// The contract the content-state must fit: the start's type, or the activity's.
    lazy var stateContract: DoctorContract? = {
        if isStart, let name = aps?["attributes-type"]?.stringValue, !contractsByType.isEmpty {
            // A start of a type nobody registered is DT-026's; its state fits no known contract.
            return contractsByType[name]
        }
        if let contract = context.contract { return contract }
        if let name = token?.attributesType, let contract = contractsByType[name] { return contract }
        return nil
    }()

    /// The content-state the app's own fields live in: the object itself, or for expo-widgets the
    /// parsed `props`.
    lazy var effectiveState: (value: JSONValue, path: String)? = {
        guard let state = aps?["content-state"] else { return nil }
        if isExpoWidgets {
            guard let props = state["props"]?.stringValue, let parsed = try? JSONValue.parse(props) else { return nil }
            return (parsed, "aps.content-state.props")
        }
        return (state, "aps.content-state")
    }()

    /// Where the content-state misses the contract's field map.
    lazy var stateIssues: [SchemaIssue] = {
        guard let schema = stateContract?.schema, let state = effectiveState else { return [] }
        return ContractSchema.check(state.value, against: schema.contentState, oneOf: schema.oneOf)
    }()

    /// The compiled contract decodes the content-state itself (so the field map only adds to it).
    var stateDecodedByCompiledContract: Bool { stateContract?.compiled != nil && !isExpoWidgets }

    // MARK: LiveActivityLint

    /// LiveActivityLint's findings for the payload, with what the context knows.
    lazy var lintFindings: [LintFinding] = {
        guard isLiveActivity, let json else { return [] }
        var compiled: [String: LiveActivityContract] = [:]
        for (name, contract) in contractsByType { if let code = contract.compiled { compiled[name] = code } }
        var registered = Set(contractsByType.keys)
        if isExpoWidgets { registered.insert("LiveActivityAttributes") }
        let last = [activity?.lastTimestampSent, activity?.lastLocalTimestamp].compactMap { $0 }.max()
        let lintContext = LiveActivityLint.Context(
            now: context.now.map { Date(timeIntervalSince1970: TimeInterval($0)) }, lastTimestamp: last,
            contract: isExpoWidgets ? nil : stateContract?.compiled, contracts: isExpoWidgets ? [:] : compiled,
            activityEnded: activity?.isOver ?? false, broadcast: isBroadcast, registeredTypes: registered,
            maxTimestampAge: config?.maxTimestampAgeSeconds ?? 3600,
            immediateDismissal: activity?.immediateDismissal ?? false,
            dismissalCeiling: isIOS18OrLater ? 8 * 3600 : 4 * 3600)
        return LiveActivityLint.check(json, context: lintContext)
    }()

    // MARK: FCM

    /// `message`, when the body has one.
    var message: [String: JSONValue]? { isFCM ? json?["message"]?.objectValue : nil }
    var android: [String: JSONValue]? { message?["android"]?.objectValue }

    /// The data the Android app receives: `message.data` with `android.data` laid over it.
    var fcmData: [String: JSONValue]? {
        let base = message?["data"]?.objectValue
        let override = android?["data"]?.objectValue
        guard base != nil || override != nil else { return nil }
        return (base ?? [:]).merging(override ?? [:]) { _, new in new }
    }

    /// The message as `FCMMessage`, for its `validationErrors()`: string data values only (the
    /// others are DT-089's), sized with their JSON text so the size check still counts them.
    lazy var fcmRequestErrors: [LintFinding] = {
        guard let message else { return [] }
        let target: FCMMessage.Target
        if let token = message["token"]?.stringValue {
            target = .token(token)
        } else if let topic = message["topic"]?.stringValue {
            target = .topic(topic)
        } else if let condition = message["condition"]?.stringValue {
            target = .condition(condition)
        } else {
            target = .token("")
        }
        var data: [String: String] = [:]
        for (key, value) in fcmData ?? [:] {
            data[key] = value.stringValue ?? String(decoding: value.serialized(), as: UTF8.self)
        }
        let ttl = android?["ttl"].flatMap(Examination.seconds(fromDuration:))
        let fcm = FCMMessage(target: target, data: data, ttl: ttl)
        return fcm.validationErrors().map { error in
            let trap: String
            if error.field == "message.data" {
                trap = "DT-098"
            } else if error.field.hasPrefix("message.data.") {
                trap = "DT-093"
            } else if error.field == "message.android.ttl" {
                trap = "DT-096"
            } else {
                trap = "DT-102"
            }
            return LintFinding(
                trap: trap, severity: .error, field: error.field, message: error.message,
                fix: Examination.fcmFixes[trap] ?? "fix the message before sending it")
        }
    }()

    static let fcmFixes: [String: String] = [
        "DT-093": "give app keys a prefix that FCM does not reserve",
        "DT-096": "set android.ttl per event type, within 0 to 28 days",
        "DT-098": "trim the data map: keys and values both count",
        "DT-102": "send to the app's current registration token, taken from onNewToken",
    ]

    /// A protobuf Duration (`"30s"`, `"1.5s"`) or a plain number of seconds.
    static func seconds(fromDuration value: JSONValue) -> Double? {
        if let number = value.numberValue { return number }
        guard let text = value.stringValue, text.hasSuffix("s"), let seconds = Double(text.dropLast()),
            seconds.isFinite
        else { return nil }
        return seconds
    }

    /// The project id in `/v1/projects/<id>/messages:send`.
    var urlProject: String? {
        let parts = push.path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "v1", parts[1] == "projects", parts[2] != "-" else { return nil }
        return parts[2]
    }

    /// The APNs request inside an FCM message that carries a Live Activity, for the payload rules.
    var embeddedLiveActivity: DoctorPush? {
        guard !embedded, let apns = message?["apns"]?.objectValue, apns["live_activity_token"] != nil,
            let payload = apns["payload"]
        else { return nil }
        let headers = (apns["headers"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.compactMap { name, value in
            value.stringValue.map { (name: name, value: $0) }
        }
        return DoctorPush(provider: .apns, path: "/3/device/", headers: headers, body: payload.serialized())
    }

    // MARK: Helpers for rules

    /// The path with anything token-like (32 or more hex digits, or any segment of 40 characters or
    /// more) replaced by its fingerprint, so a finding never prints a device token.
    var safePath: String {
        push.path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let hexDigits = segment.filter { $0.isHexDigit }.count
            guard segment.count >= 40 || (segment.count >= 32 && hexDigits == segment.count) else {
                return String(segment)
            }
            return "<token \(Fingerprint(of: String(segment)))>"
        }.joined(separator: "/")
    }
}
