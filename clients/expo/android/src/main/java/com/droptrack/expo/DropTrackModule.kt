package com.droptrack.expo

import android.Manifest
import android.content.Context
import android.os.Build
import com.droptrack.android.DropTrack
import com.droptrack.android.DropTrackSetup
import com.droptrack.android.NotificationPermission
import com.droptrack.android.core.CredentialRelay
import com.droptrack.android.core.SyncEvent
import expo.modules.interfaces.permissions.PermissionsResponse
import expo.modules.interfaces.permissions.PermissionsResponseListener
import expo.modules.interfaces.permissions.PermissionsStatus
import expo.modules.kotlin.modules.Module
import expo.modules.kotlin.modules.ModuleDefinition
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread

/**
 * The Expo module's Android side, on DropTrack's Android library. `configure` saves the setup
 * through `DropTrack.start`, so FCM's service shows pushes and registers rotated tokens in a process
 * where JavaScript never ran; credential requests go to JavaScript as `onCredentialNeeded`, and the
 * credential it answers is kept sealed for such processes. The delivery calls are [ExpoDeliveries];
 * the library's events become `onToken` and `onPush`.
 */
class DropTrackModule : Module() {
    private val credentials = CredentialRelay { reason -> sendEvent("onCredentialNeeded", mapOf("reason" to reason)) }

    private val events: (SyncEvent) -> Unit = { event ->
        ExpoDeliveries.tokenEvent(event)?.let { sendEvent("onToken", it) }
        ExpoDeliveries.pushEvent(event)?.let { sendEvent("onPush", it) }
    }

    private val context: Context
        get() = appContext.reactContext ?: throw IllegalStateException("DropTrack: the React context is gone")

    private fun deliveries() = ExpoDeliveries(DropTrack.sync(context))

    // Functions without arguments spell `{ -> … }`: with no parameter list a lambda could also be
    // the one-argument overload (`it`), and Kotlin before 1.4 cannot choose.
    override fun definition() = ModuleDefinition {
        Name("DropTrack")
        Events("onToken", "onPush", "onCredentialNeeded")

        OnCreate {
            DropTrack.addListener(events)
            // Work a killed process queued (a token, dismissals) goes now, before JavaScript configures anything.
            val app = context.applicationContext
            thread(name = "droptrack-launch") { DropTrack.schedule(app, DropTrack.sync(app).flush()) }
        }

        OnDestroy { DropTrack.removeListener(events) }

        // The person may have switched Live Updates off, swiped cards away, or the server ended activities meanwhile.
        OnActivityEntersForeground {
            val app = context.applicationContext
            thread(name = "droptrack-foreground") { DropTrack.reconcile(app) }
        }

        // The last two are iOS's: the APNs environment and the iOS 17.x push-to-start placeholder.
        AsyncFunction("configure") { serverUrl: String, userId: String, deviceId: String?, _: String?, _: Boolean? ->
            try {
                DropTrack.start(context, DropTrackSetup(baseUrl = serverUrl, userId = userId, deviceId = deviceId, credential = credentials::credential))
            } catch (wrong: IllegalArgumentException) {
                throw ModuleError(null, wrong.message ?: "the setup was refused")
            }
        }

        AsyncFunction("setDeviceCredential") { credential: String ->
            credentials.supply(credential)
            DropTrack.schedule(context, DropTrack.sync(context).supplyCredential(credential))
        }

        Function("isSupported") { -> ExpoDeliveries.isSupported(Build.VERSION.SDK_INT) }

        Function("isPushToStartEligible") { -> ExpoDeliveries.isPushToStartEligible(Build.VERSION.SDK_INT) }

        // Synchronous, so the first render knows whether to offer Live Updates.
        Function("canPostPromotedNotifications") { -> DropTrack.notifier(context).canPostPromoted() }

        AsyncFunction("areActivitiesEnabled") { ->
            val facts = DropTrack.notifier(context).deviceFacts()
            facts.notificationsEnabled == true && (Build.VERSION.SDK_INT < 36 || facts.canPostPromoted == true)
        }

        AsyncFunction("requestNotificationPermission") { -> requestNotificationPermission() }

        AsyncFunction("openLiveActivitySettings") { -> NotificationPermission.openLiveUpdateSettings(appContext.currentActivity ?: context) }

        AsyncFunction("startDelivery") { orderId: String, state: Map<String, Any?> -> deliveries().start(orderId, state) }

        AsyncFunction("updateDelivery") { activityId: String, state: Map<String, Any?> -> deliveries().update(activityId, state) }

        AsyncFunction("endDelivery") { activityId: String, state: Map<String, Any?>?, dismissAfterSeconds: Double? ->
            deliveries().end(activityId, state, dismissAfterSeconds)
        }

        AsyncFunction("getRunningActivities") { -> deliveries().running() }

        AsyncFunction("reconcile") { -> deliveries().reconcile() }
    }

    /**
     * True once notifications may show: at once below Android 13 (granted at install) or when granted
     * already; else the system prompt through Expo's permissions manager, waiting for the answer.
     */
    private fun requestNotificationPermission(): Boolean {
        if (Build.VERSION.SDK_INT < Build.VERSION_CODES.TIRAMISU || NotificationPermission.isGranted(context)) {
            return DropTrack.notifier(context).deviceFacts().notificationsEnabled == true
        }
        val permissions = appContext.permissions
            ?: throw ModuleError(null, "Expo's permissions manager is not linked: rebuild the app with expo-modules-core")
        val answered = CountDownLatch(1)
        var granted = false
        permissions.askForPermissions(
            object : PermissionsResponseListener {
                override fun onResult(result: Map<String, PermissionsResponse>) {
                    granted = result[Manifest.permission.POST_NOTIFICATIONS]?.status == PermissionsStatus.GRANTED
                    answered.countDown()
                }
            },
            Manifest.permission.POST_NOTIFICATIONS
        )
        // The prompt waits for the person; a bound keeps the call from hanging forever if it never answers.
        answered.await(10, TimeUnit.MINUTES)
        return granted
    }
}
