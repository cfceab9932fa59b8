package com.droptrack.android

import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.PlanOutcome
import com.droptrack.android.core.RegistrationClient
import com.google.firebase.messaging.FirebaseMessagingService
import com.google.firebase.messaging.RemoteMessage
import java.util.concurrent.ConcurrentHashMap

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
}

/**
 * The app's `FirebaseMessagingService` (declare it in the manifest with the
 * `com.google.firebase.MESSAGING_EVENT` intent filter). Both callbacks run on Firebase's
 * background thread, so the blocking registration call is acceptable there.
 */
class DropTrackFcmService : FirebaseMessagingService() {
    override fun onNewToken(token: String) {
        val setup = DropTrack.setup ?: return
        val facts = DeliveryNotifier(this, setup.smallIcon, setup.trackerIcon).deviceFacts()
        RegistrationClient(setup.baseUrl, setup.credential, log = setup.log)
            .register(setup.userId, setup.deviceId, token, facts)
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
                DropTrack.shownSequences[outcome.plan.tag] = outcome.plan.sequence
            }
            is PlanOutcome.Refused -> setup.log("Live Update ignored: ${outcome.field} ${outcome.code}: ${outcome.message}")
        }
    }
}
