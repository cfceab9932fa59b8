extension APIRouter {
    // Metric labels come only from closed sets: a client picks the method and the path, and every distinct label
    // value would be a series kept for the life of the process and written out on every scrape.

    /// The methods the metrics name; any other is counted as `other`.
    static let methodLabels: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// The `method` label of a request: its method if standard, else `other`.
    static func methodLabel(_ method: String) -> String { methodLabels.contains(method) ? method : "other" }

    /// Every route `route(_:)` names itself: the `/v1` templates, the operational endpoints and `unmatched`.
    static let routeTemplates: Set<String> = [
        "/v1/tokens/push-to-start", "/v1/tokens/activity", "/v1/tokens/fcm", "/v1/tokens/channel-subscription",
        "/v1/tokens/{fingerprint}", "/v1/activities", "/v1/activities/{id}", "/v1/activities/{id}/events",
        "/v1/activities/{id}/end", "/v1/activities/{id}/diagnosis", "/v1/push", "/v1/doctor", "/v1/events",
        "/v1/activities/{id}/lifecycle", "/v1/activities/{id}/actions", "/v1/devices/{deviceId}/activities",
        "/v1/device-credentials",
        "/v1/users/{userId}/tags", "/v1/devices/{deviceId}/tags", "/v1/users/{userId}/revoke-credentials",
        "/v1/activities/{id}/audience/refresh", "/healthz", "/readyz", "/metrics", "/openapi.json",
        "unmatched",
    ]
}
