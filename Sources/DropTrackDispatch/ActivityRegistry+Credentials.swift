import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

// Taking back one user's device credentials, in the store so every replica refuses them at once.
extension ActivityRegistry {
    /// Refuses every device credential of the user issued up to now (`iat` before the next whole
    /// second, or no `iat` at all), on every replica; credentials issued from then on work. Answers
    /// that time, Unix seconds: the `notBefore` kept for the user. Revoking again moves it later.
    public func revokeDeviceCredentials(app appID: String, userId: String) throws(Refusal) -> Int64 {
        _ = try app(appID)
        try Identifier.check(userId, field: "userId")
        // Whole seconds, as `iat` is: a credential issued within this second, even just before, is refused.
        let notBefore = Int64(clock.now().timeIntervalSince1970.rounded(.down)) + 1
        try transact { tx in try tx.revokeDeviceCredentials(app: appID, userId: userId, notBefore: notBefore) }
        return notBefore
    }

    /// The time (Unix seconds) before which the user's device credentials are refused, or nil.
    public func deviceCredentialsNotBefore(app appID: String, userId: String) throws(Refusal) -> Int64? {
        try transact { tx in try tx.deviceCredentialsNotBefore(app: appID, userId: userId) }
    }
}
