import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackLive
import DropTrackModel
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@Suite("DropTrackLive against the whole server, with the simulated iPhone as ActivityKit", .serialized)
struct LiveServerTests {
    @Test(
        "push-to-start token registered; a start push-starts the phone; its update token is registered; updates arrive")
    func pushToStartThenUpdates() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })

        #expect(try loop.startDelivery("order-1").status == 201)
        #expect(await waitFor { loop.status("order-1") == "Order placed" })
        #expect(await waitFor { await !sync.registered(.activity, "order-1").isEmpty })
        let token = try #require(loop.phone.activities.first?.updateToken)
        #expect(await sync.registered(.activity, "order-1").first?.token == TokenFingerprint(hexToken: token.wireValue))

        #expect(try loop.step("order-1", "picked_up").status == 200)
        #expect(await waitFor { loop.status("order-1") == "Picked up" })
        await sync.stop()
    }

    @Test("a rotated update token is registered again and the next update reaches the phone on it")
    func rotation() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(try loop.startDelivery("order-2").status == 201)
        #expect(await waitFor { await sync.registered(.activity, "order-2").count == 1 })

        let localID = try #require(loop.phone.activities.first?.id)
        loop.phone.rotateToken(activityID: localID)
        let rotated = try #require(loop.phone.activities.first?.updateToken)
        #expect(
            await waitFor {
                await sync.registered(.activity, "order-2").last?.token == TokenFingerprint(hexToken: rotated.wireValue)
            })
        #expect(try loop.step("order-2", "picked_up").status == 200)
        #expect(await waitFor { loop.status("order-2") == "Picked up" })
        #expect(loop.phone.drops.isEmpty, "dropped: \(loop.phone.drops.map(\.reason))")
        await sync.stop()
    }

    @Test("a relaunch (a new sync over the same file ledger) sends the server nothing new")
    func relaunchSendsNothing() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        let first = loop.sync()
        await first.start()
        #expect(await waitFor { await !first.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(try loop.startDelivery("order-3").status == 201)
        #expect(await waitFor { await !first.registered(.activity, "order-3").isEmpty })
        await first.stop()
        let before = try loop.tokenRequests()
        #expect(before >= 2)

        let second = loop.sync()
        await second.start()
        #expect(
            await waitFor {
                await second.count { if case .unchanged = $0 { true } else { false } } == 2
            })
        #expect(await second.count { if case .registered = $0 { true } else { false } } == 0)
        #expect(try loop.tokenRequests() == before)
        await second.stop()
    }

    @Test("while the server is down nothing is lost: the work is retried until it is up, then lands")
    func serverDown() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        // A server that was there and went away: its port is closed now.
        let port = try loop.startServer().port
        loop.server.stop()
        let sync = loop.sync(port: port)
        await sync.start()
        #expect(await waitFor { await sync.count { if case .retrying = $0 { true } else { false } } >= 3 })
        #expect(await sync.pendingWork >= 1)

        try loop.startServer(port: port)
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(try loop.startDelivery("order-4").status == 201)
        #expect(await waitFor { await !sync.registered(.activity, "order-4").isEmpty })
        #expect(try loop.step("order-4", "picked_up").status == 200)
        #expect(await waitFor { loop.status("order-4") == "Picked up" })
        await sync.stop()
    }

    @Test("an expired credential is refreshed once from the backend, and the work lands")
    func credentialRefresh() async throws {
        let loop = LiveLoop(credentialLifetime: 1)
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(loop.credentialsMinted.load(ordering: .relaxed) == 1)

        // The credential the app holds expires; the next registration meets a 401 and asks again.
        try await Task.sleep(for: .milliseconds(2100))
        #expect(try loop.startDelivery("order-5").status == 201)
        #expect(await waitFor { await !sync.registered(.activity, "order-5").isEmpty })
        #expect(loop.credentialsMinted.load(ordering: .relaxed) == 2, "one refresh after the 401")
        #expect(try loop.step("order-5", "picked_up").status == 200)
        #expect(await waitFor { loop.status("order-5") == "Picked up" })
        await sync.stop()
    }
}
