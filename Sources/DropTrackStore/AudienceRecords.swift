import DropTrackContract
import Foundation

/// What a tag is put on: a user of the app, or one of its devices.
public enum TagSubject: Sendable, Hashable {
    case user(String)
    case device(String)

    /// The stored `subject_kind`.
    public var kind: String {
        switch self {
        case .user: "user"
        case .device: "device"
        }
    }

    /// The user or device id.
    public var id: String {
        switch self {
        case .user(let id), .device(let id): id
        }
    }

    /// Reads the stored pair; nil for a kind no case has.
    public init?(kind: String, id: String) {
        switch kind {
        case "user": self = .user(id)
        case "device": self = .device(id)
        default: return nil
        }
    }
}

/// One tag on one subject, as an audience lookup finds it.
public struct SubjectTag: Sendable, Hashable {
    public var subject: TagSubject
    public var tag: String

    public init(subject: TagSubject, tag: String) {
        self.subject = subject
        self.tag = tag
    }
}

extension ActivityRecord {
    /// A shared activity: started for an audience, it has members instead of one user (`userId` is empty).
    public var isShared: Bool { userId.isEmpty }

    /// What the audience of a shared activity asked for, as kept with it.
    public var audienceSummary: JSONValue? { mapperState?["audience"] }
}
