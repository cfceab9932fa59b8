/// Why a token may no longer be sent to. The server's own reasons are cases; a provider's verdict
/// keeps the provider's word (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`…), since that is what
/// its documentation and the doctor's traps are keyed by.
///
/// Stored as `stored`, the same text the `invalid_reason` column has always held, so rows written
/// before this type existed read back as the same case.
public enum InvalidationReason: Sendable, Hashable, CustomStringConvertible {
    /// The device registered a newer token of the same kind for the same thing.
    case superseded
    /// An iOS 18 device joined the activity's broadcast channel, which reaches it instead.
    case subscribedToChannel
    /// Unregistered through the API (`DELETE /v1/tokens/{fingerprint}`).
    case deleted
    /// The activity is over, so its update tokens have nothing left to carry.
    case activityEnded
    /// The app reported the activity ended on the device.
    case deviceEnded
    /// The app reported the person dismissed it.
    case deviceDismissed
    /// The app reported the device no longer has it.
    case deviceLost
    /// APNs or FCM said the token is dead, in the provider's own word.
    case provider(String)

    /// The stored and reported text: snake_case for the server's reasons, the provider's word otherwise
    /// (providers use PascalCase or UPPER_CASE, so the two never meet).
    public var stored: String {
        switch self {
        case .superseded: "superseded"
        case .subscribedToChannel: "subscribed_to_channel"
        case .deleted: "deleted"
        case .activityEnded: "activity_ended"
        case .deviceEnded: "device_ended"
        case .deviceDismissed: "device_dismissed"
        case .deviceLost: "device_lost"
        case .provider(let word): word
        }
    }

    /// Reads the stored text; anything that is not one of the server's reasons is a provider's word.
    public init(stored: String) {
        self =
            switch stored {
            case "superseded": .superseded
            case "subscribed_to_channel": .subscribedToChannel
            case "deleted": .deleted
            case "activity_ended": .activityEnded
            case "device_ended": .deviceEnded
            case "device_dismissed": .deviceDismissed
            case "device_lost": .deviceLost
            default: .provider(stored)
            }
    }

    public var description: String { stored }
}
