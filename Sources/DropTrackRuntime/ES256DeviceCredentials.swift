import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackModel
import Foundation

/// Device credentials as docs/reference/device-api.md defines them: compact JWS, ES256 with a low s, `sub`/`aud`/`exp`
/// (`iat`/`nbf` honoured), at most 7 days, and `kfp` naming the API key they were minted under (a key
/// the app must still have). Keys are read once, at startup; times come from the
/// injected clock.
public struct ES256DeviceCredentials: DeviceCredentialAuthority {
    struct AppKeys: Sendable {
        var verifying: [String: PublicKey]
        /// The newest DropTrack-held key, which mints.
        var signing: (kid: String, key: PrivateKey)?
        /// The kids of every DropTrack-held key: what they sign always names its API key (`kfp`).
        var held: Set<String> = []
    }

    let apps: [String: AppKeys]
    /// The apps' API keys: a credential naming one (`kfp`) lives while its app has it.
    let keyring: APIKeyring
    let clock: any WallClock

    /// Reads every app's `deviceKeys`. A configuration file's relative paths arrive already resolved
    /// against its directory (``ConfigurationPaths``), as the APNs and FCM key files do.
    public init(apps configurations: [AppConfiguration], clock: any WallClock) throws {
        var apps: [String: AppKeys] = [:]
        for (appIndex, app) in configurations.enumerated() {
            var keys = AppKeys(verifying: [:], signing: nil)
            for (index, entry) in (app.deviceKeys ?? []).enumerated() {
                let field = "apps[\(appIndex)].deviceKeys[\(index)]"
                do {
                    if let file = entry.privateKeyFile {
                        let key = try PrivateKey(pemFile: file, expected: .es256)
                        keys.verifying[entry.kid] = key.publicKey
                        keys.signing = (entry.kid, key)
                        keys.held.insert(entry.kid)
                    } else if let file = entry.publicKeyFile {
                        let key = try PublicKey(pemFile: file)
                        guard key.algorithm == .es256 else {
                            throw CryptoError(.wrongKeyType, "\(file) must hold a P-256 public key, not RSA")
                        }
                        keys.verifying[entry.kid] = key
                    }
                } catch {
                    // The crypto error names the file and what is wrong with it, never the key's bytes.
                    throw ConfigurationError(
                        key: field, "\(field) (kid \(entry.kid)): \(error); fix the file or remove the entry")
                }
            }
            apps[app.id] = keys
        }
        self.apps = apps
        keyring = APIKeyring(apps: configurations)
        self.clock = clock
    }

    public func verify(_ credential: String) throws(DeviceCredentialError) -> DeviceCaller {
        guard let parts = JWS.parse(credential),
            let header = try? JSONValue.parse(bytes: Array(parts.header)),
            let claims = try? JSONValue.parse(bytes: Array(parts.claims)),
            let alg = header["alg"]?.stringValue, claims.objectValue != nil
        else { throw .malformed }
        guard alg.lowercased() != "none", !parts.signature.isEmpty else { throw .unsigned }
        guard alg == "ES256" else { throw .algorithm(alg) }
        guard let audience = claims["aud"]?.stringValue, let keys = apps[audience], let app = AppID(audience) else {
            throw .wrongAudience
        }
        guard let kid = header["kid"]?.stringValue else { throw .unknownKey }
        guard let key = keys.verifying[kid] else {
            // Signed by another app's key: a credential for that app, sent where it does not belong.
            let elsewhere = apps.values.compactMap { $0.verifying[kid] }
            if elsewhere.contains(where: { parts.signature.count == 64 && parts.verify(with: $0) }) {
                throw .wrongAudience
            }
            throw .unknownKey
        }
        guard parts.signature.count == 64, parts.verify(with: key) else { throw .badSignature }
        // Its twin (r, n−s) verifies too: taking only the low one leaves each credential one encoding.
        guard ECDSASignature.isLowS(parts.signature) else { throw .highS }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 200,
            let expiry = Self.seconds(claims["exp"])
        else { throw .malformed }
        let now = clock.unixSeconds()
        guard expiry > now else { throw .expired(at: Date(timeIntervalSince1970: TimeInterval(expiry))) }
        for name in ["nbf", "iat"] {
            guard let value = claims[name] else { continue }
            guard let seconds = Self.seconds(value) else { throw .malformed }
            // A minute's grace: the minting backend's clock and this one are never quite the same.
            guard seconds <= now + 60 else { throw .notYetValid }
        }
        guard expiry - now <= deviceCredentialMaximumSeconds else { throw .tooLong }
        try checkMintedUnder(claims["kfp"], app: app, heldKey: keys.held.contains(kid))
        guard let user = UserID(subject) else { throw .malformedSubject }
        return DeviceCaller(app: app, userId: user, issuedAt: Self.seconds(claims["iat"]))
    }

    /// `kfp`, the fingerprint of the API key the credential was minted under, must name a key the app
    /// still has. DropTrack's own keys sign only credentials that name one, so one of theirs without it
    /// predates the claim; a backend's own key may leave it out (the API key does not mint those).
    func checkMintedUnder(_ claim: JSONValue?, app: AppID, heldKey: Bool) throws(DeviceCredentialError) {
        guard let claim else {
            if heldKey { throw .keyUnnamed }
            return
        }
        guard let fingerprint = claim.stringValue, (try? Fingerprint(validating: fingerprint)) != nil else {
            throw .malformedKeyClaim
        }
        guard keyring.holds(app: app, keyFingerprint: fingerprint) else { throw .keyRotated }
    }

    public func mint(app: String, userId: String, ttl: Int, mintedUnder keyFingerprint: String, notBefore: Int64?)
        throws -> (credential: String, expiresAt: Int64)?
    {
        guard let signing = apps[app]?.signing else { return nil }
        let now = clock.unixSeconds()
        let expiry = now + Int64(ttl)
        // After a revocation in this very second, the new credential must not fall before it (a second
        // ahead is inside the minute of clock skew every verifier allows).
        let issuedAt = max(now, notBefore ?? now)
        let header = JSONValue.object([
            "alg": .string("ES256"), "typ": .string("JWT"), "kid": .string(signing.kid),
        ])
        let claims = JSONValue.object([
            "sub": .string(userId), "aud": .string(app), "iat": .number(Double(issuedAt)),
            "exp": .number(Double(expiry)), "kfp": .string(keyFingerprint),
        ])
        let credential = try JWS.sign(
            header: Data(header.serialized()), claims: Data(claims.serialized()), with: signing.key)
        return (credential, expiry)
    }

    /// A NumericDate: whole seconds (fractions are rounded down).
    static func seconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite, abs(number) < 1e15 else { return nil }
        return Int64(number.rounded(.down))
    }
}
