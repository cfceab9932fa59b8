import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

/// `POST /v1/push`: one raw send for debugging, outside any activity. It lints an APNs payload for
/// the silent-failure traps first (the "APNs said 200 and the phone shows nothing" cases), sends
/// it through the app's own credentials, and answers with the provider's status, reason and
/// remedy. Nothing is stored and no token is changed.
struct RawPush: Sendable {
    let configuration: ServerConfiguration
    let transport: any PushTransport
    let clock: any WallClock
    /// How long a send may take before the answer says so.
    var timeout: Duration = .seconds(30)

    init(configuration: ServerConfiguration, transport: any PushTransport, clock: any WallClock) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
    }

    func send(app appID: String, body: JSONValue) throws(APIError) -> JSONValue {
        guard let app = configuration.apps.first(where: { $0.id == appID }) else {
            throw APIError.notFound("no app \(appID)")
        }
        let reader = try RequestFields(body)
        let provider = try reader.string("provider", what: "\"apns\" or \"fcm\"") ?? ""
        switch provider {
        case "apns": return try sendAPNs(app: app, reader: reader)
        case "fcm": return try sendFCM(app: app, reader: reader)
        default: throw APIError.invalid("provider", "'provider' is \"apns\" or \"fcm\", not '\(provider)'")
        }
    }

    private func sendAPNs(app: AppConfiguration, reader: RequestFields) throws(APIError) -> JSONValue {
        try reader.refuseUnknown(["provider", "token", "environment", "payload", "priority"])
        guard let bundle = app.bundleId, app.apns != nil else {
            throw APIError(
                422, .noCredentials, "app \(app.id) has no APNs credentials; add apns and bundleId to its config",
                field: "provider")
        }
        let token = (try reader.string("token", maxLength: 4096) ?? "").lowercased()
        guard APNsPush.isHexToken(token) else {
            throw APIError.invalid("token", "'token' must be the hex of the ActivityKit token bytes")
        }
        let environmentName = try reader.string("environment", required: false) ?? app.apns?.environment ?? "sandbox"
        guard let environment = APNsEnvironment(rawValue: environmentName) else {
            throw APIError.invalid("environment", "'environment' must be \"sandbox\" or \"production\"")
        }
        guard let payload = try reader.object("payload", required: true) else {
            throw APIError.missing("payload", "the APNs JSON, {\"aps\": {…}}")
        }
        let priority = Int(try reader.integer("priority") ?? 10)
        guard priority == 5 || priority == 10 else {
            throw APIError.invalid("priority", "'priority' is 5 or 10 for a Live Activity push")
        }
        var push = APNsPush(
            deviceToken: token, bundleID: bundle, payload: payload.serialized(), priority: priority,
            tokenEnvironment: environment)
        push.apnsID = UUID().uuidString.lowercased()
        do {
            try push.validate()
        } catch {
            throw APIError(422, .invalidPush, error.message, field: Self.requestField(error.field))
        }
        let findings = LiveActivityLint.check(payload, context: .init(now: clock.now()))
        var answer = wait { transport.send(app: app.id, apns: push, completion: $0) }
        answer["destination"] = .string(Fingerprint(of: token).value)
        answer["apnsId"] = .string(push.apnsID ?? "")
        answer["lint"] = .array(findings.map(Self.findingJSON))
        return .object(answer)
    }

    private func sendFCM(app: AppConfiguration, reader: RequestFields) throws(APIError) -> JSONValue {
        try reader.refuseUnknown(["provider", "token", "data", "priority", "ttlSeconds", "collapseKey"])
        guard app.fcm != nil else {
            throw APIError(
                422, .noCredentials, "app \(app.id) has no FCM service account; add fcm to its config",
                field: "provider")
        }
        let token = try reader.string("token", maxLength: 4096) ?? ""
        guard FCMMessage.isPlausibleToken(token) else {
            throw APIError.invalid("token", "'token' must be an FCM registration token (printable ASCII, no spaces)")
        }
        var data: [String: String] = [:]
        for (key, value) in (try reader.object("data", required: true))?.objectValue ?? [:] {
            guard let text = value.stringValue else {
                throw APIError.invalid(
                    "data.\(key)",
                    "FCM data values are strings only; send '\(key)' as a string, not a \(value.typeName)")
            }
            data[key] = text
        }
        let priorityName = try reader.string("priority", required: false) ?? "high"
        guard let priority = FCMMessage.Priority(rawValue: priorityName) else {
            throw APIError.invalid("priority", "'priority' is \"high\" or \"normal\"")
        }
        let ttl = try reader.number("ttlSeconds") ?? configuration.fcmTTLSeconds
        guard ttl >= 0, ttl <= 2_419_200 else {
            throw APIError.invalid("ttlSeconds", "'ttlSeconds' is 0 to 2419200 (FCM's 28 days)")
        }
        let message = FCMMessage(
            target: .token(token), data: data, priority: priority, ttl: ttl,
            collapseKey: try reader.string("collapseKey", required: false))
        do {
            try message.validate()
        } catch {
            throw APIError(422, .invalidPush, error.message, field: Self.requestField(error.field))
        }
        var answer = wait { transport.send(app: app.id, fcm: message, completion: $0) }
        answer["destination"] = .string(Fingerprint(of: token).value)
        return .object(answer)
    }

    /// Runs one send and waits for its outcome (bounded by `timeout`).
    private func wait(_ start: (@escaping @Sendable (SendResult) -> Void) -> Void) -> [String: JSONValue] {
        let seconds = Double(timeout.components.seconds)
        guard let result = waitForCallback(timeout: timeout, start) else {
            return [
                "status": .number(0), "reason": .string("timeout"), "remedy": .string("retry"),
                "explanation": .string("no answer from the provider within \(Int(saturating: seconds)) s"),
            ]
        }
        let latency = Double(result.latency.components.seconds) + Double(result.latency.components.attoseconds) / 1e18
        return [
            "status": .number(Double(result.status)), "reason": .string(result.reason),
            "remedy": .string(result.remedy.name), "explanation": .string(result.explanation),
            "latencyMs": .number((latency * 10_000).rounded() / 10),
        ]
    }

    /// Wire field names (`aps.alert`, `apns-priority`) as the request's own fields.
    static func requestField(_ wire: String) -> String {
        switch wire {
        case "apns-priority": "priority"
        case "device-token", "token": "token"
        default:
            if wire.hasPrefix("aps") {
                "payload." + wire
            } else if wire.hasPrefix("message.") {
                String(wire.dropFirst("message.".count))
            } else {
                wire
            }
        }
    }

    static func findingJSON(_ finding: LintFinding) -> JSONValue {
        .object([
            "trap": .string(finding.trap), "severity": .string(finding.severity.rawValue),
            "field": finding.field.map { .string($0) } ?? .null, "message": .string(finding.message),
            "fix": .string(finding.fix),
        ])
    }
}
