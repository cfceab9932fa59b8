import Foundation

/// Compact JWS (`header.claims.signature`), the form both provider tokens and Google's OAuth2
/// assertions take. The JSON halves are built and read by the callers.
public enum JWS {
    /// Signs `header` and `claims` (JSON bytes) and returns the compact token.
    public static func sign(header: Data, claims: Data, with key: PrivateKey) throws -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The parts of a compact token, decoded but not yet verified.
    public struct Parts: Sendable {
        /// The header JSON.
        public var header: Data
        /// The claims JSON.
        public var claims: Data
        /// The signature bytes.
        public var signature: [UInt8]
        /// `base64url(header).base64url(claims)`, the bytes the signature covers.
        public var signingInput: String

        /// True when `key` made the signature.
        public func verify(with key: PublicKey) -> Bool {
            key.verify(signature: signature, for: Array(signingInput.utf8))
        }
    }

    /// Splits and decodes a compact token, or returns nil when it is not one.
    public static func parse(_ token: String) -> Parts? {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3,
            let header = Base64URL.decode(pieces[0]),
            let claims = Base64URL.decode(pieces[1]),
            let signature = Base64URL.decode(pieces[2])
        else { return nil }
        return Parts(
            header: Data(header), claims: Data(claims), signature: signature,
            signingInput: String(pieces[0]) + "." + String(pieces[1]))
    }
}
