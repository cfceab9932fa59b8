import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import Foundation

// Device credentials in the router (docs/reference/device-api.md): who is calling, the few routes a device
// may call, and the user scope on each. Another user's token or activity answers exactly as a
// missing one, so a device learns nothing of other users.
extension APIRouter {
    /// Who a request speaks for.
    enum Caller {
        /// The app's backend, with an API key (named by its fingerprint).
        case backend(app: AppID, keyFingerprint: String)
        /// A phone, with a device credential for one user.
        case device(DeviceCaller)

        /// The app it speaks for.
        var appID: AppID {
            switch self {
            case .backend(let app, _): app
            case .device(let device): device.app
            }
        }

        /// The app's id as the registry still takes it (see BareStringIDs.swift).
        var app: String { appID.rawValue }
    }

    /// The routes and methods a device credential may call, from the route table.
    static let deviceRoutes: [String: Set<String>] = routes.deviceRoutes

    /// The bearer of an `Authorization` header, if it has one.
    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let value = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    /// A bearer that looks like a JWT (three dot-separated parts) is a device credential; anything else an API key.
    static func looksLikeCredential(_ bearer: String) -> Bool { bearer.utf8.count(where: { $0 == 0x2E }) == 2 }

    /// The caller, or the 401 that refuses it (naming the fix, never echoing the credential).
    func authenticate(_ request: HTTPRequest) -> Result<Caller, APIError> {
        let header = request.headers["authorization"]
        if let bearer = Self.bearer(header), Self.looksLikeCredential(bearer) {
            let device: DeviceCaller
            do {
                device = try deviceCredentials.verify(bearer)
            } catch {
                return .failure(APIError(401, error.code, error.message))
            }
            do {
                try checkNotRevoked(device)
            } catch {
                return .failure(error)
            }
            return .success(.device(device))
        }
        guard let found = keyring.app(forAuthorization: header) else {
            return .failure(
                APIError(
                    401, .unauthorized,
                    "send 'Authorization: Bearer <API key>' with a key of your app (droptrack apps add prints one)"))
        }
        return .success(.backend(app: found.app, keyFingerprint: found.keyFingerprint))
    }

    /// Refuses a credential issued before its user's revocation (`apps revoke-user`), kept in the store
    /// so that every replica refuses it; one without `iat` cannot show it is newer and is refused too.
    func checkNotRevoked(_ device: DeviceCaller) throws(APIError) {
        let notBefore = try domain { () throws(Refusal) in
            try registry.deviceCredentialsNotBefore(app: device.app.rawValue, userId: device.userId.rawValue)
        }
        guard let notBefore, (device.issuedAt ?? .min) < notBefore else { return }
        let refusal = DeviceCredentialError.revoked(notBefore: Date(timeIntervalSince1970: TimeInterval(notBefore)))
        throw APIError(401, refusal.code, refusal.message)
    }

    /// The 401 answer: device-credential refusals say `error="invalid_token"`, as RFC 6750 asks.
    func unauthorized(_ error: APIError) -> HTTPReply {
        var response = errorResponse(error)
        let challenge = error.code.isCredential ? #"Bearer error="invalid_token""# : "Bearer"
        response.headers.append((name: "WWW-Authenticate", value: challenge))
        return .response(response)
    }

    /// The 429 when the caller's bucket is empty, else nil. Devices are limited per user of an app,
    /// apart from the API keys, so one busy user starves neither other users nor the backend.
    func rateLimit(_ caller: Caller) -> HTTPReply? {
        let (limiter, bucket, what): (RateLimiter, String, String) =
            switch caller {
            case .backend(_, let key): (self.limiter, key, "with this key")
            case .device(let device):
                (userLimiter, device.app.rawValue + "\u{0}" + device.userId.rawValue, "for this user")
            }
        guard let wait = limiter.take(bucket) else { return nil }
        var response = errorResponse(
            APIError(
                429, .rateLimited,
                "more than \(limiter.rate) requests per second \(what); retry after the Retry-After seconds"))
        response.headers.append((name: "Retry-After", value: String(max(1, Int(wait.rounded(.up))))))
        return .response(response)
    }

    /// Holds a device to its routes and its user; answers the request to serve (a token body with
    /// `userId` filled from the credential).
    func scope(_ request: HTTPRequest, template: String, parts: [String], device: DeviceCaller) throws(APIError)
        -> HTTPRequest
    {
        guard Self.deviceRoutes[template]?.contains(request.method) == true else {
            throw APIError(
                403, .deviceNotAllowed,
                "a device credential may not call \(request.method) \(template); call it from your backend with the API key"
            )
        }
        let app = device.app.rawValue
        let user = device.userId.rawValue
        switch template {
        case "/v1/tokens/{fingerprint}":
            let fingerprint = try Fingerprint(pathParameter: parts[2])
            let owned = try domain { () throws(Refusal) in
                try registry.token(app: app, fingerprint: fingerprint, belongsTo: user)
            }
            guard owned else { throw .notFound("no token with fingerprint \(fingerprint)", field: "fingerprint") }
            return request
        case "/v1/users/{userId}/tags", "/v1/devices/{deviceId}/tags":
            try scopeTags(template: template, parts: parts, device: device)
            return request
        case "/v1/activities/{id}":
            let owned = try domain { () throws(Refusal) in
                try Identifier.check(parts[2], field: "id")
                return try registry.activity(app: app, id: parts[2], belongsTo: user)
            }
            guard owned else { throw .notFound("no activity '\(parts[2])'", field: "activityId") }
            return request
        case "/v1/tokens/push-to-start", "/v1/tokens/activity", "/v1/tokens/fcm", "/v1/tokens/channel-subscription":
            guard case .object(var object) = try body(request) else { return request }
            if let given = object["userId"] {
                guard given.stringValue == user else {
                    throw APIError(
                        403, .otherUser,
                        "'userId' names another user than the device credential's; leave it out or send the credential's user",
                        field: "userId")
                }
            } else if parts[2] == "push-to-start" || parts[2] == "fcm" {
                object["userId"] = .string(user)
            }
            // An expo-widgets app may name the activity only as its attributes carry it.
            if let activityId = object["activityId"]?.stringValue
                ?? object["attributes"]?[ExpoWidgetsAttributes.activityIdKey]?.stringValue
            {
                let owned = try domain { () throws(Refusal) in
                    try Identifier.check(activityId, field: "activityId")
                    return try registry.activity(app: app, id: activityId, belongsTo: user)
                }
                guard owned else {
                    throw .notFound("no activity '\(activityId)'; start it first", field: "activityId")
                }
                if let deviceId = object["deviceId"]?.stringValue {
                    let mine = try domain { () throws(Refusal) in
                        try registry.device(app: app, id: deviceId, mayRegisterFor: activityId, user: user)
                    }
                    guard mine else {
                        throw APIError(
                            403, .otherDevice,
                            "'deviceId' names a device that holds no push-to-start or FCM token of this credential's user, and activity '\(activityId)' is shared: a member registers its own devices' tokens only; send this device's id, after registering its push-to-start or FCM token with the credential",
                            field: "deviceId")
                    }
                }
            }
            var scoped = request
            scoped.body = JSONValue.object(object).serialized()
            return scoped
        default:
            return request
        }
    }

    /// The routes added for devices (also open to the API key), and minting for the backend.
    func serveDeviceRoute(_ request: HTTPRequest, template: String, parts: [String], caller: Caller)
        throws(APIError) -> HTTPReply
    {
        var user: String? = nil
        if case .device(let device) = caller { user = device.userId.rawValue }
        switch template {
        case "/v1/devices/{deviceId}/activities":
            let activities = try domain { () throws(Refusal) in
                try Identifier.check(parts[2], field: "deviceId")
                return try registry.deviceActivities(app: caller.app, deviceId: parts[2], user: user)
            }
            return json(200, .object(["activities": .array(activities.map(\.json))]))
        case "/v1/activities/{id}/lifecycle":
            let body = try body(request)
            let reported = try domain { () throws(Refusal) in
                try registry.reportLifecycle(
                    app: caller.app, activityId: parts[2], ReportLifecycle(json: body), user: user)
            }
            return json(200, reported.json)
        case "/v1/activities/{id}/actions":
            let body = try body(request)
            let pressed = try domain { () throws(Refusal) in
                try registry.pressAction(app: caller.app, activityId: parts[2], PressAction(json: body), user: user)
            }
            return json(200, pressed.json)
        case "/v1/users/{userId}/revoke-credentials":
            let notBefore = try domain { () throws(Refusal) in
                try registry.revokeDeviceCredentials(app: caller.app, userId: parts[2])
            }
            return json(200, .object(["userId": .string(parts[2]), "notBefore": .number(Double(notBefore))]))
        default:
            // Only the API key reaches this route: devices are held to `deviceRoutes`.
            guard case .backend(_, let keyFingerprint) = caller else {
                throw APIError(403, .deviceNotAllowed, "mint credentials from your backend with the API key")
            }
            let body = try body(request)
            let mint = try domain { () throws(Refusal) in try MintDeviceCredential(json: body) }
            let notBefore = try domain { () throws(Refusal) in
                try registry.deviceCredentialsNotBefore(app: caller.app, userId: mint.userId)
            }
            let minted: (credential: String, expiresAt: Int64)?
            do {
                minted = try deviceCredentials.mint(
                    app: caller.app, userId: mint.userId, ttl: mint.ttlSeconds, mintedUnder: keyFingerprint,
                    notBefore: notBefore)
            } catch {
                throw APIError(500, .signingFailed, "the device signing key could not sign; see the server log")
            }
            guard let minted else {
                throw APIError(
                    409, .noDeviceSigningKey,
                    "app \(caller.app) has no DropTrack-held device signing key; make one with 'droptrack apps device-key rotate --config F --app \(caller.app)' and restart"
                )
            }
            return json(
                201,
                .object([
                    "credential": .string(minted.credential), "userId": .string(mint.userId),
                    "expiresAt": .number(Double(minted.expiresAt)),
                ]))
        }
    }
}

/// Used when the server is given no authority: no app accepts device credentials.
struct NoDeviceCredentials: DeviceCredentialAuthority {
    func verify(_ credential: String) throws(DeviceCredentialError) -> DeviceCaller { throw .wrongAudience }
    func mint(app: String, userId: String, ttl: Int, mintedUnder keyFingerprint: String, notBefore: Int64?) throws
        -> (credential: String, expiresAt: Int64)?
    { nil }
}
