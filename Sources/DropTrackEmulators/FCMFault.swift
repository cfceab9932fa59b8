// The FCM emulator's scripted faults: what can go wrong, and the `--faults FILE` document.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

/// What goes wrong in an FCM fault.
public enum FCMFaultKind: String, Codable, Sendable, CaseIterable {
    /// 404 UNREGISTERED.
    case unregistered
    /// 403 SENDER_ID_MISMATCH.
    case senderIdMismatch
    /// 400 INVALID_ARGUMENT naming the registration token.
    case invalidToken
    /// 429 QUOTA_EXCEEDED (with FcmError), `Retry-After` when set.
    case quotaExceeded
    /// 429 RESOURCE_EXHAUSTED without FcmError (the project quota).
    case resourceExhausted
    /// 500 INTERNAL.
    case `internal`
    /// 503 UNAVAILABLE, `Retry-After` when set.
    case unavailable
    /// 401 THIRD_PARTY_AUTH_ERROR.
    case thirdPartyAuthError
    /// 401 UNAUTHENTICATED, as if the access token had been revoked.
    case unauthenticated
    /// The TCP connection is dropped with the request unanswered.
    case connectionReset
    /// The real answer, `delayMilliseconds` late.
    case delay
}

/// A fault the FCM emulator injects.
public typealias FCMFault = FaultRule<FCMFaultKind>

/// The FCM emulator's `--faults FILE` document.
public struct FCMFaultScript: Codable, Sendable {
    /// The faults, checked in order.
    public var faults: [FCMFault]

    public init(faults: [FCMFault]) { self.faults = faults }

    /// Reads a script file, naming the file and the problem in errors.
    public static func load(path: String) throws -> FCMFaultScript {
        try loadScript(path: path, kinds: FCMFaultKind.allCases.map(\.rawValue))
    }
}
