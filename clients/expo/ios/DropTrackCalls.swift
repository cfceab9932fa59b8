import DropTrackContract
import DropTrackLive
import Foundation

/// Sends an event to JavaScript (`BaseModule.sendEvent`).
typealias DropTrackSendEvent = @Sendable (_ name: String, _ body: [String: any Sendable]) -> Void

/// What each JavaScript call does, behind the module: `LiveCalls` where the phone has ActivityKit's
/// iOS 16.2 API, `UnsupportedCalls` below it. The module itself must be available at Expo's default
/// deployment target (15.1), because Expo's generated module provider lists it unconditionally; so
/// it picks one of these at run time rather than being marked iOS 16.2.
protocol DropTrackCalls: Sendable {
    var isSupported: Bool { get }
    func areActivitiesEnabled() -> Bool
    func configure(_ settings: SyncSettings) async throws
    func supplyCredential(_ credential: String) async
    func reconcile() async throws -> [String: any Sendable]
    func startDelivery(orderID: String, state: [String: Any]) throws -> String
    func updateDelivery(_ id: String, state: [String: Any]) async throws -> Bool
    func endDelivery(_ id: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws
    func runningActivities() -> [[String: any Sendable]]
    func appBecameActive() async
    func stop() async
}

/// The calls on a phone with iOS 16.2 or later: the sync and the delivery activities.
@available(iOS 16.2, *)
struct LiveCalls: DropTrackCalls {
    let session: DropTrackSession
    let deliveries = DeliveryActivities()

    init(sendEvent: @escaping DropTrackSendEvent) {
        session = DropTrackSession(sendEvent: sendEvent)
    }

    var isSupported: Bool { deliveries.bridge.isSupported }
    func areActivitiesEnabled() -> Bool { deliveries.bridge.areActivitiesEnabled }
    func configure(_ settings: SyncSettings) async throws { try await session.configure(settings) }
    func supplyCredential(_ credential: String) async { await session.supplyCredential(credential) }
    func reconcile() async throws -> [String: any Sendable] { try await session.reconcile() }

    func startDelivery(orderID: String, state: [String: Any]) throws -> String {
        try deliveries.start(orderID: orderID, state: state)
    }

    func updateDelivery(_ id: String, state: [String: Any]) async throws -> Bool {
        try await deliveries.update(id, state: state)
    }

    func endDelivery(_ id: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws {
        try await deliveries.end(id, state: state, dismissAfterSeconds: dismissAfterSeconds)
    }

    func runningActivities() -> [[String: any Sendable]] { deliveries.runningActivities() }
    func appBecameActive() async { await session.appBecameActive() }
    func stop() async { await session.stop() }
}

/// The calls on a phone below iOS 16.2, which has no Live Activity DropTrack can keep current: nothing
/// runs, configuring and reconciling do nothing, and starting a delivery says why it cannot.
struct UnsupportedCalls: DropTrackCalls {
    /// The phone's iOS version, for the error (e.g. "15.8").
    let osVersion: String

    var isSupported: Bool { false }
    func areActivitiesEnabled() -> Bool { false }
    func configure(_ settings: SyncSettings) async throws {}
    func supplyCredential(_ credential: String) async {}
    func reconcile() async throws -> [String: any Sendable] {
        ["endedLocally": [String](), "reportedLost": [String]()]
    }

    func startDelivery(orderID: String, state: [String: Any]) throws -> String { throw unsupported }
    func updateDelivery(_ id: String, state: [String: Any]) async throws -> Bool { throw unsupported }

    func endDelivery(_ id: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws {
        throw unsupported
    }

    func runningActivities() -> [[String: any Sendable]] { [] }
    func appBecameActive() async {}
    func stop() async {}

    var unsupported: DropTrackExpoError {
        DropTrackExpoError(
            "Live Activities need iOS 16.2 or later and this phone runs iOS \(osVersion): check "
                + "DropTrack.isSupported() before starting a delivery")
    }
}
