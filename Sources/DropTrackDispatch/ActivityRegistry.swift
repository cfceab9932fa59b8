import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// The server's business operations: tokens, the activity lifecycle and its versions, each in one
/// store transaction, so a request is applied whole or not at all. Sending is the dispatcher's job;
/// these operations only say what must reach whom.
public final class ActivityRegistry: Sendable {
    let store: any DeliveryStore
    let configuration: ServerConfiguration
    let clock: any WallClock
    let wake: @Sendable () -> Void
    /// Creates and deletes broadcast channels (nil: broadcast activities are refused).
    let channels: (any PushTransport)?
    /// The doctor, for the traps devices' reported facts add to a diagnosis.
    let examiner: any DeviceExaminer
    /// Outcomes the app's webhooks hear about, queued with the outcome.
    let webhooks: WebhookOutcomes
    /// The shared activities (app and id) whose audience this process is refreshing now.
    let refreshing = Mutex<Set<String>>([])

    /// Creates a registry; `wake` nudges the dispatcher when work is queued, and `webhookQueued` the
    /// webhook worker when deliveries are (each after the transaction commits); `channels` manages
    /// iOS 18 broadcast channels, and `examiner` is the doctor a diagnosis asks about devices.
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, clock: any WallClock,
        examiner: any DeviceExaminer, channels: (any PushTransport)? = nil, wake: @escaping @Sendable () -> Void = {},
        webhookQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.examiner = examiner
        self.channels = channels
        self.wake = wake
        webhooks = WebhookOutcomes(configuration: configuration, queued: webhookQueued)
    }

    func app(_ id: String) throws(Refusal) -> AppConfiguration {
        guard let app = configuration.apps.first(where: { $0.id == id }) else {
            throw Refusal.notFound("no app \(id)")
        }
        return app
    }

    func contracts(_ app: AppConfiguration) -> ContractBook { ContractBook(schemas: app.schemas ?? [:]) }

    /// Runs a store transaction, turning engine failures into refusals the caller may retry.
    func transact<T>(_ body: (any StoreTransaction) throws -> T) throws(Refusal) -> T {
        do {
            return try store.transaction(body)
        } catch let error as Refusal {
            throw error
        } catch let error as StoreError where error.code == .corruptRow {
            throw Refusal.corrupt(message: "a stored record cannot be read: \(error.message)")
        } catch let error as StoreError where error.code == .conflict {
            throw Refusal.conflict(
                code: .conflict, message: "another request changed the same record at the same time; retry")
        } catch {
            throw Refusal.unavailable(
                code: .storeUnavailable, message: "the store failed: \(error); retry shortly")
        }
    }
}
