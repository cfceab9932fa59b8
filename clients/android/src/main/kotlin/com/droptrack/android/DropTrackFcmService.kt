package com.droptrack.android

import android.content.Context
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.NotificationPlan
import com.droptrack.android.core.PlanOutcome
import com.droptrack.android.core.RegistrationClient
import com.droptrack.android.core.RegistrationResult
import com.google.firebase.messaging.FirebaseMessaging
import com.google.firebase.messaging.FirebaseMessagingService
import com.google.firebase.messaging.RemoteMessage
import java.util.concurrent.ConcurrentHashMap
import kotlin.concurrent.thread

/** What the app tells the library once, in `Application.onCreate`. */
class DropTrackSetup(
    val baseUrl: String,
    val userId: String,
    val deviceId: String,
    val smallIcon: Int,
    val trackerIcon: Int,
    /** The device credential from the app's backend; `true` asks for a fresh one after a 401. */
    val credential: (forceRefresh: Boolean) -> String,
    val log: (String) -> Unit = {}
)

object DropTrack {
    @Volatile
    var setup: DropTrackSetup? = null

    /** The `sequence` shown per activity, so an older message that arrives late is ignored. */
    internal val shownSequences = ConcurrentHashMap<String, Long>()

    /** The activities this process has shown a card for. */
    fun shownActivities(): List<String> = shownSequences.keys.sorted()

    /** The `sequence` of the card shown for an activity, if any. */
    fun shownSequence(activityId: String): Long? = shownSequences[activityId]

    /** A card was posted (by a push or by the app itself): later, older messages are ignored. */
    fun recordShown(plan: NotificationPlan) {
        shownSequences[plan.tag] = plan.sequence
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

/**
 * The app's `FirebaseMessagingService` (declare it in the manifest with the
 * `com.google.firebase.MESSAGING_EVENT` intent filter). Both callbacks run on Firebase's
 * background thread, so the blocking registration call is acceptable there.
 */
class DropTrackFcmService : FirebaseMessagingService() {
    override fun onNewToken(token: String) {
        val setup = DropTrack.setup ?: return
        DropTrack.register(this, setup, token)
    }

    override fun onMessageReceived(message: RemoteMessage) {
        val setup = DropTrack.setup ?: return
        val notifier = DeliveryNotifier(this, setup.smallIcon, setup.trackerIcon)
        val data: Map<String, String> = message.data
        val activityId = data[LiveUpdatePlanner.Key.ACTIVITY_ID]
        val outcome = LiveUpdatePlanner.plan(
            data, System.currentTimeMillis(), notifier.deviceFacts(),
            activityId?.let { DropTrack.shownSequences[it] }
        )
        when (outcome) {
            is PlanOutcome.Planned -> {
                notifier.post(outcome.plan)
                DropTrack.recordShown(outcome.plan)
            }
            is PlanOutcome.Refused -> setup.log("Live Update ignored: ${outcome.field} ${outcome.code}: ${outcome.message}")
        }
    }
}
