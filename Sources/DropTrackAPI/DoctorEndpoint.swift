import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackDoctor
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

/// `POST /v1/doctor`: the silent-failure doctor over HTTP. The push comes as pasted text (an
/// HTTP-style dump or a curl line), or as parts (`apns: {path, headers, payload}` or
/// `fcm: {message}`); `context` is the doctor's context document; with `activityId`, what the
/// server knows (the app's configuration and contracts, the activity's state and last timestamp,
/// the priority-10 sends of the last hour, the token's record) fills what the caller left out.
struct DoctorEndpoint: Sendable {
    let registry: ActivityRegistry
    let configuration: ServerConfiguration
    let clock: any WallClock
    /// Knows how far the providers' clocks (their Date headers) are from this machine's.
    let transport: any PushTransport

    func examine(app appID: String, body: JSONValue) throws(APIError) -> JSONValue {
        let reader = try RequestFields(body)
        try reader.refuseUnknown(["request", "apns", "fcm", "context", "activityId"])
        let push = try Self.push(reader)
        var context = DoctorContext()
        if let given = try reader.object("context") {
            do {
                context = try DoctorContext.decode(from: given.serialized())
            } catch {
                throw APIError(
                    422, .invalidContent, "'context' is not a doctor context: \(error.message)",
                    field: error.field.map { "context.\($0)" } ?? "context")
            }
        }
        let activityId = try reader.string("activityId", required: false)
        try fill(&context, app: appID, activityId: activityId, push: push)
        let findings = Doctor.examine(push, context: context)
        return .object([
            "findings": Doctor.json(findings),
            "errors": .number(Double(findings.filter { $0.severity == .error }.count)),
            "request": push.display,
        ])
    }

    static func push(_ reader: RequestFields) throws(APIError) -> DoctorPush {
        let given = ["request", "apns", "fcm"].filter { reader.object[$0] != nil }
        guard given.count == 1 else {
            throw APIError.invalid(
                given.isEmpty ? "request" : given[1],
                "give exactly one of 'request' (an HTTP dump or a curl line), 'apns' or 'fcm'")
        }
        switch given[0] {
        case "request":
            let text = try reader.string("request", maxLength: 65_536) ?? ""
            do {
                return try DoctorRequestText.parse(text)
            } catch {
                throw APIError(422, .invalidContent, "cannot read the request: \(error.message)", field: "request")
            }
        case "apns":
            let apns = try RequestFields(try reader.object("apns") ?? .null, prefix: "apns")
            try apns.refuseUnknown(["path", "headers", "payload"])
            var headers: [(name: String, value: String)] = []
            for (name, value) in (try apns.object("headers"))?.objectValue ?? [:] {
                guard let text = value.stringValue else {
                    throw APIError.invalid("apns.headers.\(name)", "header values are strings")
                }
                headers.append((name.lowercased(), text))
            }
            let payload = try apns.object("payload", required: true) ?? .null
            return .apns(
                path: try apns.string("path", required: false, maxLength: 1024) ?? "/3/device/", headers: headers,
                body: payload.serialized())
        default:
            let fcm = try RequestFields(try reader.object("fcm") ?? .null, prefix: "fcm")
            try fcm.refuseUnknown(["message"])
            let message = try fcm.object("message", required: true) ?? .null
            return .fcm(body: JSONValue.object(["message": message]).serialized())
        }
    }

    /// Fills what the caller did not say from the server's own records.
    func fill(_ context: inout DoctorContext, app appID: String, activityId: String?, push: DoctorPush)
        throws(APIError)
    {
        guard let app = configuration.apps.first(where: { $0.id == appID }) else { return }
        context.now = context.now ?? clock.unixSeconds()
        var contracts = DoctorContract.builtIn
        for (name, schema) in app.schemas ?? [:] {
            if let data = try? JSONEncoder().encode(schema),
                let contract = try? JSONDecoder().decode(ContractSchema.self, from: data)
            {
                contracts[name] = DoctorContract(schema: contract, attributesType: name)
            }
        }
        context.contracts = context.contracts ?? contracts
        var config = context.config ?? DoctorContext.Configuration()
        config.bundleId = config.bundleId ?? app.bundleId
        config.environment = config.environment ?? app.apns.flatMap { APNsEnvironment(name: $0.environment) }
        config.authMode = config.authMode ?? (app.apns != nil ? .token : nil)
        config.priority10Budget = config.priority10Budget ?? app.priority10PerHour ?? configuration.priority10PerHour
        config.activityLifetimeSeconds = config.activityLifetimeSeconds ?? configuration.maxActiveSeconds
        // The machine's clock as the providers see it: APNs' answer if one had a Date, else Google's.
        let offsets = transport.providerClockOffsets
        config.clockSkewSeconds = config.clockSkewSeconds ?? (offsets["apns"] ?? offsets["fcm"]).map { -$0 }
        context.config = config
        guard let activityId else { return }
        let deviceToken = push.path.hasPrefix("/3/device/") ? String(push.path.dropFirst("/3/device/".count)) : nil
        let facts = try domain { () throws(Refusal) in
            try registry.doctorFacts(
                app: appID, activityId: activityId,
                tokenFingerprint: deviceToken.map { Fingerprint(of: $0.lowercased()) })
        }
        let activity = facts.activity
        var known = context.activity ?? DoctorContext.Activity()
        known.id = known.id ?? activity.id
        known.state = known.state ?? DoctorContext.Activity.State(rawValue: activity.state.rawValue)
        known.startedAt = known.startedAt ?? Int64(activity.createdAt.timeIntervalSince1970)
        known.lastTimestampSent = known.lastTimestampSent ?? activity.timestamp
        known.immediateDismissal = known.immediateDismissal ?? (activity.dismissalDate.map { $0 <= activity.timestamp })
        known.deviceCount = known.deviceCount ?? facts.deviceCount
        context.activity = known
        var history = context.history ?? DoctorContext.History()
        let now = context.now ?? clock.unixSeconds()
        history.priority10LastHour =
            history.priority10LastHour ?? activity.priority10Times.filter { $0 > now - 3600 }.count
        context.history = history
        context.contract = context.contract ?? contracts[activity.attributesType]
        if let token = facts.token {
            var record = context.token ?? DoctorContext.Token()
            record.kind =
                record.kind ?? (token.kind == .pushToStart ? .pushToStart : token.kind == .fcm ? .fcm : .perActivity)
            record.environment = record.environment ?? token.environment
            record.attributesType = record.attributesType ?? token.attributesType
            record.activityId = record.activityId ?? token.activityId
            record.deviceId = record.deviceId ?? token.deviceId
            record.registeredAt = record.registeredAt ?? Int64(token.createdAt.timeIntervalSince1970)
            if let reason = token.invalidReason, record.dead == nil {
                if reason == .superseded {
                    record.supersededBy = record.supersededBy ?? "a newer token of this device"
                } else {
                    record.dead = .init(
                        reason: reason.stored, at: token.invalidatedAt.map { Int64($0.timeIntervalSince1970) })
                }
            }
            context.token = record
            if context.device == nil, let device = token.device {
                context.device = try? DeviceFacts.decode(device)
            }
        }
    }
}
