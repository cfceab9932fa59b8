import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// The receipt write-up's app: its expo-widgets is patched so that `LiveActivityAttributes` carries
/// `activityId`, and its schema `Receipt` declares so. The phone keeps the tokens it is given; the test
/// registers them over HTTP with the user's device credential, as the app would.
final class PatchedExpoPhone: Sendable {
    let server: ServerHarness
    let phone: IPhoneSimulator
    let credential: String
    private let log = TokenLog()

    init() throws {
        let server = try ServerHarness(deviceKeys: true) {
            $0.apps[0].schemas?["Receipt"] = AttributesSchema(
                contentState: ["stage": .init(type: "string")], output: "expo-widgets", widgetName: "ReceiptWidget",
                activityIdAttribute: true)
        }
        self.server = server
        credential = try server.credential(user: "shopper")
        let log = self.log
        phone = IPhoneSimulator(deviceID: "receipt-phone", attributesTypes: [ExpoWidgetsAttributes.typeName]) {
            event in log.events.withLock { $0.append(event) }
        }
        let phone = self.phone
        server.apns.emulator.addDeliveryListener { delivery in
            if let token = delivery.token, phone.tokens.contains(token) {
                phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
            }
        }
        phone.registerPushToStartTokens()
    }

    /// The token events the phone raised so far.
    var tokenEvents: [IPhoneSimulator.TokenEvent] { log.events.withLock { $0 } }

    /// Registers the phone's push-to-start token for `LiveActivityAttributes` with the credential.
    func registerPushToStart() throws -> APIAnswer {
        guard case .pushToStart(let type, let token) = tokenEvents.first else {
            throw CocoaError(.featureUnsupported)
        }
        return try server.call(
            "POST", "/v1/tokens/push-to-start",
            #"{"deviceId":"receipt-phone","token":"\#(token.wireValue)","environment":"sandbox","attributesType":"\#(type)"}"#,
            key: credential)
    }

    /// Registers an update token the way the patched app does: with the attributes it reads from
    /// the activity (`extra` adds fields to the body).
    func registerUpdateToken(attributes: JSONValue, token: DeviceToken, extra: String = "") throws -> APIAnswer {
        let body =
            #"{"deviceId":"receipt-phone","token":"\#(token.wireValue)","environment":"sandbox","attributes":"#
            + String(decoding: attributes.serialized(), as: UTF8.self) + extra + "}"
        return try server.call("POST", "/v1/tokens/activity", body, key: credential)
    }
}

/// The token events a phone raised, kept for the test to register.
final class TokenLog: Sendable {
    let events = Mutex<[IPhoneSimulator.TokenEvent]>([])
}

@Suite(
    "A patched expo-widgets carries activityId in LiveActivityAttributes: sent at push-to-start, matched at registration"
)
struct ExpoActivityIdTests {
    @Test(
        "a push-to-start carries the server's activity id in attributes, and the token the app reports with it updates that activity"
    )
    func startedByPushAndMatched() throws {
        let expo = try PatchedExpoPhone()
        defer { expo.server.stop() }
        #expect(try expo.registerPushToStart().status == 201)
        let started = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-7","userId":"shopper","attributesType":"Receipt","attributes":{"url":"shop://r/7"},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r7"}"#
        )
        #expect(started.status == 201, "\(started.text)")
        try expo.server.drain()

        let push = try #require(expo.server.apns.emulator.records.last?.payload, "no push-to-start reached APNs")
        #expect(push["aps"]?["event"] == .string("start"))
        #expect(push["aps"]?["attributes-type"] == .string("LiveActivityAttributes"))
        #expect(
            push["aps"]?["attributes"] == .object(["activityId": .string("receipt-7"), "url": .string("shop://r/7")]))

        let shown = try #require(expo.phone.activities.first, "drops: \(expo.phone.drops)")
        #expect(shown.attributes["activityId"] == .string("receipt-7"), "the phone decodes it from the attributes")
        guard case .activity(_, _, let attributes, let token) = try #require(expo.tokenEvents.last) else {
            Issue.record("the push-started activity issued no update token: \(expo.tokenEvents)")
            return
        }
        let registered = try expo.registerUpdateToken(attributes: attributes, token: token)
        #expect(registered.status == 201, "\(registered.text)")

        let updated = try expo.server.call(
            "PATCH", "/v1/activities/receipt-7", #"{"contentState":{"stage":"completed"}}"#)
        #expect(updated.status == 200, "\(updated.text)")
        try expo.server.drain()
        #expect(
            expo.phone.activities.first?.contentState
                == .object(["name": .string("ReceiptWidget"), "props": .string(#"{"stage":"completed"}"#)]),
            "the update reached the activity through the token matched by its attributes")
        #expect(expo.phone.drops.isEmpty, "\(expo.phone.drops)")
    }

    @Test("the phone's attributes must agree with activityId, and another user's activity is not found")
    func registrationRefusals() throws {
        let expo = try PatchedExpoPhone()
        defer { expo.server.stop() }
        #expect(try expo.registerPushToStart().status == 201)
        _ = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-8","userId":"shopper","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r8"}"#
        )
        _ = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-9","userId":"shopper","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r9"}"#
        )
        _ = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"theirs","userId":"other","attributesType":"Receipt","attributes":{},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"other"}"#
        )
        try expo.server.drain()
        let token = DeviceToken(String(repeating: "ab", count: 32))
        let disagree = try expo.registerUpdateToken(
            attributes: .object(["activityId": .string("receipt-8")]), token: token,
            extra: #","activityId":"receipt-9""#)
        #expect(disagree.status == 422 && disagree.errorField == "attributes.activityId", "\(disagree.text)")
        let unknownKey = try expo.registerUpdateToken(
            attributes: .object(["activityId": .string("receipt-8"), "orderId": .string("x")]), token: token)
        #expect(unknownKey.errorField == "attributes.orderId", "\(unknownKey.text)")
        let null = try expo.registerUpdateToken(attributes: .null, token: token, extra: #","activityId":"receipt-8""#)
        #expect(null.status == 400 && null.errorField == "attributes", "as published: an object or absent")
        let other = try expo.registerUpdateToken(attributes: .object(["activityId": .string("theirs")]), token: token)
        #expect(other.status == 404 && other.errorField == "activityId", "\(other.text)")
    }

    @Test(
        "a start's attributes.activityId is refused unless the schema declares activityIdAttribute, and must be the activity's own"
    )
    func startRefusals() throws {
        let expo = try PatchedExpoPhone()
        defer { expo.server.stop() }
        #expect(try expo.registerPushToStart().status == 201)
        let undeclared = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"tea","userId":"shopper","attributesType":"TimerAttributes","attributes":{"activityId":"tea"},"contentState":{"label":"Tea"},"alert":{"title":"Go"},"idempotencyKey":"tea"}"#
        )
        #expect(undeclared.status == 422 && undeclared.errorField == "attributes.activityId", "\(undeclared.text)")
        #expect(undeclared.text.contains("activityIdAttribute"), "the refusal names the schema option")
        let otherId = try expo.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"receipt-2","userId":"shopper","attributesType":"Receipt","attributes":{"activityId":"receipt-1"},"contentState":{"stage":"processing"},"alert":{"title":"Receipt"},"idempotencyKey":"r9"}"#
        )
        #expect(otherId.status == 422 && otherId.errorField == "attributes.activityId", "\(otherId.text)")
        try expo.server.drain()
        #expect(expo.server.apns.emulator.records.isEmpty, "nothing refused reaches APNs")
    }
}
