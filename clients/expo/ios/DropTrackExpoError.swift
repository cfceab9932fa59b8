import Foundation

#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

/// Why a call from JavaScript failed, with the fix. An Expo `Exception`, so JavaScript's rejection
/// carries its `code` (`ERR_DROPTRACK`) and the message, rather than Expo's generic "unexpected" error;
/// also a `LocalizedError`, so Swift callers read the same message.
final class DropTrackExpoError: Exception, LocalizedError, @unchecked Sendable {
    /// The argument or state field to blame, when one is (`etaEpochMillis`, `serverUrl`…).
    let field: String?
    /// What is wrong and how to fix it.
    let message: String

    init(field: String? = nil, _ message: String) {
        self.field = field
        self.message = message
        super.init()
    }

    override var reason: String { "DropTrack: \(message)" }
    override var code: String { "ERR_DROPTRACK" }
    var errorDescription: String? { reason }

    static var notConfigured: DropTrackExpoError {
        DropTrackExpoError(
            "the sync is not running: call DropTrack.configure({ serverUrl, userId, fetchCredential }) at launch first")
    }
}
