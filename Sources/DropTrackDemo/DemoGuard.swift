import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel

/// The demo has no API key on its dashboard routes, so it keeps web pages of other sites out: every
/// request must name the demo's own loopback address in `Host` (a page that rebinds its DNS name to
/// 127.0.0.1 still sends its own name), and every state-changing request must come from the served
/// origin (no `Origin`, or the same one; `Sec-Fetch-Site` absent, `same-origin` or `none`) with a JSON
/// body, which a cross-site form cannot send without a preflight the demo never answers.
struct DemoGuard: Sendable {
    /// `Host` values the demo answers to, lowercased.
    let allowedHosts: Set<String>
    /// The address to tell the user to open.
    let served: String

    /// For a server bound to `listen` (as configured) on `port` (as bound).
    init(listen: String, port: Int) {
        var names: Set<String> = ["localhost", "127.0.0.1"]
        // An address literal cannot be rebound, so a specific non-wildcard address the demo was told to
        // listen on is accepted too (the warning at start says what that exposes).
        if let host = parseListenAddress(listen)?.host.lowercased(), host != "0.0.0.0", Self.isAddressLiteral(host) {
            names.insert(host)
        }
        var hosts = Set(names.map { "\($0):\(port)" })
        if port == 80 { hosts.formUnion(names) }
        allowedHosts = hosts
        served = "http://127.0.0.1:\(port)/"
    }

    /// Whether the demo listens beyond this machine: anything but a loopback address or `localhost`.
    static func isBeyondLoopback(_ listen: String) -> Bool {
        guard let host = parseListenAddress(listen)?.host.lowercased() else { return false }
        return !(host == "localhost" || host.hasPrefix("127."))
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The refusal for a request from outside the served origin, or nil to serve it.
    func refusal(_ request: HTTPRequest) -> HTTPReply? {
        let host = request.headers["host"] ?? ""
        guard allowedHosts.contains(host.lowercased()) else {
            return refuse(
                403, .hostNotAllowed,
                "the demo answers only at \(served) (or localhost with the same port), not at Host '\(host.prefix(100))'; open \(served)"
            )
        }
        guard request.method != "GET" && request.method != "HEAD" else { return nil }
        if let site = request.headers["sec-fetch-site"]?.lowercased(), site != "same-origin" && site != "none" {
            return refuse(
                403, .crossSiteRequest,
                "the demo takes changes only from its own dashboard (Sec-Fetch-Site was '\(site.prefix(40))'); use the buttons at \(served)"
            )
        }
        if let origin = request.headers["origin"], origin.lowercased() != "http://\(host.lowercased())" {
            return refuse(
                403, .originNotAllowed,
                "the demo takes changes only from http://\(host), not from Origin '\(origin.prefix(100))'; use the buttons at \(served)"
            )
        }
        if request.path.hasPrefix("/demo/") {
            do {
                try JSONMediaType.check(request.headers["content-type"], bodyBytes: request.body.count)
            } catch {
                return refuse(error.status, error.code, error.message)
            }
        }
        return nil
    }

    private func refuse(_ status: Int, _ code: RefusalCode, _ message: String) -> HTTPReply {
        .response(.json(status, APIError(status, code, message).body.serialized()))
    }
}
