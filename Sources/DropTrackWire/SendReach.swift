/// Whether a push reached its provider: what decides if sending it again is safe.
///
/// An update or an end sent twice is harmless (the device keeps the newest timestamp), but a
/// push-to-start sent twice puts a second Live Activity on the phone. So a start is sent again only
/// when it provably never left this machine.
public enum SendReach: String, Sendable, Hashable {
    /// The provider answered.
    case answered
    /// The request provably never reached the provider: no connection (refused, TLS or DNS failure),
    /// refused before sending, a stream the server refused (`REFUSED_STREAM`) or never took (above a
    /// GOAWAY's last stream id, RFC 9113 §6.8). Sending again cannot duplicate it.
    case notSent
    /// The request was written and no answer came: a reset connection, a deadline on a written
    /// stream, a stream reset. The provider may have processed it.
    case inDoubt
}
