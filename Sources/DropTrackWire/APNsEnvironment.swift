import DropTrackModel

/// Where an APNs client sends: Apple's hosts for an environment, or a custom host (the emulator).
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The environment the endpoint serves (a custom host declares which one it plays).
    public var environment: APNsEnvironment
    /// Host for device pushes (`/3/device/…`).
    public var pushHost: String
    /// Port for device pushes.
    public var pushPort: Int
    /// Host for broadcast sends (`/4/broadcasts/…`).
    public var broadcastHost: String
    /// Port for broadcast sends.
    public var broadcastPort: Int
    /// Host for channel management (`/1/apps/…`).
    public var managementHost: String
    /// Port for channel management.
    public var managementPort: Int

    /// Apple's hosts. Broadcast defaults to the plain push host: Apple's prose names it, and the
    /// emulator accepts both names (see the fact sheet §1.2).
    public static func apple(_ environment: APNsEnvironment) -> APNsEndpoint {
        switch environment {
        case .sandbox:
            APNsEndpoint(
                environment: .sandbox, pushHost: "api.sandbox.push.apple.com", pushPort: 443,
                broadcastHost: "api.sandbox.push.apple.com", broadcastPort: 443,
                managementHost: "api-manage-broadcast.sandbox.push.apple.com", managementPort: 2195)
        case .production:
            APNsEndpoint(
                environment: .production, pushHost: "api.push.apple.com", pushPort: 443,
                broadcastHost: "api.push.apple.com", broadcastPort: 443,
                managementHost: "api-manage-broadcast.push.apple.com", managementPort: 2196)
        }
    }

    /// One host and port for everything, playing `environment` (the emulator serves all three APIs).
    public static func custom(host: String, port: Int, environment: APNsEnvironment = .sandbox) -> APNsEndpoint {
        APNsEndpoint(
            environment: environment, pushHost: host, pushPort: port, broadcastHost: host, broadcastPort: port,
            managementHost: host, managementPort: port)
    }

    /// Parses `HOST:PORT` (IPv6 in brackets) for `--host`.
    public static func parseHostPort(_ text: String) -> (host: String, port: Int)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return (host, port)
        }
        let parts = text.split(separator: ":")
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        return (String(parts[0]), port)
    }

    public var description: String { "\(pushHost):\(pushPort) (\(environment.rawValue))" }
}
