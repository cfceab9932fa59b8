import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation
import Testing

@Suite("Requests carry the raw device token; their descriptions do not")
struct DeviceTokenWireTests {
    static let apnsToken = "6a7b8c9d0e1f20314253647586970a1b2c3d4e5f60718293a4b5c6d7e8f90a1b"
    static let fcmToken = "fcm-registration:APA91bH7xQ2m5Rk9"
    static let liveActivityToken = "1f2e3d4c5b6a79880a1b2c3d4e5f6071"

    static func shown(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(reflecting: value), dumped]
    }

    @Test("an APNs push puts the token in its path and nowhere it would be printed")
    func apns() throws {
        let push = APNsPush(
            deviceToken: DeviceToken(Self.apnsToken), bundleID: "com.example.app", payload: Array("{}".utf8))
        #expect(push.path == "/3/device/\(Self.apnsToken)")
        #expect(push.destinationFingerprint == Fingerprint(of: Self.apnsToken).value)
        try push.validate()
        for text in Self.shown(push) { #expect(!text.contains(Self.apnsToken), "\(text)") }
        // The String convenience wraps the same token.
        let fromString = APNsPush(deviceToken: Self.apnsToken, bundleID: "com.example.app", payload: [])
        #expect(fromString.destination == .device(token: DeviceToken(Self.apnsToken)))
    }

    @Test("an FCM message puts the registration and Live Activity tokens in its body only")
    func fcm() throws {
        let message = try FCMMessage.liveActivity(
            registrationToken: DeviceToken(Self.fcmToken), liveActivityToken: DeviceToken(Self.liveActivityToken),
            payload: LiveActivityPayload(event: .update, timestamp: 1, contentState: ["n": 1]))
        let body = try JSONValue.parse(bytes: message.requestBody())
        #expect(body["message"]?["token"]?.stringValue == Self.fcmToken)
        #expect(body["message"]?["apns"]?["live_activity_token"]?.stringValue == Self.liveActivityToken)
        for text in Self.shown(message) {
            #expect(!text.contains(Self.fcmToken), "\(text)")
            #expect(!text.contains(Self.liveActivityToken), "\(text)")
        }
        #expect(FCMMessage(target: .token(Self.fcmToken)).target == .token(DeviceToken(Self.fcmToken)))
    }
}
