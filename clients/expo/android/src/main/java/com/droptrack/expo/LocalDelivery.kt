package com.droptrack.expo

import com.droptrack.android.core.LiveUpdatePlanner.Key

/**
 * A delivery the app starts or updates itself, as the contract's FCM data map, so a local update
 * and a push from the server render through the same planner and notifier. JavaScript numbers
 * arrive as doubles; the map writes them as the server does (plain decimals, whole integers).
 */
object LocalDelivery {
    /** The sequence of a local update: Unix seconds, the same clock the server's sequences use. */
    fun sequence(nowMillis: Long): Long = nowMillis / 1000

    fun dataMap(activityId: String, event: String, state: Map<String, Any?>, sequence: Long): Map<String, String> {
        fun text(key: String) = state[key] as? String ?: throw IllegalArgumentException("'$key' must be a string")
        fun number(key: String) = (state[key] as? Number)?.toDouble() ?: throw IllegalArgumentException("'$key' must be a number")
        val reassigned = state[Key.RIDER_REASSIGNED] as? Boolean
            ?: throw IllegalArgumentException("'${Key.RIDER_REASSIGNED}' must be true or false")
        return linkedMapOf(
            Key.ACTIVITY_ID to activityId,
            Key.EVENT to event,
            Key.ORDER_ID to activityId,
            Key.STATUS to text(Key.STATUS),
            Key.PROGRESS to number(Key.PROGRESS).toString(),
            Key.ETA_EPOCH_MILLIS to number(Key.ETA_EPOCH_MILLIS).toLong().toString(),
            Key.STOPS_REMAINING to number(Key.STOPS_REMAINING).toLong().toString(),
            Key.COURIER_NAME to text(Key.COURIER_NAME),
            Key.RIDER_REASSIGNED to reassigned.toString(),
            Key.SCHEMA_VERSION to "1",
            Key.SEQUENCE to sequence.toString()
        )
    }

    /**
     * What `getRunningActivities()` answers: one entry per card shown, each with the delivery
     * state it shows (`contentState`, the TypeScript `RunningActivity`'s required field), read
     * back from the data map it was posted from. An ended card is `ended`.
     */
    fun runningActivities(shown: Map<String, Map<String, String>>): List<Map<String, Any?>> =
        shown.keys.sorted().map { activityId ->
            val data = shown.getValue(activityId)
            mapOf(
                "activityId" to activityId,
                "localId" to activityId,
                "state" to if (data[Key.EVENT] == "end") "ended" else "active",
                "contentState" to contentState(data)
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
