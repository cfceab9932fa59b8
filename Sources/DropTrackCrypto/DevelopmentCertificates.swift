internal import COpenSSL
import Foundation

/// A throwaway certificate authority and a server certificate it signed, for running the
/// emulators over real TLS on loopback. Never for production.
public struct DevelopmentCertificates: Sendable {
    /// The CA certificate (PEM): what a client trusts.
    public var caCertificatePEM: String
    /// The server certificate (PEM), valid for `localhost` and `127.0.0.1`.
    public var serverCertificatePEM: String
    /// The server's private key (PKCS#8 PEM).
    public var serverKeyPEM: String

    /// Makes a new CA (P-256, 10 years) and a server certificate (P-256, 2 years) for the given names.
    public static func generate(
        dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1"]
    ) throws -> DevelopmentCertificates {
        let caKey = try PrivateKey.generate(.es256)
        let serverKey = try PrivateKey.generate(.es256)
        let ca = try makeCertificate(
            commonName: "DropTrack Development CA", subjectKey: caKey, issuer: nil, issuerKey: caKey, days: 3650,
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        defer { X509_free(ca) }
        let san = (dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }).joined(separator: ",")
        let server = try makeCertificate(
            commonName: dnsNames.first ?? "localhost", subjectKey: serverKey, issuer: ca, issuerKey: caKey, days: 730,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"), (NID_subject_alt_name, san),
                (NID_subject_key_identifier, "hash"), (NID_authority_key_identifier, "keyid"),
            ])
        defer { X509_free(server) }
        return DevelopmentCertificates(
            caCertificatePEM: certificatePEM(ca), serverCertificatePEM: certificatePEM(server),
            serverKeyPEM: serverKey.pkcs8PEM)
    }

    private static func certificatePEM(_ cert: OpaquePointer) -> String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        PEM_write_bio_X509(bio, cert)
        return bioString(bio)
    }

    private static func makeCertificate(
        commonName: String, subjectKey: PrivateKey, issuer: OpaquePointer?, issuerKey: PrivateKey, days: Int,
        extensions: [(Int32, String)]
    ) throws -> OpaquePointer {
        guard let cert = X509_new() else { throw CryptoError(.generationFailed, "cannot allocate a certificate") }
        var serial = [UInt8](repeating: 0, count: 8)
        _ = RAND_bytes(&serial, 8)
        serial[0] &= 0x7f
        let serialNumber = serial.reduce(0) { ($0 << 8) | Int($1) }
        X509_set_version(cert, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(cert), serialNumber)
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600)
        X509_gmtime_adj(X509_getm_notAfter(cert), days * 86_400)
        X509_set_pubkey(cert, subjectKey.key.pointer)
        let name = X509_get_subject_name(cert)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "DropTrack", -1, -1, 0)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0)
        X509_set_issuer_name(cert, issuer.map { X509_get_subject_name($0) } ?? name)

        var context = X509V3_CTX()
        copenssl_x509v3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer ?? cert, cert, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                X509_free(cert)
                throw CryptoError(
                    .generationFailed, "bad certificate extension \(value): \(CryptoError.openSSLQueue())")
            }
            X509_add_ext(cert, ext, -1)
            X509_EXTENSION_free(ext)
        }
        guard X509_sign(cert, issuerKey.key.pointer, EVP_sha256()) > 0 else {
            X509_free(cert)
            throw CryptoError(.generationFailed, "certificate signing failed: \(CryptoError.openSSLQueue())")
        }
        return cert
    }
}
