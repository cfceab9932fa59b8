// What the FCM emulator keeps of each request, and hands to simulated phones.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

/// One request the FCM emulator saw. Registration tokens appear only as fingerprints.
public struct FCMEmulatorRecord: Sendable, Codable {
    /// Order of arrival.
    public var sequence: Int
    /// When it arrived.
    public var receivedAt: Date
    /// `token` (OAuth) or `send`.
    public var kind: String
    /// The status answered.
    public var status: Int
    /// The FcmError code or google.rpc status (or OAuth `error`) answered.
    public var error: String?
    /// The error message answered.
    public var message: String?
    /// The registration token's fingerprint.
    public var tokenFingerprint: String?
    /// The topic or condition, for those targets.
    public var target: String?
    /// The data map sent (string values only, when accepted).
    public var data: [String: String]?
    /// `android.priority`.
    public var priority: String?
    /// `android.ttl`.
    public var ttl: String?
    /// `android.collapse_key`.
    public var collapseKey: String?
    /// True for `validate_only` sends (accepted, not delivered).
    public var validateOnly: Bool
    /// The message name answered.
    public var name: String?
    /// The fault that decided the answer.
    public var fault: String?
}

/// What the emulator hands to the simulated Android phone for each delivered message.
public struct FCMDelivery: Sendable {
    /// The registration token.
    public var token: String
    /// The data map.
    public var data: [String: String]
    /// `android.priority` (lowercase).
    public var priority: String
    /// The message name.
    public var name: String
    /// When FCM accepted it.
    public var acceptedAt: Date
}
