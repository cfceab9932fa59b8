import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackRuntime
import Foundation
import Synchronization

/// One event to N iOS 18 devices listening on a broadcast channel: the server sends one request,
/// APNs (the emulator) delivers it to every simulated device on the channel.
public enum BroadcastBench {
    /// What one run measured.
    public struct Figures: Sendable {
        public var subscribers: Int
        public var broadcastRequests: Int
        public var perTokenRequests: Int
        public var acceptSeconds: Double
        public var lastDeviceSeconds: Double
        public var devicesShowingState: Int
    }

    /// Runs the benchmark with `subscribers` simulated devices.
    public static func run(subscribers: Int, progress: ProgressReporter? = nil) throws -> Figures {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        let api = demo.driver.api
        let started = api.call(
            "POST", "/v1/activities",
            .object([
                "activityId": .string("final-whistle"), "userId": .string("stadium"),
                "attributesType": .string(DeliveryAttributes.typeName),
                "attributes": .object(["orderId": .string("final-whistle")]),
                "event": .object(["type": .string("delivery.step"), "data": .object(["step": .string("placed")])]),
                "alert": .object(["title": .string("Kick-off")]), "idempotencyKey": .string("bench-broadcast"),
                "broadcast": .object(["storagePolicy": .string("most-recent")]),
            ]))
        guard started.status == 201 else { throw DemoError("the broadcast activity did not start: \(started.body)") }
        let described = api.call("GET", "/v1/activities/final-whistle?timelineLimit=0").body
        guard let channel = demo.server.registry.channelOf(app: DemoStack.appID, activityId: "final-whistle") else {
            throw DemoError("the activity has no channel")
        }
        let state = described["contentState"] ?? .object([:])
        let timestamp = Int64(described["timestamp"]?.numberValue ?? 0)
        let phones = (0..<subscribers).map { index -> IPhoneSimulator in
            let phone = IPhoneSimulator(deviceID: "fan-\(index)", attributesTypes: [])
            phone.startLocally(
                attributesType: DeliveryAttributes.typeName, attributes: .object(["orderId": .string("final-whistle")]),
                contentState: state, channelID: channel, timestamp: timestamp)
            return phone
        }
        let lastApplied = Mutex<ContinuousClock.Instant?>(nil)
        demo.apns.addDeliveryListener { delivery in
            guard delivery.channelID == channel else { return }
            for phone in phones {
                phone.receiveBroadcast(channelID: channel, payload: delivery.payload, priority: delivery.priority)
            }
            lastApplied.withLock { $0 = .now }
        }
        let before = demo.apns.records(after: 0).count
        let clock = ContinuousClock.now
        let event = api.call(
            "POST", "/v1/activities/final-whistle/events",
            .object(["type": .string("delivery.step"), "data": .object(["step": .string("picked_up")])]))
        let accepted = ContinuousClock.now - clock
        guard event.status == 200 else { throw DemoError("the event was refused: \(event.body)") }
        let target = event.body["contentState"] ?? .null
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, lastApplied.withLock({ $0 }) == nil { usleep(1000) }
        let records = demo.apns.records(after: 0).dropFirst(before)
        let showing = phones.filter { $0.activities.first?.contentState == target }.count
        progress?.advance(by: showing)
        let last = (lastApplied.withLock { $0 } ?? .now) - clock
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return Figures(
            subscribers: subscribers, broadcastRequests: records.filter { $0.kind == "broadcast" }.count,
            perTokenRequests: records.filter { $0.kind == "device" }.count, acceptSeconds: seconds(accepted),
            lastDeviceSeconds: seconds(last), devicesShowingState: showing)
    }
}
