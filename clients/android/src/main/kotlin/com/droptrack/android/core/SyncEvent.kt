package com.droptrack.android.core

/**
 * What the sync did, as it happens: for the app's log, and for the Expo module's `onPush` and
 * `onToken` events. Tokens appear by fingerprint only (the server's name for them, safe to log).
 */
sealed class SyncEvent {
    /** A push (or the app's own call) was shown as the activity's card. */
    data class Shown(val activityId: String, val event: String, val fromPush: Boolean) : SyncEvent()

    /** A push was not shown; [reason] says why (stale, dismissed by the person, a bad field). */
    data class Dropped(val activityId: String?, val event: String?, val reason: String) : SyncEvent()

    data class TokenRegistered(val fingerprint: String, val created: Boolean) : SyncEvent()

    /** The token is queued and will be sent again at [nextAttemptAtMillis] (or sooner, when the app configures). */
    data class TokenRetrying(val fingerprint: String, val attempts: Int, val nextAttemptAtMillis: Long, val problem: String) : SyncEvent()

    /** The server refused the token for good (the message says why and the fix); it is not sent again. */
    data class TokenFailed(val fingerprint: String, val status: Int, val problem: String) : SyncEvent()

    /** The server recorded what the phone saw of the activity's card. */
    data class Reported(val activityId: String, val state: String) : SyncEvent()

    /** A lifecycle report the server refused (404: it has no such activity of this user); not sent again. */
    data class ReportDropped(val activityId: String, val state: String, val problem: String) : SyncEvent()
}

/** What `LiveUpdateSync.reconcile` did. */
data class ReconcileOutcome(
    /** Activities the server had ended whose cards were still ongoing here: now ended here too. */
    val endedLocally: List<String>,
    /** Activities whose cards were gone from the shade without the library hearing why: reported `lost`. */
    val reportedLost: List<String>,
    /** Why the server could not be asked, when it could not (the shade was still checked). */
    val failure: String?
)
