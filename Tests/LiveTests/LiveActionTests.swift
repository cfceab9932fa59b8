import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackLive
import DropTrackTesting
import DropTrackWidgets
import Foundation
import Testing

/// The delivery card's button (iOS 17's `LiveActivityIntent`), pressed on the simulated iPhone against
/// the whole server: the intent runs `perform()` as iOS does in the app's process, the press goes
/// through the sync the app registered, with its device credential, and the next content-state comes
/// back through the APNs emulator.
@Suite("A Live Activity's button, pressed on the simulated iPhone, against the whole server", .serialized)
struct LiveActionTests {
    /// Starts a delivery on the phone and moves it to the step that offers the button.
    static func nearbyDelivery(_ loop: LiveLoop, _ sync: LiveActivitySync, _ activityID: String) async throws {
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(try loop.startDelivery(activityID).status == 201)
        #expect(await waitFor { await !sync.registered(.activity, activityID).isEmpty })
        #expect(try loop.step(activityID, "nearby").status == 200)
        #expect(await waitFor { loop.status(activityID) == DeliveryStep.nearby.status })
    }

    @Test(
        "the phone presses 'Got it': the server records the press with the device credential, applies its event, and the next content-state reaches the phone"
    )
    func pressRoundTrip() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        LiveActivityActions.register(sync)
        try await Self.nearbyDelivery(loop, sync, "order-b1")
        let card = try #require(loop.phone.activities.first { $0.attributes["orderId"]?.stringValue == "order-b1" })

        // The widget offers the button at this step, for this activity.
        let model = DeliveryActivityViewModel(
            attributes: DeliveryAttributes(orderId: "order-b1"),
            state: try LiveActivityJSON.decode(
                DeliveryAttributes.ContentState.self, from: card.contentState.encoded()),
            isStale: false, now: Date())
        #expect(model.action == .confirmReceipt)
        #expect(model.activityID == "order-b1")

        try await loop.phone.pressButton(activityID: card.id, action: .confirmReceipt)
        #expect(await waitFor { loop.status("order-b1") == DeliveryStep.delivered.status })
        let pressed = ActionPress(activityID: "order-b1", deviceID: LiveLoop.deviceID, action: "confirm_receipt")
        #expect(await sync.history.contains(.actionPressed(pressed)))

        let timeline = try loop.server.call("GET", "/v1/activities/order-b1").body["timeline"]?.arrayValue ?? []
        let entry = try #require(timeline.first { $0["event"]?.stringValue == "device_action" })
        #expect(entry["reason"]?.stringValue == "confirm_receipt")
        #expect(entry["note"]?.stringValue == "deviceId \(LiveLoop.deviceID)")
        // The press went over HTTP to the actions route (the sync holds only the credential its backend minted).
        let metrics = try loop.server.call("GET", "/metrics", key: nil).text
        #expect(metrics.contains(#"route="/v1/activities/{id}/actions""#))
        await sync.stop()
    }

    @Test("a card that offers no button at its step cannot be pressed; nothing reaches the server")
    func noButtonBeforeNearby() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        let sync = loop.sync()
        await sync.start()
        LiveActivityActions.register(sync)
        #expect(await waitFor { await !sync.registered(.pushToStart, DeliveryAttributes.typeName).isEmpty })
        #expect(try loop.startDelivery("order-b2").status == 201)
        #expect(await waitFor { loop.status("order-b2") == DeliveryStep.placed.status })
        let card = try #require(loop.phone.activities.first)
        await #expect(throws: IPhoneButtonError.self) {
            try await loop.phone.pressButton(activityID: card.id, action: .confirmReceipt)
        }
        let timeline = try loop.server.call("GET", "/v1/activities/order-b2").body["timeline"]?.arrayValue ?? []
        #expect(!timeline.contains { $0["event"]?.stringValue == "device_action" })
        await sync.stop()
    }

    @Test("another user's credential gets 404 for the activity, as for a missing one; nothing is recorded")
    func otherUser() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        #expect(try loop.startDelivery("order-b3").status == 201)
        let stranger = try loop.credential(user: "user-2")
        let answer = try loop.server.call(
            "POST", "/v1/activities/order-b3/actions", #"{"deviceId":"iphone-2","action":"confirm_receipt"}"#,
            key: stranger)
        #expect(answer.status == 404)
        #expect(answer.errorCode == "not_found")
        #expect(answer.errorField == "activityId")
        let timeline = try loop.server.call("GET", "/v1/activities/order-b3").body["timeline"]?.arrayValue ?? []
        #expect(!timeline.contains { $0["event"]?.stringValue == "device_action" })
    }

    @Test("an action the attributes type does not declare is 422 naming the field and the actions it declares")
    func unknownAction() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        #expect(try loop.startDelivery("order-b4").status == 201)
        let answer = try loop.server.call(
            "POST", "/v1/activities/order-b4/actions", #"{"deviceId":"iphone-live","action":"cancel_order"}"#,
            key: try loop.credential(user: LiveLoop.userID))
        #expect(answer.status == 422)
        #expect(answer.errorCode == "unknown_action")
        #expect(answer.errorField == "action")
        let message = answer.body["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("cancel_order") && message.contains("send one of confirm_receipt"), "\(message)")
    }

    @Test("without a credential the press is 401; on an ended activity it is 409 activity_ended")
    func noCredentialAndEnded() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer()
        #expect(try loop.startDelivery("order-b5").status == 201)
        let body = #"{"deviceId":"iphone-live","action":"confirm_receipt"}"#
        let anonymous = try loop.server.call("POST", "/v1/activities/order-b5/actions", body, key: nil)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["www-authenticate"] != nil)

        let credential = try loop.credential(user: LiveLoop.userID)
        #expect(try loop.server.call("POST", "/v1/activities/order-b5/end", "{}").status == 200)
        let late = try loop.server.call("POST", "/v1/activities/order-b5/actions", body, key: credential)
        #expect(late.status == 409)
        #expect(late.errorCode == "activity_ended")
    }
}
