package com.droptrack.android.core

/** One bar segment of `Notification.ProgressStyle`; `color` is `#RRGGBB`, or null for the theme's. */
data class PlanSegment(val length: Int, val color: String?)

/** One point on the bar, at a step boundary. */
data class PlanPoint(val position: Int, val color: String?)

/**
 * Everything `DeliveryNotifier` needs to post one Live Update, decided without Android types so
 * it can be tested on a plain JVM against the same vectors the Swift phone model reads.
 */
data class NotificationPlan(
    /** `notify(tag, id, …)`: FNV-1a of the activity id, so updates replace the card in place. */
    val id: Int,
    /** The activity id, used as the notification tag. */
    val tag: String,
    val title: String,
    val text: String,
    val subText: String,
    /** True until the `end` event: the card then becomes an ordinary, dismissible notification. */
    val ongoing: Boolean,
    val segments: List<PlanSegment>,
    val points: List<PlanPoint>,
    /** Lit segments, 0 to the number of segments. */
    val progress: Int,
    /** `setShortCriticalText`: the status-bar chip, a whole percentage. */
    val chipText: String,
    /** `setWhen`: the ETA in Unix ms, only when it is still ahead of now; null otherwise. */
    val whenMillis: Long?,
    /** `setRequestPromotedOngoing(true)` on API 36+. */
    val requestPromotion: Boolean,
    /** Why Android may refuse to promote it, given what the device reported (codes, see [PromotionRefusal]). */
    val promotionRefusals: List<String>,
    val sequence: Long,
    val event: String,
    /**
     * `setTimeoutAfter`: an ended card leaves the shade after this long, as an ended Live Activity
     * leaves the iPhone's Lock Screen after 4 hours at most; null while the card is ongoing.
     */
    val timeoutAfterMillis: Long?
)

/** Codes for why a requested promotion will not happen; the Swift model says the same in words. */
object PromotionRefusal {
    const val NOT_ONGOING = "not_ongoing"
    const val NO_TITLE = "no_title"
    const val PROMOTED_PERMISSION_MISSING = "promoted_permission_missing"
    const val LIVE_UPDATES_OFF = "live_updates_off"
    /** Nothing shows at all: `areNotificationsEnabled()` is false. */
    const val NOTIFICATIONS_DISABLED = "notifications_disabled"
}

/** The outcome of reading one FCM data map. */
sealed class PlanOutcome {
    data class Planned(val plan: NotificationPlan) : PlanOutcome()

    /** The map is not shown; [field] names the key, [code] says what is wrong with it. */
    data class Refused(val field: String, val code: String, val message: String) : PlanOutcome()
}

/** Refusal codes for [PlanOutcome.Refused]. */
object MapRefusal {
    const val MISSING = "missing"
    const val NOT_A_NUMBER = "not_a_number"
    const val UNKNOWN_VERSION = "unknown_version"
    const val STALE = "stale"
}
