package com.droptrack.expo

import com.droptrack.android.core.LiveUpdateSync
import com.droptrack.android.core.SyncSetup
import com.droptrack.android.core.SyncEvent

/**
 * The module's native functions on Android, as plain Kotlin over the library's [LiveUpdateSync],
 * so the behaviour `clients/expo/test/contract/cases.json` pins for both phones is checked on the JVM:
 * an update of an id the phone does not show answers false and shows nothing; an end without a
 * state ends with the state shown; `dismissAfterSeconds` null keeps the ended card 4 hours (iOS's
 * default), 0 removes it now, N removes it after N seconds; an end of an unknown id is refused.
 */
class ExpoDeliveries(private val sync: LiveUpdateSync) {
    /** Shows the delivery's card; answers its local id, which on Android is the order id. */
    fun start(orderId: String, state: Map<String, Any?>): String {
        // The id names the card's notification and its dismissal: it must be one the server takes too.
        if (!SyncSetup.isIdentifier(orderId)) throw ModuleError("orderId", "'orderId' '$orderId' is not an id: ${SyncSetup.IDENTIFIER_RULE}")
        if (!sync.startLocal(orderId, LocalDelivery.dataMap(orderId, "start", state))) {
            throw ModuleError("orderId", "the card for '$orderId' was refused (the device log names the field)")
        }
        return orderId
    }

    /** False, and nothing shown, when the phone shows no ongoing card for this id. */
    fun update(activityId: String, state: Map<String, Any?>): Boolean =
        sync.updateLocal(activityId, LocalDelivery.dataMap(activityId, "update", state))

    fun end(activityId: String, state: Map<String, Any?>?, dismissAfterSeconds: Double?) {
        if (dismissAfterSeconds != null && !(dismissAfterSeconds >= 0 && dismissAfterSeconds <= MAX_DISMISS_SECONDS)) {
            throw ModuleError("dismissAfterSeconds", "'dismissAfterSeconds' must be from 0 to $MAX_DISMISS_SECONDS, or null for the default (4 hours)")
        }
        val data = state?.let { LocalDelivery.dataMap(activityId, "end", it) }
        if (!sync.endLocal(activityId, data, dismissAfterSeconds?.let { Math.round(it * 1000) })) {
            throw ModuleError(
                "activityId",
                "the phone shows no delivery '$activityId': pass the id startDelivery answered or the order id (getRunningActivities lists them)"
            )
        }
    }

    fun running(): List<Map<String, Any?>> = LocalDelivery.runningActivities(sync.running())

    /** `{endedLocally, reportedLost}`; a server that could not be asked rejects, naming why. */
    fun reconcile(): Map<String, Any?> {
        val outcome = sync.reconcile()
        outcome.failure?.let { throw ModuleError(null, "could not reconcile with the server: $it") }
        return mapOf("endedLocally" to outcome.endedLocally, "reportedLost" to outcome.reportedLost)
    }

    companion object {
        const val MAX_DISMISS_SECONDS = 14_400.0

        /** Live Updates exist from Android 16 (API 36); before it a card is an ordinary progress notification. */
        fun isSupported(sdkInt: Int): Boolean = sdkInt >= 36

        /**
         * Whether the server can start a card while the app is not running: on Android an FCM data
         * message does that wherever Live Updates exist (iOS needs 17.2 for push-to-start).
         */
        fun isPushToStartEligible(sdkInt: Int): Boolean = isSupported(sdkInt)

        /** `onToken`'s body for a token event, fingerprint only; null for other events. */
        fun tokenEvent(event: SyncEvent): Map<String, Any?>? = when (event) {
            is SyncEvent.TokenRegistered -> mapOf("kind" to "fcm", "fingerprint" to event.fingerprint, "status" to "registered")
            is SyncEvent.TokenRetrying -> mapOf(
                "kind" to "fcm", "fingerprint" to event.fingerprint, "status" to "retrying",
                "error" to event.problem, "nextAttemptAt" to event.nextAttemptAtMillis.toDouble()
            )
            is SyncEvent.TokenFailed -> mapOf("kind" to "fcm", "fingerprint" to event.fingerprint, "status" to "failed", "error" to event.problem)
            else -> null
        }

        /** `onPush`'s body for a push the phone received, shown or dropped; null for other events. */
        fun pushEvent(event: SyncEvent): Map<String, Any?>? = when (event) {
            is SyncEvent.Shown -> if (event.fromPush) mapOf("activityId" to event.activityId, "event" to event.event) else null
            is SyncEvent.Dropped -> mapOf("activityId" to (event.activityId ?: ""), "event" to (event.event ?: "update"), "dropped" to event.reason)
            else -> null
        }
    }
}
