package com.droptrack.expo

import android.content.Context
import android.os.Build
import com.droptrack.android.DeliveryNotifier
import com.droptrack.android.DropTrack
import com.droptrack.android.DropTrackSetup
import com.droptrack.android.core.AndroidRules
import com.droptrack.android.core.CredentialRelay
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.PlanOutcome
import com.droptrack.android.core.RegistrationResult
import expo.modules.kotlin.modules.Module
import expo.modules.kotlin.modules.ModuleDefinition
import java.util.UUID

/**
 * The Expo module's Android side, on DropTrack's Android library: JavaScript's calls become the
 * library's registration and notifier calls, and credential requests go to JavaScript as
 * `onCredentialNeeded` events. Live Updates come from the server by FCM; the `…Delivery` calls
 * show a local one through the same planner.
 */
class DropTrackModule : Module() {
    private val credentials = CredentialRelay { reason -> sendEvent("onCredentialNeeded", mapOf("reason" to reason)) }

    private val context: Context
        get() = appContext.reactContext ?: throw IllegalStateException("DropTrack: the React context is gone")

    // The status-bar icon by name: the app's `notification_icon` (expo-notifications writes
    // app.json's notification.icon under that name) or the library's own. Never the launcher icon,
    // which Android masks to a white blob.
    private fun notifier(): DeliveryNotifier = DeliveryNotifier.withIconsByName(context)

    // Functions without arguments spell `{ -> … }`: with no parameter list a lambda could also be
    // the one-argument overload (`it`), and Kotlin before 1.4 cannot choose.
    override fun definition() = ModuleDefinition {
        Name("DropTrack")
        Events("onToken", "onPush", "onCredentialNeeded")

        AsyncFunction("configure") { serverUrl: String, userId: String, deviceId: String?, _: String? ->
            val icon = AndroidRules.statusBarIcon(AndroidRules.STATUS_BAR_ICON_NAMES) { name ->
                context.resources.getIdentifier(name, "drawable", context.packageName)
            }
            val setup = DropTrackSetup(
                baseUrl = serverUrl, userId = userId, deviceId = deviceId ?: "android-" + UUID.randomUUID(),
                smallIcon = icon, trackerIcon = icon, credential = credentials::credential
            )
            DropTrack.start(context, setup) { result -> sendEvent("onToken", tokenEvent(result)) }
        }

        AsyncFunction("setDeviceCredential") { credential: String -> credentials.supply(credential) }

        // Notification channels (API 26) are the floor; promotion needs 36 and is checked per post.
        Function("isSupported") { -> Build.VERSION.SDK_INT >= Build.VERSION_CODES.O }

        AsyncFunction("areActivitiesEnabled") { -> notifier().deviceFacts().notificationsEnabled == true }

        AsyncFunction("startDelivery") { orderId: String, state: Map<String, Any?> ->
            post(orderId, "start", state)
            orderId
        }

        AsyncFunction("updateDelivery") { activityId: String, state: Map<String, Any?> ->
            post(activityId, "update", state)
        }

        AsyncFunction("endDelivery") { activityId: String, state: Map<String, Any?>?, _: Double? ->
            // Android has no dismissal delay: an ended Live Update stays as an ordinary notification.
            post(activityId, "end", state ?: emptyMap())
        }

        AsyncFunction("getRunningActivities") { ->
            LocalDelivery.runningActivities(DropTrack.shownDeliveries().mapValues { it.value.data })
        }

        // The Android library does not report lifecycle changes yet (see clients/android/README.md).
        AsyncFunction("reconcile") { -> mapOf("endedLocally" to emptyList<String>(), "reportedLost" to emptyList<String>()) }
    }

    private fun post(activityId: String, event: String, state: Map<String, Any?>): Boolean {
        val sequence = LocalDelivery.sequence(System.currentTimeMillis())
        val data = LocalDelivery.dataMap(activityId, event, state, sequence)
        val notifier = notifier()
        val outcome = LiveUpdatePlanner.plan(
            data, System.currentTimeMillis(), notifier.deviceFacts(), DropTrack.shownSequence(activityId)
        )
        return when (outcome) {
            is PlanOutcome.Planned -> {
                notifier.post(outcome.plan)
                DropTrack.recordShown(outcome.plan, data)
                true
            }
            is PlanOutcome.Refused -> throw IllegalArgumentException("DropTrack: ${outcome.message}")
        }
    }

    private fun tokenEvent(result: RegistrationResult): Map<String, Any?> = when (result) {
        is RegistrationResult.Registered -> mapOf("kind" to "fcm", "fingerprint" to result.fingerprint, "status" to "registered")
        is RegistrationResult.Refused -> mapOf("kind" to "fcm", "status" to "failed", "error" to "${result.status} ${result.code}: ${result.message}")
        is RegistrationResult.GaveUp -> mapOf("kind" to "fcm", "status" to "retrying", "error" to result.lastProblem)
        is RegistrationResult.Unregistered -> mapOf("kind" to "fcm", "fingerprint" to result.fingerprint, "status" to "failed")
    }
}
