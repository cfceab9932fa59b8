import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import Foundation
import Synchronization
import Testing

@Suite("The simulated iPhone announces tokens and phases as ActivityKit does")
struct IPhoneSimulatorChangesTests {
    static func payload(_ aps: [String: JSONValue]) -> [UInt8] { JSONValue.object(["aps": .object(aps)]).serialized() }

    @Test("a push-to-start issues a token to onToken and changes(); an end push and a dismissal change the phase")
    func changes() async throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let heard = TokenLog()
        let phone = IPhoneSimulator(deviceID: "p", clock: clock) { heard.record($0) }
        var changes = phone.changes().makeAsyncIterator()
        let state = try JSONValue.parse(
            LiveActivityJSON.encode(
                DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: clock.now())))
        phone.receive(
            token: try #require(phone.pushToStartToken(for: DeliveryAttributes.typeName)),
            payload: Self.payload([
                "event": .string("start"), "timestamp": .number(1_796_000_000),
                "attributes-type": .string(DeliveryAttributes.typeName),
                "attributes": .object(["orderId": .string("A-1")]), "content-state": state,
                "alert": .object(["title": .string("Placed")]),
            ]), priority: 10)
        let token = try #require(heard.updateTokens.first)
        let id = try #require(phone.activities.first?.id)
        #expect(
            await changes.next()
                == .token(
                    .activity(
                        activityID: id, attributesType: DeliveryAttributes.typeName,
                        attributes: .object(["orderId": .string("A-1")]), token: token)))

        phone.receive(
            token: token,
            payload: Self.payload([
                "event": .string("end"), "timestamp": .number(1_796_000_001), "content-state": state,
            ]), priority: 10)
        #expect(await changes.next() == .phase(activityID: id, phase: "ended"))
        phone.dismiss(activityID: id)
        #expect(await changes.next() == .phase(activityID: id, phase: "dismissed"))
        #expect(heard.events.withLock { $0.count } == 1, "onToken heard the new activity's token only")
    }
}
