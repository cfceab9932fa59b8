import Foundation

/// Why a call from JavaScript failed, with the fix. `LocalizedError`, so the message is what Expo
/// hands JavaScript as the rejection's message rather than a generic "operation couldn't be completed".
struct DropTrackExpoError: Error, Equatable, LocalizedError, CustomStringConvertible {
    /// The argument or state field to blame, when one is (`etaEpochMillis`, `serverUrl`…).
    var field: String?
    /// What is wrong and how to fix it.
    var message: String

    init(field: String? = nil, _ message: String) {
        self.field = field
        self.message = message
    }

    var errorDescription: String? { "DropTrack: \(message)" }
    var description: String { "DropTrack: \(message)" }

    static let notConfigured = DropTrackExpoError(
        "the sync is not running: call DropTrack.configure({ serverUrl, userId, fetchCredential }) at launch first")
}
