import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `DropTrackDeviceAPI` over URLSession, with `Authorization: Bearer <credential>`.
///
/// The credential comes from `credential`, a closure the app supplies (its backend mints device
/// credentials); it is asked once and kept until `invalidateCredential()` (the sync calls that after
/// a 401), so a fresh one is asked for only when the server refused the old one.
public actor HTTPDeviceAPI: DropTrackDeviceAPI {
    private let baseURL: URL
    private let userID: String?
    private let session: URLSession
    private let credential: @Sendable () async throws -> String
    private var cachedCredential: String?

    /// - Parameters:
    ///   - baseURL: the DropTrack server, e.g. `https://push.example.com`.
    ///   - userID: sent as `userId` in token bodies; leave nil with a device credential (its `sub` is the
    ///     user), set it when calling with an API key (tests, a backend).
    ///   - credential: returns the bearer: a device credential from the app's backend.
    public init(
        baseURL: URL, userID: String? = nil, session: URLSession = .shared,
        credential: @escaping @Sendable () async throws -> String
    ) {
        self.baseURL = baseURL
        self.userID = userID
        self.session = session
        self.credential = credential
    }

    public func registerPushToStartToken(_ registration: PushToStartRegistration) async throws(DeviceAPIError) {
        var body = tokenBody(
            registration.deviceID, registration.token, registration.environment, registration.facts)
        body["attributesType"] = registration.attributesType
        _ = try await send("POST", "v1/tokens/push-to-start", body)
    }

    public func registerActivityToken(_ registration: ActivityTokenRegistration) async throws(DeviceAPIError) {
        var body = tokenBody(
            registration.deviceID, registration.token, registration.environment, registration.facts)
        if let attributes = registration.attributes {
            // The server finds the activity from the attributes, as the phone read them.
            body["attributes"] = attributes
        } else {
            body["activityId"] = registration.activityID
        }
        // The token route takes no `userId` for an activity token: the activity names its user.
        body["userId"] = nil
        _ = try await send("POST", "v1/tokens/activity", body)
    }

    public func deleteToken(_ fingerprint: TokenFingerprint) async throws(DeviceAPIError) {
        _ = try await send("DELETE", "v1/tokens/\(fingerprint.server)", nil)
    }

    public func activityState(activityID: String) async throws(DeviceAPIError) -> String {
        let data = try await send("GET", "v1/activities/\(activityID)?timelineLimit=0", nil)
        struct Answer: Decodable { var state: String }
        return try decode(Answer.self, data).state
    }

    public func deviceActivities(deviceID: String) async throws(DeviceAPIError) -> [ServerDeviceActivity] {
        let data = try await send("GET", "v1/devices/\(deviceID)/activities", nil)
        struct Answer: Decodable { var activities: [ServerDeviceActivity] }
        return try decode(Answer.self, data).activities
    }

    public func reportLifecycle(_ report: LifecycleReport) async throws(DeviceAPIError) {
        var body: [String: Any] = ["deviceId": report.deviceID, "state": report.state.rawValue]
        if let reason = report.reason { body["reason"] = reason }
        _ = try await send("POST", "v1/activities/\(report.activityID)/lifecycle", body)
    }

    public func pressAction(_ press: ActionPress) async throws(DeviceAPIError) {
        _ = try await send(
            "POST", "v1/activities/\(press.activityID)/actions", ["deviceId": press.deviceID, "action": press.action])
    }

    public func invalidateCredential() async { cachedCredential = nil }

    private func tokenBody(_ deviceID: String, _ token: Data, _ environment: APNsEnvironment, _ facts: DeviceFacts)
        -> [String: Any]
    {
        var device: [String: Any] = [
            "osVersion": facts.osVersion, "areActivitiesEnabled": facts.areActivitiesEnabled,
            "frequentPushesEnabled": facts.frequentPushesEnabled,
        ]
        if let build = facts.appBuild { device["appBuild"] = build }
        var body: [String: Any] = [
            "deviceId": deviceID, "token": token.lowercaseHex, "environment": environment.rawValue, "device": device,
        ]
        if let userID { body["userId"] = userID }
        return body
    }

    private func bearer() async throws(DeviceAPIError) -> String {
        if let cachedCredential { return cachedCredential }
        do {
            let fresh = try await credential()
            cachedCredential = fresh
            return fresh
        } catch {
            throw DeviceAPIError(
                status: nil, code: "credential_unavailable",
                message: "the app's credential provider failed (\(type(of: error))); the call is retried later")
        }
    }

    /// One request; a non-2xx answer becomes the server's error.
    private func send(_ method: String, _ path: String, _ body: [String: Any]?) async throws(DeviceAPIError) -> Data {
        let base =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + "/" + path) else {
            throw DeviceAPIError(status: nil, code: "bad_url", message: "cannot make a URL of \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(try await bearer())", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        }
        let (data, response) = try await exchange(request)
        guard (200..<300).contains(response.statusCode) else { throw Self.error(response, data) }
        return data
    }

    /// `URLSession.data(for:)` is not in every FoundationNetworking; the completion handler is.
    private func exchange(_ request: URLRequest) async throws(DeviceAPIError) -> (Data, HTTPURLResponse) {
        let session = self.session
        let outcome: Result<(Data, HTTPURLResponse), DeviceAPIError> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let response = response as? HTTPURLResponse {
                    continuation.resume(returning: .success((data ?? Data(), response)))
                } else {
                    continuation.resume(returning: .failure(.transport(error ?? URLError(.badServerResponse))))
                }
            }.resume()
        }
        return try outcome.get()
    }

    /// The server's `{"error": {"code", "message"}}`, or the status alone when the body is not that.
    static func error(_ response: HTTPURLResponse, _ data: Data) -> DeviceAPIError {
        struct Body: Decodable {
            struct Inner: Decodable {
                var code: String
                var message: String
            }
            var error: Inner
        }
        let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init)
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else {
            return DeviceAPIError(
                status: response.statusCode, code: "http_\(response.statusCode)",
                message: "the server answered \(response.statusCode) without an error body", retryAfter: retryAfter)
        }
        return DeviceAPIError(
            status: response.statusCode, code: body.error.code, message: body.error.message, retryAfter: retryAfter)
    }

    private func decode<Answer: Decodable>(_ type: Answer.Type, _ data: Data) throws(DeviceAPIError) -> Answer {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw DeviceAPIError(status: 200, code: "bad_answer", message: "the answer does not decode: \(error)")
        }
    }
}
