import DropTrackCore
import DropTrackDispatch
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Hostile webhook receivers: redirects, silence, endless answers, names that resolve to this machine")
struct WebhookAbuseTests {
    /// A server whose app1 has one endpoint at `url`, and an outcome queued for it.
    func serve(_ url: String, tweak: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerHarness {
        let hook = try WebhookTests.endpoint(url, events: ["activity_dismissed"])
        let server = try ServerHarness {
            hook(&$0)
            $0.backoffBaseSeconds = 60
            tweak(&$0)
        }
        _ = try server.registry.startActivity(app: "app1", body: server.json(start("order-x", user: "u1")))
        _ = try server.registry.reportLifecycle(
            app: "app1", activityId: "order-x", ReportLifecycle(deviceId: "d1", state: .dismissed, reason: "swiped"))
        return server
    }

    /// The queued delivery's last error, once an attempt failed.
    func lastError(_ server: ServerHarness) -> String? {
        var error: String?
        _ = eventually(timeout: .seconds(10)) {
            error = (try? server.store.transaction { try $0.webhookDeliveries(limit: 1) })?.first?.lastError
            return error != nil
        }
        return error
    }

    @Test("a redirect is a failed attempt that names the fix, and where it points gets no connection")
    func redirect() throws {
        let target = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"))
        defer { target.stop() }
        for status in [302, 307] {
            let receiver = try ScriptedReceiver(
                .answer("HTTP/1.1 \(status) Found\r\nLocation: \(target.url)\r\nContent-Length: 0\r\n\r\n"))
            defer { receiver.stop() }
            let server = try serve(receiver.url)
            defer { server.stop() }
            let error = try #require(lastError(server))
            #expect(error.contains("answered \(status), a redirect to \(target.url)"), "\(error)")
            #expect(error.contains("redirects are not followed") && error.contains("configure the final URL"))
            #expect(receiver.requests.count == 1)
        }
        #expect(target.connections == 0)
    }

    @Test("a receiver that never answers: the attempt fails at webhookTimeoutSeconds, never delivered late")
    func silence() throws {
        let receiver = try ScriptedReceiver(.hang)
        defer { receiver.stop() }
        let server = try serve(receiver.url) { $0.webhookTimeoutSeconds = 1 }
        defer { server.stop() }
        #expect(lastError(server) == "no answer within 1 s (webhookTimeoutSeconds)")
        #expect(server.metrics.value("droptrack_webhook_deliveries_total", ["result": "retried"]) == 1)
        #expect(eventually { server.webhookInFlight == 0 })
        #expect(server.metrics.value("droptrack_webhook_deliveries_total", ["result": "delivered"]) == 0)
    }

    @Test("an endless answer is read a few KiB: its status delivers, and the rest is never taken")
    func endlessAnswer() throws {
        let size = 1 << 30
        let receiver = try ScriptedReceiver(
            .stream(
                head: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(size)\r\n\r\n", bodyBytes: size))
        defer { receiver.stop() }
        let server = try serve(receiver.url)
        defer { server.stop() }
        #expect(
            eventually(timeout: .seconds(10)) {
                server.metrics.value("droptrack_webhook_deliveries_total", ["result": "delivered"]) == 1
            })
        #expect(eventually { receiver.requests.count == 1 } && receiver.bodyBytesWritten < 64 << 20)
    }

    @Test("a name that resolves to this machine is refused at connect unless loopback is allowed")
    func resolvesToLoopback() throws {
        let receiver = try ScriptedReceiver(.answer("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"))
        defer { receiver.stop() }
        // https:// to a name: configuration cannot know where it leads; the connection is checked.
        let server = try serve("https://localhost:\(receiver.port)/hooks") { $0.allowLoopbackWebhooks = false }
        defer { server.stop() }
        let error = try #require(lastError(server))
        #expect(error.hasPrefix("refused to connect to "), "\(error)")
        #expect(error.contains("a loopback address") && error.contains("allowLoopbackWebhooks: true"), "\(error)")
        #expect(receiver.connections == 0)
    }
}
