import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation

/// One push as it goes on the wire, for the doctor: an APNs request (method, path with the device
/// token or the broadcast path, headers, body) or an FCM v1 `messages:send` request. Nothing is
/// validated on the way in, so a broken push can still be examined: a malformed body is a finding,
/// not an error.
public struct DoctorPush: Sendable, Equatable {
    /// Which provider the request is for.
    public enum Provider: String, Sendable, Codable {
        case apns, fcm
    }

    /// Which provider the request is for.
    public var provider: Provider
    /// The HTTP method.
    public var method: String
    /// The host, when known (a URL was given): tells the APNs environment and the API.
    public var host: String?
    /// The port, when known.
    public var port: Int?
    /// The path: `/3/device/<token>`, `/4/broadcasts/apps/<bundle>`, `/1/apps/<bundle>/channels`,
    /// or `/v1/projects/<id>/messages:send`.
    public var path: String
    /// The headers in the order given; names compare without case, and repeats are kept (APNs
    /// refuses them).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// The request authenticates with a client certificate (curl `--cert`) instead of a JWT.
    public var usesClientCertificate: Bool

    /// Creates a push from its parts.
    public init(
        provider: Provider, method: String = "POST", host: String? = nil, port: Int? = nil, path: String,
        headers: [(name: String, value: String)] = [], body: [UInt8], usesClientCertificate: Bool = false
    ) {
        self.provider = provider
        self.method = method
        self.host = host
        self.port = port
        self.path = path
        self.headers = headers
        self.body = body
        self.usesClientCertificate = usesClientCertificate
    }

    /// An APNs request.
    public static func apns(
        method: String = "POST", path: String, headers: [(name: String, value: String)], body: [UInt8],
        host: String? = nil, port: Int? = nil
    ) -> DoctorPush {
        DoctorPush(provider: .apns, method: method, host: host, port: port, path: path, headers: headers, body: body)
    }

    /// An FCM v1 send: the `{"message": …}` body, and the URL path when known.
    public static func fcm(
        body: [UInt8], path: String = "/v1/projects/-/messages:send", headers: [(name: String, value: String)] = [],
        host: String? = "fcm.googleapis.com"
    ) -> DoctorPush {
        DoctorPush(provider: .fcm, host: host, path: path, headers: headers, body: body)
    }

    /// The request an `APNsPush` becomes, with the `authorization` header when given.
    public init(_ push: APNsPush, authorization: String? = nil) {
        var headers = push.headers
        if let authorization { headers.insert(("authorization", authorization), at: 0) }
        self.init(provider: .apns, path: push.path, headers: headers, body: push.payload)
    }

    /// The request an `FCMMessage` becomes for a project.
    public init(_ message: FCMMessage, projectID: String) {
        self.init(
            provider: .fcm, host: "fcm.googleapis.com", path: "/v1/projects/\(projectID)/messages:send",
            body: message.requestBody())
    }

    /// A request whose provider is worked out: FCM by its URL path (`/v1/projects/…/messages:send`),
    /// its host, or a body shaped `{"message": …}`; APNs otherwise.
    public static func detect(
        method: String = "POST", url: String? = nil, path: String? = nil, headers: [(name: String, value: String)],
        body: [UInt8]
    ) -> DoctorPush {
        var host: String? = nil
        var port: Int? = nil
        var requestPath = path ?? ""
        if let url {
            let parts = DoctorPush.splitURL(url)
            host = parts.host
            port = parts.port
            requestPath = parts.path
        }
        let fcmByURL =
            requestPath.hasSuffix("/messages:send") || requestPath.hasPrefix("/v1/projects/")
            || host?.hasSuffix("googleapis.com") == true
        let apnsByURL =
            requestPath.hasPrefix("/3/device") || requestPath.hasPrefix("/4/broadcasts")
            || requestPath.hasPrefix("/1/apps") || host?.hasSuffix("push.apple.com") == true
        let fcmByBody = !apnsByURL && (try? JSONValue.parse(bytes: body))?["message"]?.objectValue != nil
        let provider: Provider = fcmByURL || fcmByBody ? .fcm : .apns
        if provider == .fcm && requestPath.isEmpty { requestPath = "/v1/projects/-/messages:send" }
        return DoctorPush(
            provider: provider, method: method, host: host, port: port, path: requestPath, headers: headers,
            body: body)
    }

    /// `scheme://host[:port]/path` → its parts (the path keeps `:` as in `messages:send`).
    static func splitURL(_ url: String) -> (host: String?, port: Int?, path: String) {
        var rest = Substring(url)
        var defaultPort: Int? = nil
        if let range = rest.range(of: "://") {
            defaultPort = rest[..<range.lowerBound].lowercased() == "http" ? 80 : 443
            rest = rest[range.upperBound...]
        } else if rest.hasPrefix("/") {
            return (nil, nil, String(rest))
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash < rest.endIndex ? String(rest[slash...]) : "/"
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            return (host, after.hasPrefix(":") ? Int(after.dropFirst()) : defaultPort, path)
        }
        if let colon = authority.lastIndex(of: ":") {
            return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]), path)
        }
        return (String(authority), defaultPort, path)
    }

    /// The value of the first header named `name` (given in lowercase; the request's own names may
    /// have any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    /// The APNs environment Apple's host name says, or nil for any other host (an emulator).
    public var hostEnvironment: APNsEnvironment? {
        guard let host = host?.lowercased() else { return nil }
        switch host {
        case "api.sandbox.push.apple.com", "api.development.push.apple.com",
            "api-manage-broadcast.sandbox.push.apple.com":
            return .sandbox
        case "api.push.apple.com", "api-manage-broadcast.push.apple.com": return .production
        default: return nil
        }
    }

    /// A one-line description safe to print: the device token appears only as its fingerprint.
    public var summary: String {
        var path = self.path
        if path.hasPrefix("/3/device/") {
            let token = String(path.dropFirst("/3/device/".count))
            path = "/3/device/" + (token.isEmpty ? "" : "<token \(Fingerprint(of: token))>")
        }
        let target = (host.map { "\($0)\(port.map { ":\($0)" } ?? "")" } ?? "") + path
        return "\(provider == .apns ? "APNs" : "FCM") \(method) \(target) (\(body.count) bytes)"
    }

    /// The request as the doctor read it, safe to print or return from an API: the path's device
    /// token, every `authorization` credential and the FCM body's tokens appear as fingerprints.
    /// `{provider, method, host, port, path, headers: [[name, value]], body}`.
    public var display: JSONValue {
        var path = self.path
        if path.hasPrefix("/3/device/"), path.count > "/3/device/".count {
            path = "/3/device/<token \(Fingerprint(of: String(path.dropFirst("/3/device/".count))))>"
        }
        let headers = headers.map { header -> JSONValue in
            var value = header.value
            if header.name.lowercased() == "authorization" {
                let parts = value.split(separator: " ", maxSplits: 1)
                value =
                    parts.count == 2
                    ? "\(parts[0]) <credential \(Fingerprint(of: String(parts[1])))>"
                    : "<credential \(Fingerprint(of: value))>"
            }
            return .array([.string(header.name), .string(value)])
        }
        var body = String(decoding: self.body, as: UTF8.self)
        if provider == .fcm, var root = (try? JSONValue.parse(bytes: self.body))?.objectValue,
            var message = root["message"]?.objectValue
        {
            if let token = message["token"]?.stringValue {
                message["token"] = .string("<token \(Fingerprint(of: token))>")
            }
            if var apns = message["apns"]?.objectValue, let token = apns["live_activity_token"]?.stringValue {
                apns["live_activity_token"] = .string("<token \(Fingerprint(of: token))>")
                message["apns"] = .object(apns)
            }
            root["message"] = .object(message)
            body = String(decoding: JSONValue.object(root).serialized(), as: UTF8.self)
        }
        return .object([
            "provider": .string(provider.rawValue), "method": .string(method),
            "host": host.map(JSONValue.string) ?? .null,
            "port": port.map { .number(Double($0)) } ?? .null, "path": .string(path), "headers": .array(headers),
            "body": .string(body),
        ])
    }

    public static func == (a: DoctorPush, b: DoctorPush) -> Bool {
        a.provider == b.provider && a.method == b.method && a.host == b.host && a.port == b.port && a.path == b.path
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
            && a.body == b.body && a.usesClientCertificate == b.usesClientCertificate
    }
}
