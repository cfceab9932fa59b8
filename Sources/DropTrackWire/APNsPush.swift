import DropTrackCore
import DropTrackModel
import Foundation

/// APNs size limits.
public enum APNsLimits {
    /// A device push body, Live Activities included.
    public static let devicePayloadBytes = 4096
    /// A broadcast push body.
    public static let broadcastPayloadBytes = 5120
    /// `apns-collapse-id`.
    public static let collapseIDBytes = 64
    /// The topic suffix Live Activity pushes need.
    public static let liveActivityTopicSuffix = ".push-type.liveactivity"
}

/// A request that is wrong before it is sent, naming the field and the fix.
public struct APNsRequestError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of mistake.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public static let payloadTooLarge = Code("payloadTooLarge")
        public static let badDeviceToken = Code("badDeviceToken")
        public static let badTopic = Code("badTopic")
        public static let badPriority = Code("badPriority")
        public static let badCollapseID = Code("badCollapseID")
        public static let badMessageID = Code("badMessageID")
        public static let badExpiration = Code("badExpiration")
        public static let badChannelID = Code("badChannelID")
        public static let missingStartFields = Code("missingStartFields")
        public var description: String { name }
    }

    /// The kind of mistake; equality compares only this.
    public var code: Code
    /// The header or payload key to fix.
    public var field: String
    /// What is wrong and how to fix it.
    public var message: String

    public init(_ code: Code, field: String, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public static func == (a: APNsRequestError, b: APNsRequestError) -> Bool { a.code == b.code }

    public var description: String { message }
}

/// One push, fully built: where it goes, its headers and its body.
public struct APNsPush: Sendable {
    /// Where a push goes.
    public enum Destination: Sendable, Hashable {
        /// A device (update or push-to-start) token, as hex.
        case device(token: DeviceToken)
        /// An iOS 18 broadcast channel (base64 id).
        case channel(id: String)
    }

    /// Where it goes.
    public var destination: Destination
    /// `apns-topic` (device pushes only): `<bundle>.push-type.liveactivity`.
    public var topic: String
    /// The bundle id (the broadcast path uses the bare id).
    public var bundleID: String
    /// `apns-push-type`.
    public var pushType: String
    /// `apns-priority`: 10 now (counts against the budget) or 5 opportunistic; broadcasts may use 1.
    public var priority: Int
    /// `apns-expiration` in Unix seconds (0 = once); nil leaves it out.
    public var expiration: Int64?
    /// `apns-id`, a lowercase UUID; APNs makes one when absent.
    public var apnsID: String?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    /// The JSON body.
    public var payload: [UInt8]
    /// The environment the token was registered in, when known; decides what `BadDeviceToken` means.
    public var tokenEnvironment: APNsEnvironment?

    /// A Live Activity push to a device token for `bundleID`.
    public init(
        deviceToken: DeviceToken, bundleID: String, payload: [UInt8], priority: Int = 10, expiration: Int64? = nil,
        apnsID: String? = nil, collapseID: String? = nil, tokenEnvironment: APNsEnvironment? = nil
    ) {
        self.destination = .device(token: deviceToken)
        self.topic = bundleID + APNsLimits.liveActivityTopicSuffix
        self.bundleID = bundleID
        self.pushType = "liveactivity"
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
        self.tokenEnvironment = tokenEnvironment
    }

    /// The same, for callers that still hold the token as a `String`; it is wrapped here, at once.
    public init(
        deviceToken: String, bundleID: String, payload: [UInt8], priority: Int = 10, expiration: Int64? = nil,
        apnsID: String? = nil, collapseID: String? = nil, tokenEnvironment: APNsEnvironment? = nil
    ) {
        self.init(
            deviceToken: DeviceToken(deviceToken), bundleID: bundleID, payload: payload, priority: priority,
            expiration: expiration, apnsID: apnsID, collapseID: collapseID, tokenEnvironment: tokenEnvironment)
    }

    /// A broadcast to a channel of `bundleID`.
    public init(
        channelID: String, bundleID: String, payload: [UInt8], priority: Int = 10, expiration: Int64? = nil,
        apnsID: String? = nil
    ) {
        self.destination = .channel(id: channelID)
        self.topic = ""
        self.bundleID = bundleID
        self.pushType = "liveactivity"
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = nil
        self.payload = payload
        self.tokenEnvironment = nil
    }

    /// The HTTP/2 path.
    public var path: String {
        switch destination {
        case .device(let token): "/3/device/\(token.wireValue)"
        case .channel: "/4/broadcasts/apps/\(bundleID)"
        }
    }

    /// A safe name for the destination in logs: the token's fingerprint or the channel id.
    public var destinationFingerprint: String {
        switch destination {
        case .device(let token): token.fingerprint.value
        case .channel(let id): "channel:\(id)"
        }
    }

    /// Whether `apns-topic` ends in `.push-type.liveactivity`. Compared as bytes: `String.hasSuffix`
    /// compares canonically equivalent characters, which costs a per-push share a fan-out feels.
    public var hasLiveActivityTopic: Bool {
        var topic = topic
        return topic.withUTF8 { bytes in
            bytes.count >= Self.liveActivitySuffixBytes.count
                && bytes.suffix(Self.liveActivitySuffixBytes.count).elementsEqual(Self.liveActivitySuffixBytes)
        }
    }

    private static let liveActivitySuffixBytes = Array(APNsLimits.liveActivityTopicSuffix.utf8)

    /// Headers other than `authorization`, in the order they are sent.
    public var headers: [(name: String, value: String)] {
        // Labelled like the result: an unlabelled array would be converted element by element on return.
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)
        switch destination {
        case .device: headers.append(("apns-topic", topic))
        case .channel(let id): headers.append(("apns-channel-id", id))
        }
        headers.append(("apns-push-type", pushType))
        headers.append(("apns-priority", String(priority)))
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }

    /// Checks everything APNs would refuse, before anything is sent; throws the first problem.
    public func validate() throws(APNsRequestError) {
        if let first = validationErrors().first { throw first }
    }

    /// Every problem APNs would refuse the push for, in the order `validate()` checks them. The
    /// doctor reports them all; a sender only needs the first.
    public func validationErrors() -> [APNsRequestError] {
        var errors: [APNsRequestError] = []
        switch destination {
        case .device(let token):
            if !APNsPush.isHexToken(token.wireValue) {
                errors.append(
                    APNsRequestError(
                        .badDeviceToken, field: "token",
                        "the device token must be a non-empty, even-length hex string (Live Activity tokens vary in length; 160 hex digits have been seen)"
                    ))
            }
            if !hasLiveActivityTopic || topic.utf8.count <= APNsLimits.liveActivityTopicSuffix.utf8.count {
                errors.append(
                    APNsRequestError(
                        .badTopic, field: "apns-topic",
                        "apns-topic must be <bundle id>\(APNsLimits.liveActivityTopicSuffix) for Live Activities; without the suffix APNs answers DeviceTokenNotForTopic"
                    ))
            }
            if payload.count > APNsLimits.devicePayloadBytes {
                errors.append(
                    APNsRequestError(
                        .payloadTooLarge, field: "payload",
                        "the payload is \(payload.count) bytes; APNs allows \(APNsLimits.devicePayloadBytes) for a device push. Shorten the content-state or attributes"
                    ))
            }
            if priority != 5 && priority != 10 {
                errors.append(
                    APNsRequestError(
                        .badPriority, field: "apns-priority",
                        "Live Activity pushes use priority 5 or 10, not \(priority)"))
            }
        case .channel(let id):
            if !APNsPush.isBase64ChannelID(id) {
                errors.append(
                    APNsRequestError(
                        .badChannelID, field: "apns-channel-id",
                        "the channel id must be the base64 string APNs returned when the channel was created"))
            }
            if payload.count > APNsLimits.broadcastPayloadBytes {
                errors.append(
                    APNsRequestError(
                        .payloadTooLarge, field: "payload",
                        "the payload is \(payload.count) bytes; APNs allows \(APNsLimits.broadcastPayloadBytes) for a broadcast. Shorten the content-state"
                    ))
            }
            if ![1, 5, 10].contains(priority) {
                errors.append(
                    APNsRequestError(
                        .badPriority, field: "apns-priority",
                        "broadcast pushes use priority 1, 5 or 10, not \(priority)"))
            }
        }
        if let collapseID, collapseID.utf8.count > APNsLimits.collapseIDBytes {
            errors.append(
                APNsRequestError(
                    .badCollapseID, field: "apns-collapse-id",
                    "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is 64"))
        }
        if let apnsID, !APNsPush.isCanonicalUUID(apnsID) {
            errors.append(
                APNsRequestError(
                    .badMessageID, field: "apns-id",
                    "apns-id must be a lowercase UUID like 123e4567-e89b-12d3-a456-426614174000"))
        }
        if let expiration, expiration < 0 {
            errors.append(
                APNsRequestError(
                    .badExpiration, field: "apns-expiration", "apns-expiration is Unix seconds, or 0 to try once"))
        }
        return errors
    }

    /// A non-empty, even-length string of hex digits.
    public static func isHexToken(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count % 2 == 0 else { return false }
            for byte in bytes where !byte.isHexDigit { return false }
            return true
        }
    }

    /// Base64 (standard alphabet, optional padding), as APNs channel ids are.
    public static func isBase64ChannelID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 256, id.utf8.count % 4 == 0 else { return false }
        return Data(base64Encoded: id) != nil
    }

    /// Lowercase canonical 8-4-4-4-12 UUID.
    public static func isCanonicalUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !(byte.isHexDigit && !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)) {
                return false
            }
        }
        return true
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        // 0-9, or a-f in either case (setting bit 5 makes A-F a-f); wrapping subtraction keeps it to two compares.
        self &- UInt8(ascii: "0") < 10 || (self | 0x20) &- UInt8(ascii: "a") < 6
    }
}
