import Foundation

/// What was last registered with the server for one thing (a push-to-start type, an activity), so a
/// relaunch sends nothing again, and a rotated token, another environment or changed facts do.
public struct Registration: Sendable, Equatable, Codable {
    /// What kind of token.
    public enum Kind: String, Sendable, Codable {
        case pushToStart, activity
    }

    public var kind: Kind
    /// The attributes type (push-to-start) or the server's activity id (activity).
    public var subject: String
    /// The token's fingerprint, never the token.
    public var token: TokenFingerprint
    public var environment: APNsEnvironment
    /// `DeviceFacts.digest` of the facts sent with it.
    public var factsDigest: String

    public init(
        kind: Kind, subject: String, token: TokenFingerprint, environment: APNsEnvironment, factsDigest: String
    ) {
        self.kind = kind
        self.subject = subject
        self.token = token
        self.environment = environment
        self.factsDigest = factsDigest
    }

    /// The ledger's key: one registration per kind and subject.
    public var key: String { "\(kind.rawValue):\(subject)" }
}

/// Everything the sync must remember across launches.
public struct LedgerContents: Sendable, Equatable, Codable {
    /// By `Registration.key`.
    public var registrations: [String: Registration] = [:]
    /// Lifecycle reports accepted and not yet acknowledged by the server, oldest first: an ended or
    /// dismissed activity is gone from the phone after a relaunch, so these cannot be derived again.
    public var pendingReports: [LifecycleReport] = []
    /// Lifecycle reports the server acknowledged, so a relaunch does not repeat them.
    public var sentReports: Set<LifecycleReport> = []

    public init() {}
}

/// Where the ledger lives. Loads and saves the whole (small) document.
public protocol RegistrationLedger: Sendable {
    func load() async throws -> LedgerContents
    func save(_ contents: LedgerContents) async throws
}

/// A ledger in memory, for tests and for apps that accept re-registering at each launch.
public actor InMemoryRegistrationLedger: RegistrationLedger {
    private var contents: LedgerContents
    /// How many times it was saved (tests count writes).
    public private(set) var saves = 0

    public init(_ contents: LedgerContents = LedgerContents()) { self.contents = contents }

    public func load() async throws -> LedgerContents { contents }

    public func save(_ contents: LedgerContents) async throws {
        self.contents = contents
        saves += 1
    }
}

/// A ledger in a JSON file, written atomically (a temporary file renamed over it) and readable by the
/// app's user only (mode 0600): it names the tokens by fingerprint only, but nothing else needs it.
public struct FileRegistrationLedger: RegistrationLedger {
    /// The file.
    public let url: URL

    /// A ledger at `directory/DropTrackLive-ledger.json`.
    public init(directory: URL) { url = directory.appendingPathComponent("DropTrackLive-ledger.json") }

    /// A ledger in the app's Application Support directory (created if missing).
    public static func applicationSupport() throws -> FileRegistrationLedger {
        let directory = try FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        return FileRegistrationLedger(directory: directory)
    }

    /// An absent file is an empty ledger: the first launch.
    public func load() async throws -> LedgerContents {
        guard FileManager.default.fileExists(atPath: url.path) else { return LedgerContents() }
        return try JSONDecoder().decode(LedgerContents.self, from: Data(contentsOf: url))
    }

    public func save(_ contents: LedgerContents) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(contents)
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        // Created 0600 before any byte is written, then renamed over the old file in one step.
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
        // rename(2) replaces the file in one step: a reader sees the old ledger or the new, never half of one.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }
}
