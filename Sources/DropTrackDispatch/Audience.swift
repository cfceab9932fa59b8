import DropTrackContract
import DropTrackModel
import DropTrackStore

/// Who a shared activity starts for: listed users, users matching tags (on the user or on one of
/// their devices), or every user with a device. It is resolved once, at the start, into the
/// activity's members: a user who matches later gets no late start.
public enum Audience: Sendable, Hashable {
    /// These users, whether or not they have devices yet.
    case users([String])
    /// Users carrying every tag of `all` and at least one of `any` (an empty list asks nothing),
    /// counting their own tags and their devices' tags together.
    case tags(all: [String], any: [String])
    /// Every user with a valid push-to-start or FCM token.
    case everyone

    /// The description kept with the activity and shown by `GET /v1/activities/{id}`: a user list is
    /// counted, not repeated (it may hold 100,000 ids; the members are in their own table).
    public var summary: JSONValue {
        switch self {
        case .users(let ids): .object(["kind": .string("users"), "count": .number(Double(ids.count))])
        case .tags(let all, let any):
            .object([
                "kind": .string("tags"), "all": .array(all.map { .string($0) }), "any": .array(any.map { .string($0) }),
            ])
        case .everyone: .object(["kind": .string("everyone")])
        }
    }

    /// The audience a summary describes, when it can be matched again: tags and everyone, not a list
    /// of users (the list is the members already).
    public init?(summary: JSONValue) {
        switch summary["kind"]?.stringValue {
        case "everyone": self = .everyone
        case "tags":
            func list(_ key: String) -> [String] { summary[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            self = .tags(all: list("all"), any: list("any"))
        default: return nil
        }
    }
}

/// What `POST /v1/activities/{id}/audience/refresh` did.
public struct AudienceRefreshed: Sendable, Equatable {
    public var activityId: String
    /// Users who match now and were not members: they are members now and their devices get the start.
    public var joined: Int
    /// Members in all, after the refresh.
    public var members: Int
    /// The joiners' push-to-start and FCM tokens the current version was queued for.
    public var destinations: Int
}

/// The rule for tag strings, and the most a user or device may carry.
public enum Tag {
    /// The longest tag, in characters (each one byte).
    public static let maximumLength = 128
    /// The most tags one user or device carries; also the most an audience's `all` or `any` lists.
    public static let maximumPerSubject = 100
    /// The rule, as error messages state it.
    public static let rule = "1 to 128 characters from A-Z a-z 0-9 . _ : - / @ = +"

    /// Checks a list of tags read from `field`: each by the rule, at most `maximumPerSubject`.
    /// Duplicates are dropped; the answer is sorted.
    public static func check(_ tags: [String], field: String) throws(Refusal) -> [String] {
        guard tags.count <= maximumPerSubject else {
            throw Refusal.invalid(
                field,
                "'\(field)' has \(tags.count) tags; the most is \(maximumPerSubject). Merge tags (\"tier:gold\" rather than one per attribute) or drop some"
            )
        }
        for (index, tag) in tags.enumerated() {
            if let problem = problem(tag) {
                throw Refusal.invalid("\(field)[\(index)]", "'\(field)[\(index)]' \(problem); a tag is \(rule)")
            }
        }
        return Array(Set(tags)).sorted()
    }

    static func problem(_ tag: String) -> String? {
        if tag.isEmpty { return "is empty" }
        for (position, scalar) in tag.unicodeScalars.enumerated() where !allowed(scalar) {
            return "has a character outside the rule at character \(position + 1)"
        }
        if tag.utf8.count > maximumLength { return "has \(tag.utf8.count) characters" }
        return nil
    }

    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", ":", "-", "/", "@", "=", "+": true
        default: false
        }
    }
}

/// How far an audience start has got, counted from its outbox and its timeline's start entries.
public struct AudienceProgress: Sendable, Equatable {
    /// The users the audience resolved to at the start.
    public var members: Int
    /// The start's destinations: push-to-start and FCM tokens of the members.
    public var devicesTargeted: Int
    /// Destinations the start reached (the provider accepted it).
    public var started: Int
    /// Destinations the start will not reach, by the provider's or the server's reason.
    public var failedByReason: [String: Int]
    /// Destinations with no final outcome yet (queued, in flight, or retrying).
    public var pending: Int
}
