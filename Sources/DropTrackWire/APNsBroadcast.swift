/// A broadcast channel's message storage policy, fixed when the channel is created.
public enum MessageStoragePolicy: Int, Sendable, Codable, CaseIterable {
    /// No message stored: a higher publishing budget; `apns-expiration` must be 0.
    case noMessageStored = 0
    /// The most recent message is kept for up to 8 hours.
    case mostRecentMessageStored = 1

    /// Parses `0`/`1` or `no-storage`/`most-recent`.
    public init?(name: String) {
        switch name.lowercased() {
        case "0", "no-storage", "none", "nomessagestored": self = .noMessageStored
        case "1", "most-recent", "mostrecent", "mostrecentmessagestored": self = .mostRecentMessageStored
        default: return nil
        }
    }
}

/// Channel-management paths and bodies (Apple's "Sending channel management requests to APNs").
public enum APNsChannelAPI {
    /// `POST` creates, `GET` reads and `DELETE` deletes (the id travels in `apns-channel-id`).
    public static func channelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }
    /// `GET` lists every channel id.
    public static func allChannelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/all-channels" }
    /// The create body.
    public static func createBody(policy: MessageStoragePolicy) -> [UInt8] {
        Array(#"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#.utf8)
    }
}
