/// An id of one kind (an app's, an activity's, a user's, …), checked when it is made: text from a
/// request, a path, the configuration or a stored row goes through `init(validating:field:)`, which
/// refuses it naming the field and the rule, so an activity id cannot be passed where a device id
/// belongs, and nothing holds an id the API could not reach again.
public protocol ValidatedIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The request field this id usually arrives in (`activityId`), named when it is refused.
    static var field: String { get }
    /// The id as the API, the store and the providers carry it.
    var rawValue: String { get }
    /// Checks `text` by this kind's rule; a refusal names `field`.
    init(validating text: String, field: String) throws(Refusal)
}

extension ValidatedIdentifier {
    /// Checks `text` by this kind's rule; a refusal names the kind's usual field.
    public init(validating text: String) throws(Refusal) { try self.init(validating: text, field: Self.field) }

    /// The text, or nil when it breaks this kind's rule.
    public init?(_ text: String) {
        guard let id = try? Self(validating: text) else { return nil }
        self = id
    }

    public var description: String { rawValue }

    /// In the order of the text, the order listings and cursors use.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An app (tenant) id, as the configuration names it: letters, digits and '-'. The configuration's
/// check and `apps add` use this rule, so every app the server serves has an `AppID`.
public struct AppID: ValidatedIdentifier {
    public static let field = "app"
    /// The rule, as error messages state it.
    public static let rule = "an app id uses letters, digits and '-'"
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw Refusal.invalid(field, "'\(field)' is not an app id: \(Self.rule), e.g. shop")
        }
        rawValue = text
    }
}

/// An activity id, the caller's, unique per app.
public struct ActivityID: ValidatedIdentifier {
    public static let field = "activityId"
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        try Identifier.check(text, field: field)
        rawValue = text
    }
}

/// A user id, the caller's.
public struct UserID: ValidatedIdentifier {
    public static let field = "userId"
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        try Identifier.check(text, field: field)
        rawValue = text
    }
}

/// A device id, the app's name for one installation.
public struct DeviceID: ValidatedIdentifier {
    public static let field = "deviceId"
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        try Identifier.check(text, field: field)
        rawValue = text
    }
}

/// The name of an `ActivityAttributes` type (`DeliveryAttributes`), which keys push-to-start tokens
/// and contracts.
public struct AttributesType: ValidatedIdentifier {
    public static let field = "attributesType"
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        try Identifier.check(text, field: field)
        rawValue = text
    }
}

/// An iOS 18 broadcast channel id, as APNs issued it: base64 text, so its rule is not the caller-id
/// rule (it may hold `+`, `/` and `=`), but it is never empty, never long and never holds a space
/// or a control character.
public struct ChannelID: ValidatedIdentifier {
    public static let field = "channelId"
    /// The longest channel id accepted, in characters.
    public static let maximumLength = 256
    public let rawValue: String
    public init(validating text: String, field: String) throws(Refusal) {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw Refusal.invalid(
                field,
                "'\(field)' is not a channel id: one is 1 to \(Self.maximumLength) printable ASCII characters without spaces, as APNs returns it (base64)"
            )
        }
        rawValue = text
    }
}
