import DropTrackContract
import DropTrackCrypto
import DropTrackHTTP1
import Foundation
import Synchronization

/// A real HTTP server on 127.0.0.1 that receives webhooks and checks every signature with the secret.
final class WebhookReceiver: Sendable {
    /// How it answers.
    enum Mode: Sendable, Equatable {
        case accept
        /// Answers this status (503: down).
        case refuse(Int)
        /// Holds the request without answering until the mode changes (at most 30 s).
        case hang
    }

    /// One request as it came, and what it was answered.
    struct Received: Sendable {
        var headers: [String: String]
        var body: [UInt8]
        var answered: Int
        var signatureValid: Bool
        var json: JSONValue { (try? JSONValue.parse(bytes: body)) ?? .null }
        var deliveryId: String { headers["droptrack-delivery"] ?? "" }
        var event: String { headers["droptrack-event"] ?? "" }
    }

    final class Handler: HTTPHandler {
        let secret: [UInt8]
        let state: Mutex<(mode: Mode, received: [Received])>

        init(secret: [UInt8], mode: Mode) {
            self.secret = secret
            state = Mutex((mode, []))
        }

        func handle(_ request: HTTPRequest) -> HTTPReply {
            let headers = Dictionary(
                request.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            let deadline = ContinuousClock.now + .seconds(30)
            while state.withLock({ $0.mode == .hang }), ContinuousClock.now < deadline { usleep(20_000) }
            let status: Int
            switch state.withLock({ $0.mode }) {
            case .accept, .hang: status = 204
            case .refuse(let code): status = code
            }
            let valid = WebhookReceiver.verify(
                headers["droptrack-signature"] ?? "", body: request.body, secret: secret)
            state.withLock {
                $0.received.append(
                    Received(headers: headers, body: request.body, answered: status, signatureValid: valid))
            }
            return .response(HTTPResponse(status: status))
        }
    }

    private let handler: Handler
    private let server: HTTPServer
    /// The bound port.
    let port: Int

    /// Starts listening on `port` (0: any free one).
    init(secret: String, port: Int = 0, mode: Mode = .accept) throws {
        handler = Handler(secret: Array(secret.utf8), mode: mode)
        server = HTTPServer(handler: handler, threads: 4)
        self.port = try server.start(host: "127.0.0.1", port: port)
    }

    var url: String { "http://127.0.0.1:\(port)/hooks" }

    func set(_ mode: Mode) { handler.state.withLock { $0.mode = mode } }

    /// Every request so far, in the order answered.
    var received: [Received] { handler.state.withLock { $0.received } }

    /// The requests answered 2xx.
    var delivered: [Received] { received.filter { (200..<300).contains($0.answered) } }

    func stop() { server.stop() }

    /// `t=<seconds>,v1=<hex>` checked as a receiver would: HMAC-SHA256 of "<t>.<body>" with the secret.
    static func verify(_ header: String, body: [UInt8], secret: [UInt8]) -> Bool {
        var parts: [String: String] = [:]
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { parts[pair[0]] = pair[1] }
        }
        guard let t = parts["t"], Int64(t) != nil, let v1 = parts["v1"] else { return false }
        let mac = HMACSHA256.mac(key: secret, message: Array("\(t).".utf8) + body)
        return v1 == mac.map { String(format: "%02x", $0) }.joined()
    }
}
