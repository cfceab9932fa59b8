import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackLive
import DropTrackModel
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@testable import DropTrackExpo

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif
#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

extension ExpoModuleTests {
    /// The receipt write-up's app: expo-widgets patched so `LiveActivityAttributes` carries `activityId`,
    /// and its schema declaring `activityIdAttribute`. An activity started by push is seen by the module,
    /// which registers its update token by that attribute; the server's next update reaches it.
    @Test("a push-started expo-widgets activity's update token is registered by its activityId and reaches it")
    func expoWidgetsTokenByAttributes() async throws {
        let server = try ServerHarness(deviceKeys: true) {
            $0.apps[0].schemas?["Receipt"] = AttributesSchema(
                contentState: ["stage": .init(type: "string")], output: "expo-widgets", widgetName: "ReceiptWidget",
                activityIdAttribute: true)
        }
        defer { server.stop() }
        let pushed = Mutex<[String]>([])
        server.apns.emulator.addDeliveryListener { delivery in
            if let token = delivery.token { pushed.withLock { $0.append(token.wireValue.lowercased()) } }
        }
        let userID = "receipt-user-\(UUID().uuidString.prefix(8))"
        let activityID = "receipt-\(UUID().uuidString.prefix(8))"
        let loaded = Loaded()
        _ = try await loaded.definition.call(
            "configure", ["http://127.0.0.1:\(server.port)", userID, "receipt-iphone", "sandbox"])
        defer { loaded.definition.run(.moduleDestroy) }
        #expect(await waitFor { !loaded.sent("onCredentialNeeded").isEmpty })
        let minted = try server.call(
            "POST", "/v1/device-credentials", #"{"userId":"\#(userID)","ttlSeconds":600}"#, key: "key-app1")
        _ = try await loaded.definition.call(
            "setDeviceCredential", [try #require(minted.body["credential"]?.stringValue)])

        let started = try server.call(
            "POST", "/v1/activities",
            #"{"activityId":"\#(activityID)","userId":"\#(userID)","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"\#(activityID)"}"#
        )
        #expect(started.status == 201, "\(started.text)")

        // The system starts it from the push-to-start (the look-alike plays the system) and issues its token.
        let activity = Activity<LiveActivityAttributes>.simulateRemoteStart(
            attributes: LiveActivityAttributes(url: nil, activityId: activityID),
            content: ActivityContent(
                state: LiveActivityAttributes.ContentState(name: "ReceiptWidget", props: #"{"stage":"processing"}"#),
                staleDate: nil))
        defer { activity.simulateState(.dismissed) }
        let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        activity.simulatePushToken(token)
        #expect(
            await waitFor {
                loaded.sent("onToken").contains {
                    $0["kind"] == "activity" && $0["activityId"] == activityID
                        && $0["fingerprint"] == TokenFingerprint(token: token).server
                }
            }, "\(loaded.events.all.map { "\($0.name) \($0.body)" })")

        let updated = try server.call(
            "PATCH", "/v1/activities/\(activityID)", #"{"contentState":{"stage":"completed"}}"#)
        #expect(updated.status == 200, "\(updated.text)")
        let hex = token.map { String(format: "%02x", $0) }.joined()
        #expect(await waitFor { pushed.withLock { $0.contains(hex) } }, "the update went to the registered token")
    }
}
