import DropTrackContract
import DropTrackCore
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
    /// configure; onCredentialNeeded answered with a credential the backend minted; the push-to-start token
    /// registered for the user; onToken naming its fingerprint; a start the backend makes reaching it.
    @Test("configure against the server: the push-to-start token is registered for the user and named in onToken")
    func againstTheServer() async throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let pushed = Mutex<[String]>([])
        server.apns.emulator.addDeliveryListener { delivery in
            if let token = delivery.token { pushed.withLock { $0.append(token.wireValue.lowercased()) } }
        }
        let userID = "expo-user-\(UUID().uuidString.prefix(8))"
        let deviceID = "expo-iphone-\(UUID().uuidString.prefix(8))"
        let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let fingerprint = TokenFingerprint(token: token).server

        let loaded = Loaded()
        Activity<DeliveryAttributes>.simulatePushToStartToken(token)
        _ = try await loaded.definition.call(
            "configure", ["http://127.0.0.1:\(server.port)", userID, deviceID, "sandbox"])
        defer { loaded.definition.run(.moduleDestroy) }

        // What the app's JavaScript does on onCredentialNeeded: ask its backend, which mints with its API key.
        #expect(await waitFor { loaded.sent("onCredentialNeeded").first?["reason"] == "start" })
        let minted = try server.call(
            "POST", "/v1/device-credentials", #"{"userId":"\#(userID)","ttlSeconds":600}"#, key: "key-app1")
        let credential = try #require(minted.body["credential"]?.stringValue, "minted: \(minted.text)")
        _ = try await loaded.definition.call("setDeviceCredential", [credential])

        #expect(
            await waitFor {
                loaded.sent("onToken").contains {
                    $0["fingerprint"] == fingerprint && $0["kind"] == "push_to_start" && $0["status"] == "registered"
                }
            })
        let everything = loaded.events.all.map { "\($0.name) \($0.body)" }.joined(separator: "\n")
        #expect(!everything.contains(token.map { String(format: "%02x", $0) }.joined()), "a token reached JavaScript")
        #expect(!everything.contains(credential), "a credential reached JavaScript's events")

        // The server has it for this user: a delivery the backend starts for the user push-starts on it.
        let start = try server.call(
            "POST", "/v1/activities",
            #"""
            {"activityId":"expo-order-1","userId":"\#(userID)","attributesType":"DeliveryAttributes",
             "attributes":{"orderId":"expo-order-1"},
             "event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},
             "alert":{"title":"Order placed","body":"Sam is on it"},"idempotencyKey":"start-expo-order-1"}
            """#)
        #expect(start.status == 201, "\(start.text)")
        let hex = token.map { String(format: "%02x", $0) }.joined()
        #expect(await waitFor { pushed.withLock { $0.contains(hex) } })

        // The push starts the activity on the phone (the look-alike plays the system); its update token is
        // registered and named in onToken.
        let state = try DeliveryStateConversion.contentState(DeliveryStateConversionTests.state())
        let activity = Activity<DeliveryAttributes>.simulateRemoteStart(
            attributes: DeliveryAttributes(orderId: "expo-order-1"),
            content: ActivityContent(state: state, staleDate: nil))
        let updateToken = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        activity.simulatePushToken(updateToken)
        #expect(
            await waitFor {
                loaded.sent("onToken").contains {
                    $0["kind"] == "activity" && $0["activityId"] == "expo-order-1"
                        && $0["fingerprint"] == TokenFingerprint(token: updateToken).server
                }
            })

        // The backend ends it while the phone hears nothing: reconcile ends it on the phone.
        #expect(try server.call("POST", "/v1/activities/expo-order-1/end", #"{"dismissal":"immediate"}"#).status == 200)
        let report = try #require(try await loaded.definition.call("reconcile") as? [String: any Sendable])
        #expect(report["endedLocally"] as? [String] == ["expo-order-1"], "\(report)")
        #expect(report["reportedLost"] as? [String] == [])
        #expect(activity.activityState != .active)

        let settings = try SyncSettings(
            serverURL: "http://127.0.0.1:\(server.port)", userID: userID, deviceID: deviceID,
            apnsEnvironment: "sandbox")
        let base = try FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        try? FileManager.default.removeItem(at: settings.ledgerDirectory(under: base))
    }
}
