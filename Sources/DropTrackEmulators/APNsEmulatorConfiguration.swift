// How the APNs emulator is set up: team, keys, stream limits, records, channels.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

/// How the APNs emulator behaves.
public struct APNsEmulatorConfiguration: Sendable {
    /// The team id provider tokens must carry (`iss`).
    public var teamID: String
    /// Signing keys by key id (`kid`).
    public var keys: [String: PublicKey]
    /// Bundle ids whose topics this team may push to.
    public var bundleIDs: [String]
    /// The environment this emulator plays; tokens registered for the other one get BadDeviceToken.
    public var environment: APNsEnvironment
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` once a valid provider token was seen.
    public var maxConcurrentStreams: UInt32
    /// Advertise one stream until the connection's first valid provider token, as APNs does.
    public var oneStreamUntilValidToken: Bool
    /// Refuse DER-encoded ES256 signatures (APNs accepts both raw and DER).
    public var strictSignatures: Bool
    /// Answer BadDeviceToken for tokens never registered with the emulator.
    public var requireRegisteredTokens: Bool
    /// Records kept in memory (oldest dropped first).
    public var recordCapacity: Int
    /// Contracts to decode content-state and attributes with, by `attributes-type`.
    public var contracts: [String: LiveActivityContract]
    /// Channels an app may hold.
    public var channelLimit: Int

    /// Creates a configuration.
    public init(
        teamID: String, keys: [String: PublicKey], bundleIDs: [String], environment: APNsEnvironment = .sandbox,
        maxConcurrentStreams: UInt32 = 1000, oneStreamUntilValidToken: Bool = true, strictSignatures: Bool = false,
        requireRegisteredTokens: Bool = false, recordCapacity: Int = 100_000,
        contracts: [String: LiveActivityContract] = [DeliveryAttributes.typeName: .delivery], channelLimit: Int = 10_000
    ) {
        self.teamID = teamID
        self.keys = keys
        self.bundleIDs = bundleIDs
        self.environment = environment
        self.maxConcurrentStreams = maxConcurrentStreams
        self.oneStreamUntilValidToken = oneStreamUntilValidToken
        self.strictSignatures = strictSignatures
        self.requireRegisteredTokens = requireRegisteredTokens
        self.recordCapacity = recordCapacity
        self.contracts = contracts
        self.channelLimit = channelLimit
    }
}
