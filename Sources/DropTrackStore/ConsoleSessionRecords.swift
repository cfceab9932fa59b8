import Foundation

/// An operator's console session as the store keeps it, so that every replica behind a load balancer,
/// and a restarted one, knows it. The session id is the cookie's bearer secret: only its SHA-256 is
/// stored, so whoever reads the database cannot sign in with what they read.
public struct ConsoleSessionRecord: Sendable, Equatable {
    /// The hex SHA-256 of the session id.
    public var idDigest: String
    /// The app whose key signed in.
    public var app: String
    /// The key's fingerprint, for logs.
    public var keyFingerprint: String
    /// The token every form of the session carries (it is in every page, not a credential on its own).
    public var csrfToken: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(
        idDigest: String, app: String, keyFingerprint: String, csrfToken: String, createdAt: Date, lastSeenAt: Date
    ) {
        self.idDigest = idDigest
        self.app = app
        self.keyFingerprint = keyFingerprint
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}
