import DropTrackCore
import DropTrackOutbound
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@Suite("Outbound HTTP on libcurl: a deadline, no redirects, no decoding, a capped answer, checked addresses")
struct OutboundHTTPTests {
    /// Loopback and http:// allowed, as tests' receivers listen on 127.0.0.1.
    static let local = OutboundLimits(
        deadlineSeconds: 5, addresses: OutboundAddressPolicy(allowLoopback: true), allowPlainHTTP: true)

    /// Posts and waits for the answer (libcurl ends the attempt by its deadline; 30 s only guards the test).
    func post(_ url: String, limits: OutboundLimits = local, body: [UInt8] = Array(#"{"id":"d1"}"#.utf8))
        -> OutboundAnswer?
    {
        let answer = Mutex<OutboundAnswer?>(nil)
        let done = DispatchSemaphore(value: 0)
        let request = OutboundPost(
            url: url, headers: [("Content-Type", "application/json"), ("DropTrack-Event", "dead_letter")], body: body,
            limits: limits)
        OutboundHTTP.shared.post(request) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        return answer.withLock { $0 }
    }

    @Test("the request goes as given: a POST with its headers and body, no Accept-Encoding, no 100-continue wait")
    func request() throws {
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\n\r\n"))
        defer { receiver.stop() }
        let body = Array(String(repeating: "x", count: 2048).utf8)
        #expect(post(receiver.url, body: body) == .status(204, location: nil))
        let seen = try #require(receiver.requests.first)
        #expect(seen.head.hasPrefix("POST /hooks HTTP/1.1"))
        #expect(seen.body == body)
        #expect(seen.header("DropTrack-Event") == "dead_letter")
        #expect(seen.header("Accept-Encoding") == nil)
        #expect(seen.header("Expect") == nil)
    }

    @Test("a redirect is the answer, with where it points, and is never followed: its target gets no connection")
    func redirect() throws {
        let target = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\n\r\n"))
        defer { target.stop() }
        for status in [301, 302, 307, 308] {
            let receiver = try ScriptedReceiver(
                .answer("HTTP/1.1 \(status) Moved\r\nLocation: \(target.url)\r\nContent-Length: 0\r\n\r\n"))
            defer { receiver.stop() }
            #expect(post(receiver.url) == .status(status, location: target.url))
        }
        #expect(target.connections == 0)
    }

    @Test("a receiver that never answers: the attempt ends at its deadline, a timeout")
    func deadline() throws {
        let receiver = try ScriptedReceiver(.hang)
        defer { receiver.stop() }
        var limits = Self.local
        limits.deadlineSeconds = 1
        #expect(post(receiver.url, limits: limits) == .failed(.timedOut(seconds: 1)))
        #expect(receiver.requests.count == 1)
    }

    @Test("an endless body: the status is the answer, and the connection is dropped after a few KiB")
    func endlessBody() throws {
        let size = 256 * 1024 * 1024
        let receiver = try ScriptedReceiver(
            .stream(head: "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n", bodyBytes: size))
        defer { receiver.stop() }
        #expect(post(receiver.url) == .status(200, location: nil))
        // What the kernel's buffers took before the close, far short of the body.
        #expect(eventually { receiver.requests.count == 1 } && receiver.bodyBytesWritten < size / 4)
    }

    @Test("a body sent gzip-encoded is not decoded: bytes that are not gzip at all still give the status")
    func notDecoded() throws {
        let receiver = try ScriptedReceiver(
            .answer("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\nnot gzip at all"))
        defer { receiver.stop() }
        // Decoding would fail on these bytes (CURLE_BAD_CONTENT_ENCODING) instead of giving the 200.
        #expect(post(receiver.url) == .status(200, location: nil))
    }

    @Test("headers past the cap end the attempt")
    func headerCap() throws {
        let padding = (0..<200).map { "X-Pad-\($0): \(String(repeating: "p", count: 200))\r\n" }.joined()
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 200 OK\r\n\(padding)Content-Length: 0\r\n\r\n"))
        defer { receiver.stop() }
        #expect(post(receiver.url) == .failed(.headersTooLarge(limit: 16 * 1024)))
    }

    @Test("loopback is refused unless allowed, on the address connected to, before any connection")
    func loopbackRefused() throws {
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\n\r\n"))
        defer { receiver.stop() }
        var limits = Self.local
        limits.addresses = OutboundAddressPolicy()
        let address = try #require(IPAddress("127.0.0.1"))
        #expect(post(receiver.url, limits: limits) == .failed(.refusedAddress(address, .loopback)))
        // A name is checked on what it resolves to: localhost is 127.0.0.1 (or ::1), as a rebinding name would be.
        let named = post("http://localhost:\(receiver.port)/hooks", limits: limits)
        let refusedLoopback: Bool
        if case .failed(.refusedAddress(_, .loopback)) = named {
            refusedLoopback = true
        } else {
            refusedLoopback = false
        }
        #expect(refusedLoopback, "\(String(describing: named))")
        #expect(receiver.connections == 0)
        // Allowed by its network rather than by allowLoopback; localhost's ::1, if it has one, is still refused.
        limits.addresses = OutboundAddressPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")!])
        #expect(post(receiver.url, limits: limits) == .status(204, location: nil))
        #expect(post("http://localhost:\(receiver.port)/hooks", limits: limits) == .status(204, location: nil))
    }

    @Test("a connection kept from an allowed transfer is checked again before a request that may not use it")
    func reusedConnection() throws {
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"))
        defer { receiver.stop() }
        #expect(post(receiver.url) == .status(204, location: nil))
        var limits = Self.local
        limits.addresses = OutboundAddressPolicy()
        #expect(post(receiver.url, limits: limits) == .failed(.refusedAddress(IPAddress("127.0.0.1")!, .loopback)))
        #expect(receiver.requests.count == 1)
    }

    @Test("http:// is refused unless allowed, without a connection")
    func plainHTTPRefused() throws {
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\n\r\n"))
        defer { receiver.stop() }
        var limits = Self.local
        limits.allowPlainHTTP = false
        #expect(post(receiver.url, limits: limits) == .failed(.schemeNotAllowed(receiver.url)))
        #expect(post("file:///etc/passwd", limits: Self.local) == .failed(.schemeNotAllowed("file:///etc/passwd")))
        #expect(receiver.connections == 0)
    }
}
