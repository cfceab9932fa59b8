import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackModel
import Foundation
import Synchronization
import Testing

/// Builds APNs payloads for the simulator tests.
private enum Push {
    static let clock = ManualWallClock(unixSeconds: 1_796_000_000)

    static func state(_ step: DeliveryStep, courier: String = "Sam", eta: Double? = nil) -> JSONValue {
        var value = try! JSONValue.parse(
            LiveActivityJSON.encode(step.contentState(courierName: courier, riderReassigned: false, at: clock.now())))
        if let eta, case .object(var object) = value {
            object["eta"] = .number(eta)
            value = .object(object)
        }
        return value
    }

    static func start(_ orderID: String = "A-1", alert: Bool = true, type: String = "DeliveryAttributes") -> [UInt8] {
        var aps: [String: JSONValue] = [
            "event": .string("start"), "timestamp": .number(1_796_000_000), "attributes-type": .string(type),
            "attributes": .object(["orderId": .string(orderID)]), "content-state": state(.placed),
        ]
        if alert { aps["alert"] = .object(["title": .string("Order placed")]) }
        return JSONValue.object(["aps": .object(aps)]).serialized()
    }

    static func update(
        _ step: DeliveryStep, timestamp: Int64, event: String = "update", extra: [String: JSONValue] = [:],
        state override: JSONValue? = nil
    ) -> [UInt8] {
        var aps: [String: JSONValue] = [
            "event": .string(event), "timestamp": .number(Double(timestamp)),
            "content-state": override ?? state(step),
        ]
        aps.merge(extra) { _, new in new }
        return JSONValue.object(["aps": .object(aps)]).serialized()
    }
}

/// Collects the tokens a simulated phone reports.
final class TokenLog: Sendable {
    let events = Mutex<[IPhoneSimulator.TokenEvent]>([])
    func record(_ event: IPhoneSimulator.TokenEvent) { events.withLock { $0.append(event) } }
    var updateTokens: [DeviceToken] {
        events.withLock {
            $0.compactMap {
                if case .activity(_, _, _, let token) = $0 { return token }
                return nil
            }
        }
    }
}

@Suite("The simulated iPhone applies ActivityKit's rules")
struct IPhoneSimulatorTests {
    func phone(_ settings: IPhoneSettings = .init()) -> (IPhoneSimulator, TokenLog, ManualWallClock) {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let log = TokenLog()
        let phone = IPhoneSimulator(deviceID: "p", settings: settings, clock: clock) { log.record($0) }
        return (phone, log, clock)
    }

    func started(_ settings: IPhoneSettings = .init()) throws -> (
        IPhoneSimulator, TokenLog, ManualWallClock, DeviceToken
    ) {
        let (phone, log, clock) = phone(settings)
        phone.receive(
            token: try #require(phone.pushToStartToken(for: "DeliveryAttributes")), payload: Push.start(), priority: 10)
        return (phone, log, clock, try #require(log.updateTokens.first))
    }

    @Test("push-to-start creates the activity and reports a new update token; token rotation reports another")
    func startAndRotate() throws {
        let (phone, log, _, token) = try started()
        phone.registerPushToStartTokens()
        #expect(log.events.withLock { $0.contains { if case .pushToStart = $0 { true } else { false } } })
        let activity = try #require(phone.activities.first)
        #expect(activity.attributes["orderId"]?.stringValue == "A-1" && activity.updateToken == token)
        #expect(activity.lastAlert == "Order placed")
        phone.rotateToken(activityID: activity.id)
        #expect(log.updateTokens.count == 2 && log.updateTokens[1] != token)
        phone.receive(
            token: log.updateTokens[1], payload: Push.update(.confirmed, timestamp: 1_796_000_001), priority: 5)
        #expect(phone.activities.first?.contentState == Push.state(.confirmed))
        #expect(phone.drops.isEmpty)
    }

    @Test("an update older than the one applied is dropped, and the newer state stays")
    func olderUpdate() throws {
        let (phone, _, _, token) = try started()
        phone.receive(token: token, payload: Push.update(.preparing, timestamp: 1_796_000_010), priority: 5)
        phone.receive(token: token, payload: Push.update(.confirmed, timestamp: 1_796_000_005), priority: 5)
        phone.receive(token: token, payload: Push.update(.confirmed, timestamp: 1_796_000_010), priority: 5)
        #expect(phone.activities.first?.contentState == Push.state(.preparing))
        #expect(phone.drops.map(\.trap) == ["DT-020", "DT-020"])
    }

    @Test("content-state that does not decode, or with a Unix date, is dropped with the reason")
    func undecodable() throws {
        let (phone, _, _, token) = try started()
        phone.receive(
            token: token,
            payload: Push.update(.confirmed, timestamp: 1_796_000_001, state: .object(["status": .string("x")])),
            priority: 5)
        phone.receive(
            token: token,
            payload: Push.update(.confirmed, timestamp: 1_796_000_002, state: Push.state(.confirmed, eta: 1.8e9)),
            priority: 5)
        #expect(phone.drops.map(\.trap) == ["DT-013", "DT-017"])
        #expect(phone.drops[1].reason.contains("31 years"))
        #expect(phone.activities.first?.contentState == Push.state(.placed))
    }

    @Test("a push over 4 KB is dropped")
    func oversize() throws {
        let (phone, _, _, token) = try started()
        let padding = JSONValue.string(String(repeating: "x", count: 4100))
        phone.receive(
            token: token, payload: Push.update(.confirmed, timestamp: 1_796_000_001, extra: ["pad": padding]),
            priority: 5)
        #expect(phone.drops.map(\.trap) == ["DT-024"])
    }

    @Test("stale-date makes it stale; the end keeps it for 4 hours, or dismisses it at once or at a date")
    func staleAndDismissal() throws {
        let (phone, _, clock, token) = try started()
        phone.receive(
            token: token,
            payload: Push.update(.confirmed, timestamp: 1_796_000_001, extra: ["stale-date": .number(1_796_000_060)]),
            priority: 5)
        #expect(phone.activities[0].phase(at: clock.now()) == "active")
        clock.advance(by: 61)
        #expect(phone.activities[0].phase(at: clock.now()) == "stale")
        phone.receive(
            token: token, payload: Push.update(.delivered, timestamp: 1_796_000_100, event: "end"), priority: 10)
        #expect(phone.activities[0].phase(at: clock.now()) == "ended")
        clock.advance(by: 4 * 3600 + 1)
        #expect(phone.activities[0].phase(at: clock.now()) == "dismissed")

        let (second, _, secondClock, secondToken) = try started()
        second.receive(
            token: secondToken,
            payload: Push.update(
                .delivered, timestamp: 1_796_000_100, event: "end", extra: ["dismissal-date": .number(1_796_000_000)]),
            priority: 10)
        #expect(second.activities[0].phase(at: secondClock.now()) == "dismissed")
        second.receive(token: secondToken, payload: Push.update(.delivered, timestamp: 1_796_000_200), priority: 5)
        #expect(second.drops.map(\.trap) == ["DT-037"], "nothing applies after the end")
    }

    @Test("an activity lasts at most 8 hours")
    func eightHours() throws {
        let (phone, _, clock, token) = try started()
        clock.advance(by: 8 * 3600)
        #expect(phone.activities[0].phase(at: clock.now()) == "ended")
        phone.receive(token: token, payload: Push.update(.confirmed, timestamp: 1_796_030_000), priority: 5)
        #expect(phone.drops.map(\.trap) == ["DT-037"])
    }

    @Test("priority-10 updates beyond the budget are held back; priority 5 is not counted")
    func budget() throws {
        let (phone, _, _, token) = try started(IPhoneSettings(priority10Budget: 2))
        for index in 1...3 {
            phone.receive(
                token: token, payload: Push.update(.confirmed, timestamp: 1_796_000_000 + Int64(index)), priority: 10)
        }
        phone.receive(token: token, payload: Push.update(.preparing, timestamp: 1_796_000_010), priority: 5)
        #expect(phone.drops.map(\.trap) == ["DT-050"])
        #expect(phone.activities[0].contentState == Push.state(.preparing))
    }

    @Test("DT-081: a local update and pushes share one timestamp order; a push stamped before it is ignored")
    func localUpdateOrder() throws {
        let (phone, _, _, token) = try started()
        let id = try #require(phone.activities.first?.id)
        phone.receive(token: token, payload: Push.update(.confirmed, timestamp: 1_796_000_010), priority: 5)
        #expect(phone.localUpdate(activityId: id, contentState: Push.state(.preparing), timestamp: 1_796_000_020))
        #expect(phone.activities[0].contentState == Push.state(.preparing))
        phone.receive(token: token, payload: Push.update(.pickedUp, timestamp: 1_796_000_015), priority: 5)
        #expect(phone.activities[0].contentState == Push.state(.preparing), "the local update still shows")
        #expect(phone.drops.map(\.trap) == ["DT-081"])
        #expect(phone.drops[0].reason.contains("local update stamped 1796000020"))
        #expect(!phone.localUpdate(activityId: id, contentState: Push.state(.confirmed), timestamp: 1_796_000_018))
        #expect(phone.drops.last?.trap == "DT-081" && phone.drops.last?.event == "local-update")
        phone.receive(token: token, payload: Push.update(.onTheWay, timestamp: 1_796_000_030), priority: 5)
        #expect(phone.activities[0].contentState == Push.state(.onTheWay))
        phone.receive(token: token, payload: Push.update(.nearby, timestamp: 1_796_000_025), priority: 5)
        #expect(phone.drops.last?.trap == "DT-020", "once a push is newest, push-vs-push ordering is DT-020 again")
        phone.receive(
            token: token, payload: Push.update(.delivered, timestamp: 1_796_000_040, event: "end"), priority: 10)
        #expect(!phone.localUpdate(activityId: id, contentState: Push.state(.nearby), timestamp: 1_796_000_050))
        #expect(phone.drops.last?.trap == "DT-081" && phone.drops.last?.reason.contains("ended") == true)
        #expect(phone.activities[0].contentState == Push.state(.delivered))
    }

    @Test("with Live Activities off a start is refused; a start without alert or attributes is dropped")
    func refusedStarts() throws {
        let (off, offLog, _) = phone(IPhoneSettings(liveActivitiesEnabled: false))
        off.receive(
            token: try #require(off.pushToStartToken(for: "DeliveryAttributes")), payload: Push.start(), priority: 10)
        #expect(off.activities.isEmpty && offLog.updateTokens.isEmpty)
        #expect(off.drops.map(\.trap) == ["DT-048"])
        let (on, _, _) = phone()
        let token = try #require(on.pushToStartToken(for: "DeliveryAttributes"))
        on.receive(token: token, payload: Push.start(alert: false), priority: 10)
        on.receive(token: token, payload: Push.start(type: "PizzaAttributes"), priority: 10)
        #expect(on.drops.map(\.trap) == ["DT-025", "DT-026"])
        #expect(on.activities.isEmpty)
    }

    @Test("the phone's tokens print as fingerprints; wireValue is the token itself")
    func tokensPrintAsFingerprints() throws {
        let (phone, log, _, token) = try started()
        let pushToStart = try #require(phone.pushToStartToken(for: "DeliveryAttributes"))
        #expect(token.wireValue.count == 160 && pushToStart.wireValue.count == 64)
        #expect(phone.tokens == [token, pushToStart])
        let printed =
            "\(phone.activities) \(phone.tokens) \(phone.pushToStartTokensByType) \(log.events.withLock { $0 })"
        #expect(!printed.contains(token.wireValue) && !printed.contains(pushToStart.wireValue))
        #expect(printed.contains(token.fingerprint.value) && printed.contains(pushToStart.fingerprint.value))
    }

    @Test("an activity encodes as it always did, its update token as the hex string, and decodes back")
    func activityCodable() throws {
        let (phone, _, _, token) = try started()
        let activity = try #require(phone.activities.first)
        let data = try JSONEncoder().encode(activity)
        let object = try JSONValue.parse(bytes: Array(data))
        #expect(object["updateToken"]?.stringValue == token.wireValue)
        #expect(try JSONDecoder().decode(SimulatedActivity.self, from: data) == activity)
    }
}
