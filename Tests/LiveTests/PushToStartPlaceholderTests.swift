import DropTrackContract
import DropTrackEmulators
import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

/// iOS 17.x hands out the push-to-start token only after the app has requested an activity itself
/// (the simulated iPhone models it); the hidden placeholder is the opt-in workaround.
@Suite("The iOS 17.x push-to-start placeholder, on the simulated iPhone against the whole server", .serialized)
struct PushToStartPlaceholderTests {
    static func phone(osVersion: Int) -> IPhoneSimulator {
        IPhoneSimulator(deviceID: LiveLoop.deviceID, settings: IPhoneSettings(osVersion: osVersion))
    }

    /// Activities the Lock Screen still shows.
    static func shown(_ phone: IPhoneSimulator) -> [SimulatedActivity] {
        phone.activities.filter { $0.phase(at: phone.now) != "dismissed" }
    }

    @Test("on iOS 17.x with the option the push-to-start token reaches the server, and no card is left showing")
    func seventeenWithPlaceholder() async throws {
        let loop = LiveLoop(phone: Self.phone(osVersion: 17))
        defer { loop.stop() }
        try loop.startServer()
        #expect(loop.phone.pushToStartTokensByType.isEmpty, "17.x withholds it before any local request")
        let sync = loop.sync(pushToStartPlaceholder: true)
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(await sync.count { $0 == .placeholderStarted } == 1)
        let placeholder = try #require(loop.phone.activities.first)
        #expect(placeholder.attributes["orderId"]?.stringValue == PlaceholderActivity.activityID)
        #expect(Self.shown(loop.phone).isEmpty, "the placeholder is dismissed at once")
        // Its update token is never registered: the server heard of the push-to-start token only.
        #expect(await waitFor { await sync.pendingWork == 0 })
        #expect(await sync.registered(.activity, PlaceholderActivity.activityID).isEmpty)
        #expect(try loop.tokenRequests() == 1)

        // The token works: the backend's start push-starts a card on the phone.
        #expect(try loop.startDelivery("order-p17").status == 201)
        #expect(await waitFor { loop.status("order-p17") == "Order placed" })
        #expect(Self.shown(loop.phone).map { $0.attributes["orderId"]?.stringValue } == ["order-p17"])
        await sync.stop()
    }

    @Test("on iOS 17.x without the option no push-to-start token arrives, and the sync says why, once")
    func seventeenWithout() async throws {
        let loop = LiveLoop(phone: Self.phone(osVersion: 17))
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        #expect(await sync.count { $0 == .pushToStartWithheld(osVersion: "17") } == 1)
        await sync.reconcile()
        #expect(await waitFor { await sync.pendingWork == 0 })
        #expect(await sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty)
        #expect(try loop.tokenRequests() == 0)
        #expect(loop.phone.activities.isEmpty, "nothing was started")
        #expect(await sync.count { if case .pushToStartWithheld = $0 { true } else { false } } == 1)
        let explanation = LiveActivitySyncEvent.pushToStartWithheldExplanation(osVersion: "17")
        #expect(explanation.contains("pushToStartPlaceholder"))
        await sync.stop()
    }

    @Test("on iOS 18 the token comes without a placeholder, and none is started even with the option")
    func eighteen() async throws {
        let loop = LiveLoop(phone: Self.phone(osVersion: 18))
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync(pushToStartPlaceholder: true)
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(loop.phone.activities.isEmpty, "no placeholder on 18")
        #expect(await sync.count { $0 == .placeholderStarted } == 0)
        await sync.stop()
    }
}
