// How the FCM emulator is set up.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

/// How the FCM emulator behaves.
public struct FCMEmulatorConfiguration: Sendable {
    /// The project messages must be sent to.
    public var projectID: String
    /// The service account's public key: assertions must verify with it.
    public var serviceAccountKey: PublicKey
    /// The `client_email` assertions must carry as `iss`, when set.
    public var clientEmail: String?
    /// Audiences accepted besides Google's token endpoint (e.g. the emulator's own token URI).
    public var extraAudiences: [String]
    /// Access-token lifetime in seconds.
    public var accessTokenLifetime: Int
    /// Accept registration tokens never registered (load tests); otherwise they are UNREGISTERED.
    public var acceptUnknownTokens: Bool
    /// Records kept.
    public var recordCapacity: Int

    /// Creates a configuration.
    public init(
        projectID: String, serviceAccountKey: PublicKey, clientEmail: String? = nil, extraAudiences: [String] = [],
        accessTokenLifetime: Int = 3599, acceptUnknownTokens: Bool = false, recordCapacity: Int = 100_000
    ) {
        self.projectID = projectID
        self.serviceAccountKey = serviceAccountKey
        self.clientEmail = clientEmail
        self.extraAudiences = extraAudiences
        self.accessTokenLifetime = accessTokenLifetime
        self.acceptUnknownTokens = acceptUnknownTokens
        self.recordCapacity = recordCapacity
    }
}
