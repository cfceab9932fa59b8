internal import COpenSSL
import Foundation

/// The two key algorithms the push providers use.
public enum KeyAlgorithm: Sendable, Equatable {
    /// ECDSA on P-256 with SHA-256 (APNs provider tokens).
    case es256
    /// RSA PKCS#1 v1.5 with SHA-256 (Google service accounts).
    case rs256
}

/// Owns one `EVP_PKEY`.
final class EVPKey: @unchecked Sendable {
    // Immutable after init and only read by OpenSSL calls that are thread-safe for reading.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    var algorithm: KeyAlgorithm? {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else { return nil }
            let group = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return group == "prime256v1" || group == "P-256" ? .es256 : nil
        case EVP_PKEY_RSA: return EVP_PKEY_get_bits(pointer) >= 2048 ? .rs256 : nil
        default: return nil
        }
    }

    func pem(publicOnly: Bool) -> String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        if publicOnly {
            PEM_write_bio_PUBKEY(bio, pointer)
        } else {
            PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
        return bioString(bio)
    }
}

func bioString(_ bio: OpaquePointer) -> String {
    var data: UnsafeMutablePointer<CChar>? = nil
    let length = copenssl_bio_get_mem_data(bio, &data)
    guard let data, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
}

/// Reads a PEM object. `BIO_new_mem_buf` does not copy, so the whole read stays inside the closure.
func readPEM<T>(_ pem: Data, _ read: (OpaquePointer) -> T?) -> T? {
    pem.withUnsafeBytes { raw -> T? in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return read(bio)
    }
}

/// A private key for signing JWTs: an APNs `.p8` (PKCS#8 P-256) or a service account's RSA key.
public struct PrivateKey: Sendable {
    let key: EVPKey
    /// Which signature this key makes.
    public let algorithm: KeyAlgorithm

    /// Reads a PKCS#8 PEM private key and checks it is the expected kind.
    ///
    /// - Parameters:
    ///   - pem: The PEM bytes (`-----BEGIN PRIVATE KEY-----`).
    ///   - expected: The required algorithm, or nil to accept either.
    ///   - source: Names the key in errors (a file path or a JSON field).
    public init(pem: Data, expected: KeyAlgorithm? = nil, source: String = "the key") throws {
        guard let pointer = readPEM(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            _ = CryptoError.openSSLQueue()
            throw CryptoError(
                .malformedPEM, "\(source) is not a PEM private key (expected -----BEGIN PRIVATE KEY-----, PKCS#8)")
        }
        let key = EVPKey(pointer)
        guard let algorithm = key.algorithm else {
            throw CryptoError(
                .wrongKeyType,
                "\(source) holds a key that is neither P-256 (APNs .p8) nor RSA 2048+ (service account)")
        }
        if let expected, expected != algorithm {
            let want = expected == .es256 ? "an EC P-256 key (an APNs .p8)" : "an RSA key"
            throw CryptoError(.wrongKeyType, "\(source) must hold \(want)")
        }
        self.key = key
        self.algorithm = algorithm
    }

    /// Reads a private key from a file, naming the file in every error.
    public init(pemFile path: String, expected: KeyAlgorithm? = nil) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(.unreadableFile, "cannot read key file \(path): check the path and its permissions")
        }
        try self.init(pem: data, expected: expected, source: "key file \(path)")
    }

    /// Makes a new key of the given kind.
    public static func generate(_ algorithm: KeyAlgorithm) throws -> PrivateKey {
        let name = algorithm == .es256 ? "EC" : "RSA"
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw CryptoError(.generationFailed, "cannot create a \(name) key context: \(CryptoError.openSSLQueue())")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else {
            throw CryptoError(.generationFailed, "keygen init failed: \(CryptoError.openSSLQueue())")
        }
        let configured =
            algorithm == .es256
            ? EVP_PKEY_CTX_set_group_name(ctx, "P-256") : EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048)
        guard configured == 1 else {
            throw CryptoError(.generationFailed, "keygen parameters failed: \(CryptoError.openSSLQueue())")
        }
        var pointer: OpaquePointer? = nil
        guard EVP_PKEY_keygen(ctx, &pointer) == 1, let pointer else {
            throw CryptoError(.generationFailed, "keygen failed: \(CryptoError.openSSLQueue())")
        }
        let key = EVPKey(pointer)
        return PrivateKey(key: key, algorithm: algorithm)
    }

    private init(key: EVPKey, algorithm: KeyAlgorithm) {
        self.key = key
        self.algorithm = algorithm
    }

    /// The PKCS#8 PEM of this key (what an APNs `.p8` file holds).
    public var pkcs8PEM: String { key.pem(publicOnly: false) }

    /// The SubjectPublicKeyInfo PEM of the matching public key.
    public var publicKeyPEM: String { key.pem(publicOnly: true) }

    /// The matching public key.
    public var publicKey: PublicKey { try! PublicKey(pem: Data(publicKeyPEM.utf8)) }

    /// Signs `message` with SHA-256. ES256 signatures come back as the raw 64-byte r‖s that JWS
    /// requires (OpenSSL makes DER), with a low s (at most n/2); RS256 signatures as PKCS#1 v1.5.
    public func sign(_ message: some Collection<UInt8>) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError(.signingFailed, "cannot allocate a digest") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw CryptoError(.signingFailed, "sign init failed: \(CryptoError.openSSLQueue())")
        }
        let bytes = Array(message)
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, bytes, bytes.count) == 1 else {
            throw CryptoError(.signingFailed, "signing failed: \(CryptoError.openSSLQueue())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, bytes, bytes.count) == 1 else {
            throw CryptoError(.signingFailed, "signing failed: \(CryptoError.openSSLQueue())")
        }
        signature.removeSubrange(length...)
        // OpenSSL returns whichever of (r, s) and (r, n−s) it computed: keep the low one, the only one
        // device credentials accept (and what APNs, which takes both, gets as well).
        return algorithm == .es256 ? ECDSASignature.lowS(try ECDSASignature.rawFromDER(signature)) : signature
    }
}

/// A public key for verifying JWTs, read from a SubjectPublicKeyInfo PEM.
public struct PublicKey: Sendable {
    let key: EVPKey
    /// Which signature this key checks.
    public let algorithm: KeyAlgorithm

    /// Reads a `-----BEGIN PUBLIC KEY-----` PEM.
    public init(pem: Data, source: String = "the public key") throws {
        guard let pointer = readPEM(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            _ = CryptoError.openSSLQueue()
            throw CryptoError(.malformedPEM, "\(source) is not a PEM public key (expected -----BEGIN PUBLIC KEY-----)")
        }
        let key = EVPKey(pointer)
        guard let algorithm = key.algorithm else {
            throw CryptoError(.wrongKeyType, "\(source) is neither a P-256 nor an RSA 2048+ public key")
        }
        self.key = key
        self.algorithm = algorithm
    }

    /// Reads a public key file, naming it in errors.
    public init(pemFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(
                .unreadableFile, "cannot read public key file \(path): check the path and its permissions")
        }
        try self.init(pem: data, source: "public key file \(path)")
    }

    /// The SubjectPublicKeyInfo PEM.
    public var pem: String { key.pem(publicOnly: true) }

    /// Checks a SHA-256 signature. For ES256 both the raw 64-byte r‖s form and DER are accepted,
    /// as APNs accepts both.
    public func verify(signature: [UInt8], for message: some Collection<UInt8>) -> Bool {
        var der = signature
        if algorithm == .es256 && signature.count == 64 {
            guard let converted = try? ECDSASignature.derFromRaw(signature) else { return false }
            der = converted
        }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            _ = CryptoError.openSSLQueue()
            return false
        }
        let bytes = Array(message)
        let ok = EVP_DigestVerify(ctx, der, der.count, bytes, bytes.count) == 1
        if !ok { _ = CryptoError.openSSLQueue() }
        return ok
    }
}

/// Converts ECDSA P-256 signatures between DER (what OpenSSL makes) and raw r‖s (what JWS wants).
public enum ECDSASignature {
    /// DER `SEQUENCE{INTEGER r, INTEGER s}` to 64 bytes, left-padding r and s to 32 bytes each.
    public static func rawFromDER(_ der: [UInt8]) throws -> [UInt8] {
        try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                throw CryptoError(.signingFailed, "not a DER ECDSA signature")
            }
            defer { ECDSA_SIG_free(sig) }
            var r: OpaquePointer? = nil
            var s: OpaquePointer? = nil
            ECDSA_SIG_get0(sig, &r, &s)
            var raw = [UInt8](repeating: 0, count: 64)
            let ok = raw.withUnsafeMutableBufferPointer { out in
                BN_bn2binpad(r, out.baseAddress, 32) == 32 && BN_bn2binpad(s, out.baseAddress! + 32, 32) == 32
            }
            guard ok else { throw CryptoError(.signingFailed, "ECDSA r or s is longer than 32 bytes") }
            return raw
        }
    }

    /// 64 raw bytes to DER.
    public static func derFromRaw(_ raw: [UInt8]) throws -> [UInt8] {
        guard raw.count == 64 else { throw CryptoError(.signingFailed, "a raw ES256 signature is 64 bytes") }
        guard let sig = ECDSA_SIG_new() else { throw CryptoError(.signingFailed, "cannot allocate a signature") }
        defer { ECDSA_SIG_free(sig) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError(.signingFailed, "cannot build a DER signature")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(sig, &out)
        guard length > 0, let out else { throw CryptoError(.signingFailed, "cannot encode a DER signature") }
        defer { copenssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
