// The FCM emulator's `messages:send`: FCM's validation, google.rpc errors, faults and delivery.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

extension FCMEmulator {
    /// Outcome of checking one send.
    struct Verdict {
        var status: Int
        var error: String?
        var message: String?
        var response: HTTP2ServerResponse
        var fault: String?
        var delay: Duration?
    }

    func send(_ request: HTTP2ServerRequest, path: String) -> HTTP2ServerAction {
        let now = clock.now()
        var entry = FCMEmulatorRecord(sequence: 0, receivedAt: now, kind: "send", status: 0, validateOnly: false)
        let verdict = check(request, path: path, now: now, entry: &entry)
        entry.status = verdict.status
        entry.error = verdict.error
        entry.message = verdict.message
        entry.fault = verdict.fault
        if verdict.fault == FCMFaultKind.connectionReset.rawValue {
            record(entry)
            return .resetConnection
        }
        record(entry)
        if let delay = verdict.delay { return .respondAfter(delay, verdict.response) }
        return .respond(verdict.response)
    }

    private func check(_ request: HTTP2ServerRequest, path: String, now: Date, entry: inout FCMEmulatorRecord)
        -> Verdict
    {
        func fail(
            _ code: FCMErrorCode, _ message: String, fcmError: Bool, details: [JSONValue] = [], retryAfter: Int? = nil
        ) -> Verdict {
            var allDetails = details
            if fcmError {
                allDetails.append(
                    .object([
                        "@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                        "errorCode": .string(code.rawValue),
                    ]))
            }
            var response = rpcError(code.status, code.rpcStatus, message, details: allDetails)
            if let retryAfter { response.headers.append(HTTPHeader("retry-after", String(retryAfter))) }
            if code == .unauthenticated {
                response.headers.append(
                    HTTPHeader(
                        "www-authenticate", #"Bearer realm="https://accounts.google.com/", error="invalid_token""#))
            }
            return Verdict(status: code.status, error: code.rawValue, message: message, response: response)
        }
        guard request.method == "POST" else {
            return Verdict(
                status: 405, error: "METHOD_NOT_ALLOWED", message: "use POST",
                response: rpcError(405, "METHOD_NOT_ALLOWED", "messages:send takes POST"))
        }
        let authorization = request.headers.value(of: "authorization") ?? ""
        let bearer = authorization.split(separator: " ", maxSplits: 1)
        guard bearer.count == 2, bearer[0].lowercased() == "bearer" else {
            return fail(
                .unauthenticated,
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                fcmError: false)
        }
        let expiry = state.withLock { $0.accessTokens[String(bearer[1])] }
        guard let expiry, expiry > now else {
            return fail(
                .unauthenticated,
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                fcmError: false)
        }
        let project = String(path.dropFirst("/v1/projects/".count).dropLast("/messages:send".count))
        guard project == configuration.projectID else {
            return fail(
                .permissionDenied,
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
                fcmError: false)
        }
        guard let body = try? JSONValue.parse(bytes: request.body), let root = body.objectValue else {
            return fail(
                .invalidArgument, "Invalid JSON payload received. The body is not a JSON object.", fcmError: false)
        }
        for key in root.keys where !["message", "validate_only", "validateOnly"].contains(key) {
            return fail(
                .invalidArgument, "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.",
                fcmError: false)
        }
        entry.validateOnly = (root["validate_only"] ?? root["validateOnly"])?.boolValue ?? false
        guard let message = root["message"]?.objectValue else {
            return fail(
                .invalidArgument, "Request contains an invalid argument: 'message' is required.", fcmError: true)
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count == 1 else {
            return fail(
                .invalidArgument,
                "Exactly one of message.token, message.topic or message.condition must be set (found \(targets.count)).",
                fcmError: true)
        }
        let token = message["token"]?.stringValue
        entry.tokenFingerprint = token.map { Fingerprint(of: $0).value }
        entry.target = message["topic"]?.stringValue ?? message["condition"]?.stringValue
        var data: [String: String] = [:]
        if let dataValue = message["data"] {
            guard let object = dataValue.objectValue else {
                return fail(
                    .invalidArgument, "Invalid value at 'message.data': must be an object of strings.", fcmError: false)
            }
            for key in object.keys.sorted() {
                guard let text = object[key]?.stringValue else {
                    let shown = object[key].map { String(decoding: $0.serialized(), as: UTF8.self) } ?? ""
                    let field = "message.data[\(key)].value"
                    return fail(
                        .invalidArgument,
                        "Invalid value at '\(field)' (TYPE_STRING), \(shown): FCM data values must be strings.",
                        fcmError: false,
                        details: [
                            .object([
                                "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
                                "fieldViolations": .array([
                                    .object([
                                        "field": .string(field),
                                        "description": .string("Invalid value at '\(field)' (TYPE_STRING), \(shown)"),
                                    ])
                                ]),
                            ])
                        ])
                }
                if let reason = FCMLimits.reservation(of: key) {
                    return fail(.invalidArgument, "Invalid data payload key '\(key)': \(reason).", fcmError: true)
                }
                data[key] = text
            }
        }
        let limit = message["topic"] != nil ? FCMLimits.topicDataBytes : FCMLimits.dataBytes
        let size = FCMLimits.size(of: data)
        guard size <= limit else {
            return fail(
                .invalidArgument,
                "Android message is too big: the data payload is \(size) bytes; the limit is \(limit).", fcmError: true)
        }
        if let android = message["android"] {
            guard let object = android.objectValue else {
                return fail(.invalidArgument, "Invalid value at 'message.android': must be an object.", fcmError: false)
            }
            if let priority = object["priority"] {
                guard let text = priority.stringValue, ["high", "normal"].contains(text.lowercased()) else {
                    return fail(
                        .invalidArgument,
                        "Invalid value at 'message.android.priority' (TYPE_ENUM), \(String(decoding: priority.serialized(), as: UTF8.self)): use \"high\" or \"normal\".",
                        fcmError: false)
                }
                entry.priority = text.lowercased()
            }
            if let ttl = object["ttl"] {
                guard let text = ttl.stringValue, let seconds = FCMEmulator.parseDuration(text) else {
                    return fail(
                        .invalidArgument,
                        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration): write seconds with an 's', like \"30s\" or \"1.5s\".",
                        fcmError: false)
                }
                guard seconds >= 0, seconds <= Double(FCMLimits.maximumTTLSeconds) else {
                    return fail(
                        .invalidArgument, "The TTL \(text) is out of range: 0 to 2419200s (28 days).", fcmError: true)
                }
                entry.ttl = text
            }
            entry.collapseKey = (object["collapse_key"] ?? object["collapseKey"])?.stringValue
        }
        entry.data = data
        if let fault = state.withLock({ $0.faults.fire(token: token) }) {
            var verdict: Verdict?
            switch fault.kind {
            case .unregistered: verdict = fail(.unregistered, "Requested entity was not found.", fcmError: true)
            case .senderIdMismatch: verdict = fail(.senderIdMismatch, "SenderId mismatch", fcmError: true)
            case .invalidToken:
                verdict = fail(
                    .invalidArgument, "The registration token is not a valid FCM registration token", fcmError: true)
            case .quotaExceeded:
                verdict = fail(
                    .quotaExceeded, "Quota exceeded for the device.", fcmError: true,
                    retryAfter: fault.retryAfterSeconds)
            case .resourceExhausted:
                verdict = fail(
                    .resourceExhausted,
                    "Quota exceeded for quota metric 'Send requests' of service 'fcm.googleapis.com'.",
                    fcmError: false,
                    details: [
                        .object([
                            "@type": .string("type.googleapis.com/google.rpc.ErrorInfo"),
                            "reason": .string("RATE_LIMIT_EXCEEDED"),
                            "domain": .string("googleapis.com"),
                        ])
                    ], retryAfter: fault.retryAfterSeconds)
            case .internal:
                verdict = fail(
                    .internal, "Internal error encountered.", fcmError: true, retryAfter: fault.retryAfterSeconds)
            case .unavailable:
                verdict = fail(
                    .unavailable, "The service is currently unavailable.", fcmError: true,
                    retryAfter: fault.retryAfterSeconds)
            case .thirdPartyAuthError:
                verdict = fail(.thirdPartyAuthError, "Auth error from APNS or Web Push Service", fcmError: true)
            case .unauthenticated:
                verdict = fail(.unauthenticated, "Request had invalid authentication credentials.", fcmError: false)
            case .connectionReset:
                return Verdict(
                    status: 0, error: nil, message: nil, response: HTTP2ServerResponse(status: 500),
                    fault: fault.kind.rawValue)
            case .delay: break
            }
            if var verdict {
                verdict.fault = fault.kind.rawValue
                return verdict
            }
            var accepted = deliver(entry: &entry, token: token, data: data, now: now)
            accepted.fault = fault.kind.rawValue
            accepted.delay = .milliseconds(fault.delayMilliseconds ?? 1000)
            return accepted
        }
        if let token {
            let registration = state.withLock { $0.registered[token] }
            if let registration {
                if registration.dead { return fail(.unregistered, "Requested entity was not found.", fcmError: true) }
                if registration.project != configuration.projectID {
                    return fail(.senderIdMismatch, "SenderId mismatch", fcmError: true)
                }
            } else if !configuration.acceptUnknownTokens {
                return fail(.unregistered, "Requested entity was not found.", fcmError: true)
            }
        }
        return deliver(entry: &entry, token: token, data: data, now: now)
    }

    private func deliver(entry: inout FCMEmulatorRecord, token: String?, data: [String: String], now: Date) -> Verdict {
        let number = state.withLock {
            $0.messages += 1
            return $0.messages
        }
        let name =
            entry.validateOnly
            ? "projects/\(configuration.projectID)/messages/fake_message_id"
            : "projects/\(configuration.projectID)/messages/0:\(Int64(now.timeIntervalSince1970 * 1000))%\(number)"
        entry.name = name
        if !entry.validateOnly, let token {
            let delivery = FCMDelivery(
                token: token, data: data, priority: entry.priority ?? "normal", name: name, acceptedAt: now)
            for listener in listeners.withLock({ $0 }) { listener(delivery) }
        }
        return Verdict(status: 200, response: jsonResponse(200, .object(["name": .string(name)])))
    }

    func record(_ entry: FCMEmulatorRecord) {
        state.withLock { state in
            state.sequence += 1
            var entry = entry
            entry.sequence = state.sequence
            state.records.append(entry)
            if entry.kind == "send", entry.status == 200, !entry.validateOnly, let fingerprint = entry.tokenFingerprint
            {
                state.latest[fingerprint] = entry
            }
        }
    }

    /// `"30s"`, `"1.5s"`, `"3.000000001s"` → seconds; nil when it is not a protobuf Duration.
    static func parseDuration(_ text: String) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isNumber) else {
            return nil
        }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(\.isNumber) else { return nil }
        }
        return Double(number)
    }

    func jsonResponse(_ status: Int, _ body: JSONValue) -> HTTP2ServerResponse {
        HTTP2ServerResponse(
            status: status, headers: [HTTPHeader("content-type", "application/json; charset=UTF-8")],
            body: body.serialized())
    }

    func rpcError(_ status: Int, _ rpcStatus: String, _ message: String, details: [JSONValue] = [])
        -> HTTP2ServerResponse
    {
        var error: [String: JSONValue] = [
            "code": .number(Double(status)), "message": .string(message), "status": .string(rpcStatus),
        ]
        if !details.isEmpty { error["details"] = .array(details) }
        return jsonResponse(status, .object(["error": .object(error)]))
    }
}
