import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A channel subscription supersedes its device's update tokens for the activity (it would get every
/// version twice otherwise). The device is the one the body names: a member of a shared activity
/// naming another member's device used to invalidate that member's update token.
@Suite("A member of a shared activity registers tokens for its own devices only")
struct MemberDeviceTests {
    @Test(
        "a subscription or update token naming another member's device is refused (403 other_device); its token stays valid"
    )
    func otherMembersDevice() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let (memberA, memberB) = (try server.credential(user: "uA"), try server.credential(user: "uB"))
        // Each member's phone holds its user's push-to-start token: that is how the start reached it.
        for (credential, device) in [(memberA, "dA"), (memberB, "dB")] {
            let registered = try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"deviceId":"\#(device)","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                key: credential)
            #expect(registered.status == 201, "\(registered.text)")
        }
        let start = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(
                of: #""userId":"u1""#,
                with: #""audience":{"userIds":["uA","uB"]},"broadcast":{"storagePolicy":"no-storage"}"#))
        #expect(start.status == 201, "\(start.text)")
        let tokenB = APNsHarness.randomToken()
        let updateB = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-9","deviceId":"dB","token":"\#(tokenB)","environment":"sandbox"}"#, key: memberB)
        #expect(updateB.status == 201, "\(updateB.text)")
        let stateB = {
            try server.store.transaction { try $0.token(app: "app1", fingerprint: Fingerprint(of: tokenB)) }
        }

        let update = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-9","deviceId":"dB","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
            key: memberA)
        #expect(update.status == 403 && update.errorCode == "other_device", "\(update.text)")
        // The refusal names the field and the fix, and never echoes the token.
        #expect(update.errorField == "deviceId", "\(update.text)")
        #expect(
            update.body["error"]?["message"]?.stringValue?.contains("send this device's id") == true, "\(update.text)")
        let afterUpdate = try stateB()
        #expect(afterUpdate?.isValid == true, "\(String(describing: afterUpdate?.invalidReason))")
        let subscription = try server.call(
            "POST", "/v1/tokens/channel-subscription", #"{"activityId":"order-9","deviceId":"dB"}"#, key: memberA)
        #expect(
            subscription.status == 403 && subscription.errorCode == "other_device"
                && subscription.errorField == "deviceId", "\(subscription.text)")
        let afterOthers = try stateB()
        #expect(afterOthers?.isValid == true, "\(String(describing: afterOthers?.invalidReason))")

        // Its own device subscribes; member B's own subscription supersedes B's update token, as ever.
        let own = try server.call(
            "POST", "/v1/tokens/channel-subscription", #"{"activityId":"order-9","deviceId":"dA"}"#, key: memberA)
        #expect(own.status == 201, "\(own.text)")
        #expect(try stateB()?.isValid == true)
        let ownB = try server.call(
            "POST", "/v1/tokens/channel-subscription", #"{"activityId":"order-9","deviceId":"dB"}"#, key: memberB)
        #expect(ownB.status == 201, "\(ownB.text)")
        #expect(try stateB()?.invalidReason == .subscribedToChannel)
    }
}
