import DropTrackCore
import DropTrackModel
import Foundation

/// Who a valid device credential speaks for: one user of one app.
public struct DeviceCaller: Sendable, Equatable {
    /// The app (the credential's `aud`).
    public var app: AppID
    /// The user (the credential's `sub`).
    public var userId: UserID
    /// When it was issued (its `iat`, Unix seconds), if it says: what a revocation of the user's
    /// credentials is checked against.
    public var issuedAt: Int64?
    public init(app: AppID, userId: UserID, issuedAt: Int64? = nil) {
        self.app = app
        self.userId = userId
        self.issuedAt = issuedAt
    }
}

/// Why a device credential is refused: each case is one `401` code of docs/reference/device-api.md.
public enum DeviceCredentialError: Error, Equatable, Sendable {
    /// Not three base64url parts of JSON, or a required claim (`sub`, `exp`) missing or mistyped.
    case malformed
    /// `alg` is `none` or the signature is empty.
    case unsigned
    /// `alg` is not ES256 (the value, as sent).
    case algorithm(String)
    /// No key of the app has this `kid`.
    case unknownKey
    /// The signature does not verify with the key its `kid` names.
    case badSignature
    /// The signature verifies but is the high-s twin (r, n−s) of another: only low s (s ≤ n/2) is taken.
    case highS
    /// `aud` is not an app of this server, or the key that signed it is another app's.
    case wrongAudience
    /// `exp` has passed.
    case expired(at: Date)
    /// `nbf` or `iat` is in the future (beyond a minute's clock skew).
    case notYetValid
    /// `exp` is more than 7 days ahead.
    case tooLong
    /// `kfp` is not a key fingerprint.
    case malformedKeyClaim
    /// `sub` is not a user id by the id rule, so it could never name the user the app registers.
    case malformedSubject
    /// `kfp` names an API key the app no longer has: `apps rotate-key` replaced it, or the app was removed.
    case keyRotated
    /// Signed by a DropTrack-held key but naming no API key (`kfp`): minted before credentials recorded
    /// one, so a key rotation could not reach it.
    case keyUnnamed
    /// The user's credentials issued before this time were revoked (`apps revoke-user`).
    case revoked(notBefore: Date)

    /// The contract's code.
    public var code: RefusalCode {
        switch self {
        case .malformed: .credentialMalformed
        case .unsigned: .credentialUnsigned
        case .algorithm: .credentialAlgorithm
        case .unknownKey: .credentialUnknownKey
        case .badSignature: .credentialBadSignature
        case .highS: .credentialHighS
        case .wrongAudience: .credentialWrongAudience
        case .expired: .credentialExpired
        case .notYetValid: .credentialNotYetValid
        case .tooLong: .credentialTooLong
        case .malformedKeyClaim: .credentialMalformed
        case .malformedSubject: .credentialMalformed
        case .keyRotated: .credentialKeyRotated
        case .keyUnnamed: .credentialKeyUnnamed
        case .revoked: .credentialRevoked
        }
    }

    /// What is wrong and how to fix it; never the credential itself.
    public var message: String {
        switch self {
        case .malformed:
            "the credential is not a JWT (three base64url parts of JSON); send the device credential your backend got"
        case .unsigned: "the credential is unsigned (alg none or an empty signature); sign it with ES256"
        case .algorithm(let alg):
            "the credential is signed with '\(alg.prefix(20))'; only ES256 (P-256) is accepted"
        case .unknownKey:
            "no device key of the app has this kid; register it with 'droptrack apps device-key add' or fix the kid"
        case .badSignature:
            "the credential's signature does not verify with the key its kid names; sign with that key's private half"
        case .highS:
            "the credential's ES256 signature has a high s (s > n/2), the malleable twin of a valid one; only low s is accepted: have the minting code replace s with n − s when s > n/2 (many JWT libraries do not)"
        case .wrongAudience: "the credential's aud is not an app of this server; set aud to your DropTrack app id"
        case .expired(let at):
            "the credential expired at \(ISO8601DateFormatter().string(from: at)); get a fresh one from your backend"
        case .notYetValid:
            "the credential's nbf or iat is in the future; check the minting server's clock"
        case .tooLong: "the credential is valid for more than 7 days; mint it with exp at most 7 days ahead"
        case .malformedKeyClaim:
            "the credential's kfp claim is not a key fingerprint (16 lowercase hex digits, the first 16 of the API key's SHA-256); fix the minting code, or leave kfp out of credentials your backend signs with its own key"
        case .malformedSubject:
            "the credential's sub claim is not a user id (\(Identifier.rule)); mint it with the user id the app registers tokens for"
        case .keyRotated:
            "the credential was minted under an API key its app no longer has (droptrack apps rotate-key replaced it, or the app was removed); mint a new one with the app's current API key"
        case .keyUnnamed:
            "the credential names no API key (claim kfp), so a key rotation could not revoke it: DropTrack minted it before it recorded one; mint a new one with POST /v1/device-credentials"
        case .revoked(let notBefore):
            "the user's device credentials issued before \(ISO8601DateFormatter().string(from: notBefore)) were revoked (droptrack apps revoke-user); mint a new one"
        }
    }
}

/// Verifies and mints device credentials. The router knows only this protocol, so the API does not
/// depend on the crypto; the runtime gives it the ES256 implementation.
public protocol DeviceCredentialAuthority: Sendable {
    /// The caller a credential speaks for, or why it is refused.
    func verify(_ credential: String) throws(DeviceCredentialError) -> DeviceCaller
    /// A new credential for `userId` of `app` valid `ttl` seconds, naming (claim `kfp`) the fingerprint of
    /// the API key it is minted under and issued no earlier than `notBefore` (the user's revocation, if
    /// any), with its expiry; nil when the app has no DropTrack-held signing key.
    func mint(app: String, userId: String, ttl: Int, mintedUnder keyFingerprint: String, notBefore: Int64?) throws
        -> (credential: String, expiresAt: Int64)?
}

/// Longest validity of a device credential, by the contract.
public let deviceCredentialMaximumSeconds: Int64 = 7 * 24 * 3600
