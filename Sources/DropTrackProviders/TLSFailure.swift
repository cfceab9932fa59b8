/// A TLS handshake refused on the server's certificate is configuration, not a passing fault:
/// the same handshake fails the same way until the trusted CA changes, so the words say which
/// setting fixes it instead of "send again later".
public enum TLSFailure {
    /// True for the message of a handshake that failed on the peer's certificate.
    public static func isCertificateVerification(_ message: String) -> Bool {
        message.contains("certificate verification failed")
    }

    /// What to do, naming the CLI flag and the server setting.
    public static let advice =
        "Remedy: the server's TLS certificate is not signed by a CA this machine trusts. Pass --ca-file PATH with the CA that signed it (for the local emulators, keys/ca.pem from `droptrack-dev keys dev`, or the ca-file the emulator printed at start); a server takes caFile in its configuration or DROPTRACK_CA_FILE. Sending again unchanged fails the same way."
}
