package com.droptrack.android.core

/** `Intent.FLAG_ACTIVITY_*` flags a card's content intent sets. */
enum class LaunchFlag { SINGLE_TOP, CLEAR_TOP }

/** `PendingIntent.FLAG_*` flags a card's intents are made with. */
enum class PendingFlag { IMMUTABLE, UPDATE_CURRENT }

/**
 * One PendingIntent a card carries, decided here so the rules are tested on the JVM; the glue
 * (`DeliveryNotifier`) makes the platform objects from it and adds nothing of its own.
 */
data class CardIntent(
    /** Per activity, so two cards never share (and overwrite) one PendingIntent. */
    val requestCode: Int,
    /** The broadcast's action (the delete intent); null for the content intent, which is the app's launch intent. */
    val action: String?,
    val launchFlags: Set<LaunchFlag>,
    val pendingFlags: Set<PendingFlag>,
    val extras: Map<String, String>
)

/**
 * The tap and swipe of a card. Tapping opens the app on the activity: the app's own launch intent
 * (never a class name, which Expo's prebuild regenerates), brought to the front rather than stacked
 * again (SINGLE_TOP | CLEAR_TOP), with the activity id as an extra. Swiping it away sends the
 * library's receiver [ACTION_DISMISSED] with the activity id, so the card is never posted again and
 * the server hears `dismissed`. Both are IMMUTABLE (Android 12 requires one of IMMUTABLE or MUTABLE,
 * and nothing needs to fill them in) and UPDATE_CURRENT, with the card's own request code.
 */
object CardIntents {
    /** The extra naming the card's activity, on both intents. */
    const val EXTRA_ACTIVITY_ID = "com.droptrack.android.extra.ACTIVITY_ID"

    /** The delete intent's action, which only the library's (not exported) receiver handles. */
    const val ACTION_DISMISSED = "com.droptrack.android.action.CARD_DISMISSED"

    fun content(activityId: String) = CardIntent(
        requestCode = LiveUpdatePlanner.stableId(activityId), action = null,
        launchFlags = setOf(LaunchFlag.SINGLE_TOP, LaunchFlag.CLEAR_TOP),
        pendingFlags = setOf(PendingFlag.IMMUTABLE, PendingFlag.UPDATE_CURRENT),
        extras = mapOf(EXTRA_ACTIVITY_ID to activityId)
    )

    fun delete(activityId: String) = CardIntent(
        requestCode = LiveUpdatePlanner.stableId(activityId), action = ACTION_DISMISSED,
        launchFlags = emptySet(), pendingFlags = setOf(PendingFlag.IMMUTABLE, PendingFlag.UPDATE_CURRENT),
        extras = mapOf(EXTRA_ACTIVITY_ID to activityId)
    )

    /** The activity a received broadcast reports dismissed, or null when it is not the library's delete intent. */
    fun dismissedActivity(action: String?, extra: (String) -> String?): String? {
        if (action != ACTION_DISMISSED) return null
        val activityId = extra(EXTRA_ACTIVITY_ID) ?: return null
        return if (SyncSetup.isIdentifier(activityId)) activityId else null
    }
}
