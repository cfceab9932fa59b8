package com.droptrack.expo

import com.droptrack.android.core.CardPhase
import com.droptrack.android.core.CardRecord
import com.droptrack.android.core.LiveUpdatePlanner.Key

/**
 * A delivery the app starts or updates itself, as the contract's FCM data map, so a local update
 * and a push from the server render through the same planner and notifier. JavaScript numbers
 * arrive as doubles; the map writes them as the server does (plain decimals, whole integers). The
 * `sequence` is stamped by the sync (now, and never older than the card it replaces).
 */
object LocalDelivery {
    fun dataMap(activityId: String, event: String, state: Map<String, Any?>): Map<String, String> {
        fun text(key: String) = state[key] as? String ?: throw ModuleError(key, "'$key' must be a string")
        fun number(key: String) = (state[key] as? Number)?.toDouble() ?: throw ModuleError(key, "'$key' must be a number")
        val reassigned = state[Key.RIDER_REASSIGNED] as? Boolean ?: throw ModuleError(Key.RIDER_REASSIGNED, "'${Key.RIDER_REASSIGNED}' must be true or false")
        return linkedMapOf(
            Key.ACTIVITY_ID to activityId,
            Key.EVENT to event,
            Key.ORDER_ID to activityId,
            Key.STATUS to text(Key.STATUS),
            Key.PROGRESS to plain(number(Key.PROGRESS)),
            Key.ETA_EPOCH_MILLIS to number(Key.ETA_EPOCH_MILLIS).toLong().toString(),
            Key.STOPS_REMAINING to number(Key.STOPS_REMAINING).toLong().toString(),
            Key.COURIER_NAME to text(Key.COURIER_NAME),
            Key.RIDER_REASSIGNED to reassigned.toString(),
            Key.SCHEMA_VERSION to "1"
        )
    }

    /** A number as the server writes it: `1` not `1.0`, `0.5` as is. */
    private fun plain(value: Double): String = if (value == Math.floor(value) && Math.abs(value) < 1e15) value.toLong().toString() else value.toString()

    /**
     * What `getRunningActivities()` answers for the cards shown: each with the delivery state it
     * shows (`contentState`, the TypeScript `RunningActivity`'s required field), read back from the
     * data map it was posted from. An ended card is `ended`. On Android the local id is the
     * activity id (a card is the notification tagged with it).
     */
    fun runningActivities(cards: List<CardRecord>): List<Map<String, Any?>> =
        cards.sortedBy { it.activityId }.map { card ->
            mapOf(
                "activityId" to card.activityId,
                "localId" to card.activityId,
                "state" to if (card.phase == CardPhase.ENDED) "ended" else "active",
                "contentState" to contentState(card.data)
            )
        }

    /** The delivery state a data map carries, typed as JavaScript's `DeliveryState` (numbers as doubles). */
    fun contentState(data: Map<String, String>): Map<String, Any?> = linkedMapOf(
        Key.STATUS to (data[Key.STATUS] ?: ""),
        Key.PROGRESS to (data[Key.PROGRESS]?.toDoubleOrNull() ?: 0.0),
        Key.ETA_EPOCH_MILLIS to (data[Key.ETA_EPOCH_MILLIS]?.toDoubleOrNull() ?: 0.0),
        Key.STOPS_REMAINING to (data[Key.STOPS_REMAINING]?.toDoubleOrNull() ?: 0.0),
        Key.COURIER_NAME to (data[Key.COURIER_NAME] ?: ""),
        Key.RIDER_REASSIGNED to (data[Key.RIDER_REASSIGNED] == "true")
    )
}

/** A call from JavaScript that cannot be done, naming the argument or field and the fix; Expo rejects the promise with it. */
class ModuleError(val field: String?, message: String) : IllegalArgumentException("DropTrack: $message")
