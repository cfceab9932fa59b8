import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackDoctor
import DropTrackEmulators
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// The dashboard's buttons: what a delivery app's backend would call, and a few deliberately
/// broken pushes that go to the emulator the way a misconfigured backend would send them.
public final class DemoDriver: Sendable {
    /// The deliberately broken pushes.
    public enum BrokenPush: String, CaseIterable, Sendable {
        /// `apns-topic` without `.push-type.liveactivity`.
        case topic
        /// An `eta` in Unix seconds where ActivityKit reads seconds since 2001.
        case unixDate = "unix-date"
        /// A push-to-start without `alert`.
        case startWithoutAlert = "no-alert"
        /// An update whose timestamp is older than the one the phone applied.
        case oldTimestamp = "old-timestamp"
    }

    struct Order {
        var activityID: String
        var step: DeliveryStep
        var courier: String
        /// Set once the server took its end; the buttons then act on no order until the next is placed.
        var ended = false
    }

    /// Why a place was refused: an order runs, and the page asks before ending it.
    struct OrderRunning: Error {
        var order: Order
        var answer: JSONValue {
            .object([
                "error": .object([
                    "code": .string("order_running"), "order": .string(order.activityID),
                    "message": .string(
                        "order \(order.activityID) is still running (\(order.step.status)): end it first, or confirm to end it and place a new one"
                    ),
                ])
            ])
        }
    }

    static let couriers = ["Sam", "Priya", "Diego", "Mei", "Tomás"]

    let api: DemoAPI
    let transport: any PushTransport
    let bundleID: String
    private let state = Mutex<(order: Order?, placed: Int, courier: Int)>((nil, 0, 0))

    init(api: DemoAPI, transport: any PushTransport, bundleID: String) {
        self.api = api
        self.transport = transport
        self.bundleID = bundleID
    }

    /// The current order's activity id, if any (it may have ended).
    public var currentActivity: String? { state.withLock { $0.order?.activityID } }

    /// The running order's activity id: nil before the first order and once it ended.
    public var runningActivity: String? { state.withLock { $0.order?.ended == false ? $0.order?.activityID : nil } }

    /// The current order for the page: its id, its step's status line, and whether it still runs.
    public var currentOrder: JSONValue {
        guard let order = state.withLock({ $0.order }) else { return .null }
        return .object([
            "id": .string(order.activityID), "status": .string(order.step.status), "running": .bool(!order.ended),
        ])
    }

    /// Places a new order: a push-to-start to the iPhone and a start to the Android phone. While an
    /// order runs it answers 409 `order_running` unless `replacing`, which ends that order first (at
    /// once, on both phones), so there is never a second running order the buttons cannot reach.
    @discardableResult
    public func place(replacing: Bool = false) -> (status: Int, body: JSONValue) {
        if replacing, runningActivity != nil {
            let ended = end(dismissal: "immediate")
            guard runningActivity == nil else { return ended }
        }
        // Checked and claimed under one lock, so two quick clicks cannot both start an order.
        let claim = state.withLock { state -> Result<(id: String, courier: String), OrderRunning> in
            if let order = state.order, !order.ended { return .failure(OrderRunning(order: order)) }
            state.placed += 1
            state.courier = 0
            let id = "A-\(1000 + state.placed)-\(String(UUID().uuidString.prefix(4)).lowercased())"
            state.order = Order(activityID: id, step: .placed, courier: Self.couriers[0])
            return .success((id, Self.couriers[0]))
        }
        let id: String
        let courier: String
        switch claim {
        case .success(let placed): (id, courier) = placed
        case .failure(let running): return (409, running.answer)
        }
        let answer = api.call(
            "POST", "/v1/activities",
            .object([
                "activityId": .string(id), "userId": .string(DemoStack.userID),
                "attributesType": .string(DeliveryAttributes.typeName), "attributes": .object(["orderId": .string(id)]),
                "event": .object([
                    "type": .string("delivery.step"),
                    "data": .object(["step": .string("placed"), "courierName": .string(courier)]),
                ]),
                "alert": .object(["title": .string("Order \(id) placed"), "body": .string("\(courier) is on it")]),
                "idempotencyKey": .string("demo-start-\(id)"),
            ]))
        // An order the server did not take does not run, so it cannot block the next one.
        if !(200..<300).contains(answer.status) { markEnded(id) }
        return answer
    }

    /// The next of the seven steps; the last stays on screen as a final update until `end`.
    @discardableResult
    public func next() -> (status: Int, body: JSONValue) {
        guard
            let (id, step) = state.withLock({ state -> (String, DeliveryStep)? in
                guard let order = state.order, !order.ended, let next = order.step.next else { return nil }
                state.order?.step = next
                return (order.activityID, next)
            })
        else { return (409, Self.message("place an order first: none runs, or it is already delivered")) }
        return api.call(
            "POST", "/v1/activities/\(id)/events",
            .object([
                "type": .string("delivery.step"), "data": .object(["step": .string(step.name)]),
                "terminal": .string("update"),
            ]))
    }

    /// Hands the order to another rider.
    @discardableResult
    public func reassign() -> (status: Int, body: JSONValue) {
        guard
            let (id, courier) = state.withLock({ state -> (String, String)? in
                guard let order = state.order, !order.ended else { return nil }
                state.courier = (state.courier + 1) % Self.couriers.count
                let courier = Self.couriers[state.courier == 0 ? 1 : state.courier]
                state.order?.courier = courier
                return (order.activityID, courier)
            })
        else { return (409, Self.message("place an order first")) }
        return api.call(
            "POST", "/v1/activities/\(id)/events",
            .object(["type": .string("delivery.reassign"), "data": .object(["courierName": .string(courier)])]))
    }

    /// Ends the delivery, by default with the default dismissal (it stays on the Lock Screen for up to
    /// 4 hours); `immediate` takes it off both phones at once.
    @discardableResult
    public func end(dismissal: String = "default") -> (status: Int, body: JSONValue) {
        guard let id = runningActivity else {
            return (409, Self.message("place an order first: none runs"))
        }
        let answer = api.call("POST", "/v1/activities/\(id)/end", .object(["dismissal": .string(dismissal)]))
        // Ended, or refused because the server holds no running activity of that id: either way it no
        // longer runs. Anything else (no answer, a 5xx) may pass, so the order stays.
        if (200..<500).contains(answer.status) { markEnded(id) }
        return answer
    }

    private func markEnded(_ id: String) {
        state.withLock { state in if state.order?.activityID == id { state.order?.ended = true } }
    }

    /// Sends `count` ETA updates to the running order, each once the server sent the one before (a
    /// burst would coalesce in the outbox into a few sends, and FCM would store only those). The ETA
    /// wavers within 2 minutes of the step's own, so the card still reads sensibly afterwards. Stops at
    /// the first update not sent within `timeout`. Answers how many were sent.
    func sendETAUpdates(count: Int, timeout: Duration) -> (status: Int, body: JSONValue) {
        guard let (id, step) = state.withLock({ $0.order.flatMap { $0.ended ? nil : ($0.activityID, $0.step) } }) else {
            return (409, Self.message("place an order first: none runs"))
        }
        var sent = 0
        for index in 0..<count {
            let minutes = step.minutesToArrival + index % 3
            let answer = api.call(
                "POST", "/v1/activities/\(id)/events",
                .object(["type": .string("delivery.eta"), "data": .object(["minutes": .number(Double(minutes))])]))
            guard answer.status == 200, waitUntilSent(activityID: id, timeout: timeout) else {
                return (answer.status == 200 ? 504 : answer.status, .object(["sent": .number(Double(sent))]))
            }
            sent += 1
        }
        return (200, .object(["sent": .number(Double(sent)), "activityId": .string(id)]))
    }

    /// Waits until the server has no unsent push for the activity, checking every 5 ms up to `timeout`.
    func waitUntilSent(activityID: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let pending = try? api.server.store.transaction {
                try $0.hasPendingOutbox(app: DemoStack.appID, activityId: activityID)
            }
            if pending == false { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// Sends one deliberately broken push to `device` (the iPhone's token for it), straight through
    /// the APNs client as a misconfigured backend would, and answers with APNs' status and the
    /// findings that name the trap.
    public func sendBroken(_ kind: BrokenPush, iphone: IPhoneSimulator) -> JSONValue {
        let now = Int64(Date().timeIntervalSince1970)
        let current = iphone.activities.last { $0.phase(at: Date()) != "dismissed" }
        var push: APNsPush
        switch kind {
        case .startWithoutAlert:
            guard let token = iphone.pushToStartToken(for: DeliveryAttributes.typeName) else {
                return Self.message("the iPhone has no push-to-start token")
            }
            let state = DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: Date())
            let payload: JSONValue = .object([
                "aps": .object([
                    "event": .string("start"), "timestamp": .number(Double(now)),
                    "attributes-type": .string(DeliveryAttributes.typeName),
                    "attributes": .object(["orderId": .string("NO-ALERT")]),
                    "content-state": (try? JSONValue.parse(LiveActivityJSON.encode(state))) ?? .null,
                ])
            ])
            push = APNsPush(deviceToken: token, bundleID: bundleID, payload: payload.serialized(), priority: 10)
        case .topic, .unixDate, .oldTimestamp:
            guard let current else { return Self.message("start an order first: this push goes to its update token") }
            var state = current.contentState.objectValue ?? [:]
            var timestamp = current.timestamp + 1
            if kind == .unixDate { state["eta"] = .number(Double(now + 15 * 60)) }
            if kind == .oldTimestamp { timestamp = current.timestamp - 120 }
            if kind == .topic { state["status"] = .string("Wrong topic") }
            let payload: JSONValue = .object([
                "aps": .object([
                    "event": .string("update"), "timestamp": .number(Double(timestamp)),
                    "content-state": .object(state),
                ])
            ])
            push = APNsPush(
                deviceToken: current.updateToken, bundleID: bundleID, payload: payload.serialized(), priority: 10)
            if kind == .topic { push.topic = bundleID }
        }
        let findings = Self.diagnose(
            push, now: Date(), lastTimestamp: kind == .startWithoutAlert ? nil : current?.timestamp)
        let outcome = waitForCallback(timeout: .seconds(10)) { done in
            transport.send(app: DemoStack.appID, apns: push, completion: done)
        }
        let findingList: [JSONValue] = findings.map { finding in
            .object([
                "trap": .string(finding.trap), "severity": .string(finding.severity.rawValue),
                "message": .string(finding.message), "fix": .string(finding.fix),
            ])
        }
        var answer: [String: JSONValue] = [:]
        answer["kind"] = .string(kind.rawValue)
        answer["destination"] = .string(push.destinationFingerprint)
        answer["status"] = .number(Double(outcome?.status ?? 0))
        answer["reason"] = .string(outcome?.reason ?? "timeout")
        answer["explanation"] = .string(outcome?.explanation ?? "no answer within 10 s")
        answer["findings"] = .array(findingList)
        return .object(answer)
    }

    /// What the doctor finds in a push, with what the demo knows: the clock, the delivery contract,
    /// and the last timestamp the activity was sent with.
    static func diagnose(_ push: APNsPush, now: Date, lastTimestamp: Int64?) -> [LintFinding] {
        // The demo's client signs with a key and adds `authorization` as it sends.
        var context = DoctorContext(
            now: Int64(now.timeIntervalSince1970), contract: DoctorContract.delivery,
            contracts: DoctorContract.builtIn,
            config: DoctorContext.Configuration(bundleId: push.bundleID, environment: .sandbox, authMode: .token))
        if let lastTimestamp { context.activity = DoctorContext.Activity(lastTimestampSent: lastTimestamp) }
        return Doctor.examine(DoctorPush(push), context: context)
    }

    static func message(_ text: String) -> JSONValue { .object(["error": .object(["message": .string(text)])]) }
}
