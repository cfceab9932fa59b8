import DropTrackCore
import Foundation

/// Who may call an endpoint, method by method.
public enum RouteAccess: Sendable, Equatable {
    /// No credential: health, readiness, metrics and the OpenAPI document, which hold no tenant data.
    case open
    /// The app's API key only (its backend).
    case apiKey
    /// The API key, or a device credential scoped to its own user's devices and activities.
    case apiKeyOrDevice
}

/// One endpoint of the API: a path template and what each method it takes needs.
public struct Route: Sendable, Equatable {
    /// One segment of a template: a fixed word, or a `{name}` any single segment fills.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// `/v1/activities/{id}/events`: the route's name in metrics, logs, refusals and the OpenAPI document.
    public let template: String
    /// The methods it takes, each with who may call it.
    public let methods: [String: RouteAccess]
    let segments: [Segment]

    /// A route taking `methods`; `device` lists those a device credential may call too.
    public init(_ template: String, _ methods: [String], device: Set<String> = [], open: Bool = false) {
        self.template = template
        self.methods = Dictionary(
            uniqueKeysWithValues: methods.map { ($0, open ? .open : device.contains($0) ? .apiKeyOrDevice : .apiKey) })
        segments = template.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The names of its `{…}` segments, in order.
    public var parameters: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// How many of its segments are fixed words: a path both `/v1/tokens/fcm` and `/v1/tokens/{fingerprint}`
    /// could be is the one with more.
    var literalCount: Int { segments.count { if case .literal = $0 { true } else { false } } }

    /// Whether the path's segments (without the leading empty one) fill this template.
    func matches(_ parts: [String]) -> Bool {
        guard parts.count == segments.count else { return false }
        return zip(segments, parts).allSatisfy { segment, part in
            if case .literal(let word) = segment { word == part } else { true }
        }
    }
}

/// Every endpoint, in one place: the router matches requests against it, and the metric labels, the device
/// credential's rules and the served OpenAPI document all come from it, so a route added here appears in each.
public struct RouteTable: Sendable {
    public let routes: [Route]

    public init(_ routes: [Route]) { self.routes = routes }

    /// The route a path's segments name, the most specific when two could.
    public func route(for parts: [String]) -> Route? {
        routes.filter { $0.matches(parts) }.max { $0.literalCount < $1.literalCount }
    }

    /// Every template, for the `route` label's closed set.
    public var templates: Set<String> { Set(routes.map(\.template)) }

    /// The templates and methods a device credential may call.
    public var deviceRoutes: [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for route in routes {
            let methods = route.methods.filter { $0.value == .apiKeyOrDevice }.keys
            if !methods.isEmpty { found[route.template] = Set(methods) }
        }
        return found
    }
}

extension APIRouter {
    /// The API's endpoints. The `/v1` templates answer with their app's data; the four open ones hold none.
    public static let routes = RouteTable([
        Route("/v1/tokens/push-to-start", ["POST"], device: ["POST"]),
        Route("/v1/tokens/activity", ["POST"], device: ["POST"]),
        Route("/v1/tokens/fcm", ["POST"], device: ["POST"]),
        Route("/v1/tokens/channel-subscription", ["POST"], device: ["POST"]),
        Route("/v1/tokens/{fingerprint}", ["DELETE"], device: ["DELETE"]),
        Route("/v1/activities", ["POST"]),
        Route("/v1/activities/{id}", ["GET", "PATCH"], device: ["GET"]),
        Route("/v1/activities/{id}/events", ["POST"]),
        Route("/v1/activities/{id}/end", ["POST"]),
        Route("/v1/activities/{id}/audience/refresh", ["POST"]),
        Route("/v1/activities/{id}/diagnosis", ["GET"]),
        Route("/v1/activities/{id}/lifecycle", ["POST"], device: ["POST"]),
        Route("/v1/activities/{id}/actions", ["POST"], device: ["POST"]),
        Route("/v1/devices/{deviceId}/activities", ["GET"], device: ["GET"]),
        Route("/v1/devices/{deviceId}/tags", ["GET", "PUT"], device: ["GET", "PUT"]),
        Route("/v1/users/{userId}/tags", ["GET", "PUT"], device: ["GET", "PUT"]),
        Route("/v1/users/{userId}/revoke-credentials", ["POST"]),
        Route("/v1/device-credentials", ["POST"]),
        Route("/v1/push", ["POST"]),
        Route("/v1/doctor", ["POST"]),
        Route("/v1/events", ["GET"]),
        Route("/healthz", ["GET", "HEAD"], open: true),
        Route("/readyz", ["GET", "HEAD"], open: true),
        Route("/metrics", ["GET", "HEAD"], open: true),
        Route("/openapi.json", ["GET", "HEAD"], open: true),
    ])
}
