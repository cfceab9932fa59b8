import Foundation

/// Hands the sync a device credential that only JavaScript can get (from the app's backend): each
/// request becomes an `onCredentialNeeded` event, and waits, bounded, for `setDeviceCredential`.
@available(iOS 16.0, *)
actor CredentialRelay {
    /// Says to JavaScript that a credential is needed, and why (`start`, `expired`).
    private let announce: @Sendable (_ reason: String) -> Void
    private let timeout: Duration
    private var waiting: [UInt64: CheckedContinuation<String, any Error>] = [:]
    private var nextWaiter: UInt64 = 0
    /// A credential JavaScript supplied before anyone asked; the next request takes it.
    private var unasked: String?
    /// Whether JavaScript ever supplied one: later requests mean the server refused it.
    private var supplied = false

    init(timeout: Duration = .seconds(30), announce: @escaping @Sendable (_ reason: String) -> Void) {
        self.timeout = timeout
        self.announce = announce
    }

    /// A credential from JavaScript; fails when none arrives within the timeout.
    func credential() async throws -> String {
        // The sync asks again only after the server refused the last one.
        let reason = supplied ? "expired" : "start"
        if let unasked {
            self.unasked = nil
            return unasked
        }
        let waiter = nextWaiter
        nextWaiter += 1
        let timeout = self.timeout
        let deadline = Task {
            try await Task.sleep(for: timeout)
            self.expire(waiter)
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            // Requests made together share one event, and one answer.
            if waiting.isEmpty { announce(reason) }
            waiting[waiter] = continuation
        }
    }

    /// JavaScript's answer: every waiting request gets it.
    func supply(_ credential: String) {
        supplied = true
        guard !waiting.isEmpty else {
            unasked = credential
            return
        }
        for continuation in waiting.values { continuation.resume(returning: credential) }
        waiting = [:]
    }

    private func expire(_ waiter: UInt64) {
        guard let continuation = waiting.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: DropTrackExpoError.credentialTimedOut(after: timeout))
    }
}

@available(iOS 16.0, *)
extension DropTrackExpoError {
    static func credentialTimedOut(after timeout: Duration) -> DropTrackExpoError {
        DropTrackExpoError(
            "no device credential within \(timeout.components.seconds) s of onCredentialNeeded: pass "
                + "fetchCredential to DropTrack.configure (the JavaScript side answers with setDeviceCredential), "
                + "and make your backend's credential call finish sooner; the sync asks again later")
    }
}
