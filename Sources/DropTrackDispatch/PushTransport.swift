import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation
import Synchronization

/// The outcome of one send, provider-neutral: what the dispatcher needs to decide the next step.
public struct SendResult: Sendable {
    /// HTTP status, 0 without an answer.
    public var status: Int
    /// `ok`, the provider's reason, or a transport code.
    public var reason: String
    /// What to do next.
    public var remedy: PushRemedy
    /// One line for a person.
    public var explanation: String
    public var latency: Duration
    /// Whether the push reached the provider: a start that may have is never sent again, and an
    /// attempt that never left does not count against `maxAttempts`.
    public var reach: SendReach

    public init(
        status: Int, reason: String, remedy: PushRemedy, explanation: String, latency: Duration,
        reach: SendReach = .answered
    ) {
        self.status = status
        self.reason = reason
        self.remedy = remedy
        self.explanation = explanation
        self.latency = latency
        self.reach = reach
    }

    public var isSuccess: Bool { remedy == .none }
}

/// Where the dispatcher sends: one seam over both providers, so the worker is provider-neutral.
public protocol PushTransport: Sendable {
    /// Sends an APNs push for an app; `completion` may run on any thread.
    func send(app: String, apns push: APNsPush, completion: @escaping @Sendable (SendResult) -> Void)
    /// Sends an FCM message for an app.
    func send(app: String, fcm message: FCMMessage, completion: @escaping @Sendable (SendResult) -> Void)
    /// Creates an iOS 18 broadcast channel for an app (blocking); its id, or why not.
    func createChannel(app: String, policy: MessageStoragePolicy) -> Result<String, ChannelFailure>
    /// Deletes a broadcast channel (blocking).
    func deleteChannel(app: String, id: String) -> Result<Void, ChannelFailure>
    /// Closes connections.
    func shutdown()
    /// By provider (`apns`, `fcm`): the providers' clocks minus this machine's, as their latest
    /// `Date` headers tell, the largest in size across apps; absent until a response had one.
    var providerClockOffsets: [String: Double] { get }
}

extension PushTransport {
    public var providerClockOffsets: [String: Double] { [:] }
}

/// Why a channel-management call failed: APNs' status and reason, and what to do.
public struct ChannelFailure: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var reason: String
    public var explanation: String
    public init(status: Int, reason: String, explanation: String) {
        self.status = status
        self.reason = reason
        self.explanation = explanation
    }
    public var description: String { explanation }
}

/// An in-memory transport that accepts everything and remembers it: for `serve --dry-run` style
/// runs and for exercising the dispatcher without providers.
public final class RecordingTransport: PushTransport {
    /// One send as recorded.
    public struct Sent: Sendable {
        public var app: String
        public var apns: APNsPush?
        public var fcm: FCMMessage?
    }

    private let sent = Mutex<[Sent]>([])
    private let offsets: [String: Double]

    /// Creates a transport; `providerClockOffsets` plays what the providers' Date headers said.
    public init(providerClockOffsets: [String: Double] = [:]) { offsets = providerClockOffsets }

    public var providerClockOffsets: [String: Double] { offsets }

    /// Everything sent so far.
    public var history: [Sent] { sent.withLock { $0 } }

    public func send(app: String, apns push: APNsPush, completion: @escaping @Sendable (SendResult) -> Void) {
        sent.withLock { $0.append(Sent(app: app, apns: push, fcm: nil)) }
        completion(SendResult(status: 200, reason: "ok", remedy: .none, explanation: "recorded", latency: .zero))
    }

    public func send(app: String, fcm message: FCMMessage, completion: @escaping @Sendable (SendResult) -> Void) {
        sent.withLock { $0.append(Sent(app: app, apns: nil, fcm: message)) }
        completion(SendResult(status: 200, reason: "ok", remedy: .none, explanation: "recorded", latency: .zero))
    }

    private let channels = Mutex<Set<String>>([])

    public func createChannel(app: String, policy: MessageStoragePolicy) -> Result<String, ChannelFailure> {
        let id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        channels.withLock { _ = $0.insert(id) }
        return .success(id)
    }

    public func deleteChannel(app: String, id: String) -> Result<Void, ChannelFailure> {
        guard channels.withLock({ $0.remove(id) }) != nil else {
            return .failure(ChannelFailure(status: 404, reason: "ChannelNotRegistered", explanation: "no such channel"))
        }
        return .success(())
    }

    public func shutdown() {}
}
