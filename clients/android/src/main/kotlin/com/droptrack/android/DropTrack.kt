package com.droptrack.android

import android.content.Context
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.MessageForwarding
import com.droptrack.android.core.NotificationPlan
import com.droptrack.android.core.PlanOutcome
import com.droptrack.android.core.RegistrationClient
import com.droptrack.android.core.RegistrationResult
import com.google.firebase.messaging.FirebaseMessaging
import java.util.concurrent.ConcurrentHashMap
import kotlin.concurrent.thread

/** What the app tells the library once, in `Application.onCreate`. */
class DropTrackSetup(
    val baseUrl: String,
    val userId: String,
    val deviceId: String,
    /** The status-bar icon, white on transparent; never the launcher icon (it shows as a white blob). */
    val smallIcon: Int,
    val trackerIcon: Int,
    /** The device credential from the app's backend; `true` asks for a fresh one after a 401. */
    val credential: (forceRefresh: Boolean) -> String,
    val log: (String) -> Unit = {}
)

/** A card this process has posted: its plan's sequence and the data map it showed. */
class ShownDelivery(val sequence: Long, val data: Map<String, String>)

object DropTrack {
    @Volatile
    var setup: DropTrackSetup? = null

    /**
     * Where FCM callbacks that are not DropTrack's go when DropTrack's service receives them: by
     * default expo-notifications' handler, used only if that library is in the app. Null: nowhere.
     */
    @Volatile
    var fcmForwardTarget: String? = MessageForwarding.EXPO_NOTIFICATIONS

    /** The last card shown per activity, so an older message that arrives late is ignored. */
    internal val shown = ConcurrentHashMap<String, ShownDelivery>()

    /** The activities this process has shown a card for. */
    fun shownActivities(): List<String> = shown.keys.sorted()

    /** The `sequence` of the card shown for an activity, if any. */
    fun shownSequence(activityId: String): Long? = shown[activityId]?.sequence

    /** The cards shown, by activity: what each one showed (the FCM data map, or a local update's). */
    fun shownDeliveries(): Map<String, ShownDelivery> = HashMap(shown)

    /** A card was posted (by a push or by the app itself): later, older messages are ignored. */
    fun recordShown(plan: NotificationPlan, data: Map<String, String>) {
        shown[plan.tag] = ShownDelivery(plan.sequence, data)
    }

    /** Whether an FCM data message is DropTrack's; an app with its own FirebaseMessagingService asks this first. */
    fun isDropTrackMessage(data: Map<String, String>): Boolean = LiveUpdatePlanner.isDropTrackMessage(data)

    /**
     * Shows one DropTrack data message as a Live Update, from any FirebaseMessagingService (the
     * library's, or the app's own that forwards here). Needs no setup: a cold process renders with
     * the setup's icons when there is one, else with the icons looked up by name. False when the
     * message is refused (logged with the field and the reason).
     */
    fun handleMessage(context: Context, data: Map<String, String>): Boolean {
        val current = setup
        val notifier = if (current != null) {
            DeliveryNotifier(context, current.smallIcon, current.trackerIcon)
        } else {
            DeliveryNotifier.withIconsByName(context)
        }
        val activityId = data[LiveUpdatePlanner.Key.ACTIVITY_ID]
        val outcome = LiveUpdatePlanner.plan(
            data, System.currentTimeMillis(), notifier.deviceFacts(), activityId?.let { shownSequence(it) }
        )
        return when (outcome) {
            is PlanOutcome.Planned -> {
                notifier.post(outcome.plan)
                recordShown(outcome.plan, data)
                true
            }
            is PlanOutcome.Refused -> {
                current?.log?.invoke("Live Update ignored: ${outcome.field} ${outcome.code}: ${outcome.message}")
                false
            }
        }
    }

    /**
     * Call once at launch: keeps [setup] and registers the current FCM token, since
     * `onNewToken` fires only when the token changes, not at each start. The blocking
     * registration runs on a thread of its own; [onResult] hears how it ended.
     */
    fun start(context: Context, setup: DropTrackSetup, onResult: (RegistrationResult) -> Unit = {}) {
        this.setup = setup
        FirebaseMessaging.getInstance().token
            .addOnSuccessListener { token -> thread(name = "droptrack-register") { onResult(register(context, setup, token)) } }
            .addOnFailureListener { error -> setup.log("no FCM token yet (${error.javaClass.simpleName}); onNewToken will bring it") }
    }

    /** Sends one token with the device's current facts; blocking, with the client's bounded retries. */
    fun register(context: Context, setup: DropTrackSetup, token: String): RegistrationResult {
        val facts = DeliveryNotifier(context, setup.smallIcon, setup.trackerIcon).deviceFacts()
        return RegistrationClient(setup.baseUrl, setup.credential, log = setup.log)
            .register(setup.userId, setup.deviceId, token, facts)
    }
}
