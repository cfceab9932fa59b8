import DropTrackContract
import DropTrackDispatch
import DropTrackEmulators
import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

/// A patched expo-widgets' `LiveActivityAttributes` carries the backend's `activityId`: the simulated
/// iPhone reads the server's id from it as from `DeliveryAttributes`, and the sync registers the update
/// token of a push-started one with `{"attributes": {"activityId": …}}`, which the server matches.
@Suite("An expo-widgets activity carrying activityId, on the simulated iPhone against the whole server", .serialized)
struct ExpoWidgetsActivityIdTests {
    @Test(
        "a push-started LiveActivityAttributes activity's update token is registered by its activityId and updates reach it"
    )
    func pushStartedIsRegistered() async throws {
        let phone = IPhoneSimulator(
            deviceID: LiveLoop.deviceID, attributesTypes: [DeliveryAttributes.typeName, ExpoWidgetsAttributes.typeName])
        let loop = LiveLoop(phone: phone)
        defer { loop.stop() }
        try loop.startServer { configuration in
            configuration.apps[0].schemas?["Receipt"] = AttributesSchema(
                contentState: ["stage": .init(type: "string")], output: "expo-widgets", widgetName: "ReceiptWidget",
                activityIdAttribute: true)
        }
        let sync = loop.sync()
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, ExpoWidgetsAttributes.typeName).isEmpty })

        let started = try loop.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-7","userId":"\#(LiveLoop.userID)","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r7"}"#
        )
        #expect(started.status == 201, "\(started.text)")
        #expect(await waitFor { phone.activities.first?.attributes["activityId"] == .string("receipt-7") })
        let snapshot = try #require(await phone.liveActivityHost().runningActivities().first)
        #expect(snapshot.serverActivityID == "receipt-7")
        #expect(snapshot.registrationAttributes == ["activityId": "receipt-7"])
        #expect(await waitFor { await !sync.registered(.activity, "receipt-7").isEmpty })
        #expect(await sync.count { if case .unidentified = $0 { true } else { false } } == 0)

        let updated = try loop.server.call(
            "PATCH", "/v1/activities/receipt-7", #"{"contentState":{"stage":"completed"}}"#)
        #expect(updated.status == 200, "\(updated.text)")
        #expect(
            await waitFor {
                phone.activities.first?.contentState
                    == .object(["name": .string("ReceiptWidget"), "props": .string(#"{"stage":"completed"}"#)])
            }, "the update reached the activity through the token registered by its attributes")
        #expect(phone.drops.isEmpty, "\(phone.drops.map(\.reason))")
        await sync.stop()
    }

    @Test("HTTPDeviceAPI sends a registration's attributes as the body's attributes, which the server reads")
    func attributesInTheBody() async throws {
        let loop = LiveLoop()
        defer { loop.stop() }
        try loop.startServer { configuration in
            configuration.apps[0].schemas?["Receipt"] = AttributesSchema(
                contentState: ["stage": .init(type: "string")], output: "expo-widgets", widgetName: "ReceiptWidget",
                activityIdAttribute: true)
        }
        let created = try loop.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-8","userId":"\#(LiveLoop.userID)","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r8"}"#
        )
        #expect(created.status == 201, "\(created.text)")
        let api = HTTPDeviceAPI(
            baseURL: URL(string: "http://127.0.0.1:\(loop.server.port)")!, userID: LiveLoop.userID,
            credential: { [loop] in try loop.credentialFromBackend() })
        let facts = DeviceFacts(
            areActivitiesEnabled: true, frequentPushesEnabled: false, osVersion: "18.2", appBuild: "1")
        func registration(_ attributes: [String: String]) -> ActivityTokenRegistration {
            ActivityTokenRegistration(
                deviceID: LiveLoop.deviceID, activityID: "receipt-8", token: Data(repeating: 0xAB, count: 32),
                environment: .sandbox, facts: facts, attributes: attributes)
        }
        // A key the type does not have is refused by name: so the attributes, not the id, reached the server.
        do {
            try await api.registerActivityToken(registration(["activityId": "receipt-8", "orderId": "x"]))
            Issue.record("the server took attributes it must refuse")
        } catch {
            #expect(error.status == 400 && error.message.contains("orderId"), "\(error)")
        }
        try await api.registerActivityToken(registration(["activityId": "receipt-8"]))
    }
}
