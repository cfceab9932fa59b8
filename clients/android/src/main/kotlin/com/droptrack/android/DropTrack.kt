package com.droptrack.android

import android.content.Context
import android.util.Log
import com.droptrack.android.core.CardRecord
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.LiveUpdateSync
import com.droptrack.android.core.MessageForwarding
import com.droptrack.android.core.ReconcileOutcome
import com.droptrack.android.core.SealedSecrets
import com.droptrack.android.core.SyncEvent
import com.droptrack.android.core.SyncSetup
import com.google.firebase.messaging.FirebaseMessaging
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.concurrent.thread

/** What the app tells the library when the user is signed in; kept, so it holds in processes where the app's code never runs. */
class DropTrackSetup(
    val baseUrl: String,
    val userId: String,
    /** This install's id at the server; null: the library makes one once and keeps it. */
    val deviceId: String? = null,
    /** The status-bar icon, white on transparent; never the launcher icon (it shows as a white blob). 0: by name. */
    val smallIcon: Int = 0,
    val trackerIcon: Int = 0,
    /** The device credential from the app's backend, in this process; `true` asks for a fresh one after a 401. */
    val credential: ((forceRefresh: Boolean) -> String)? = null,
    /** The same for processes where the app's code has not run (FCM waking a killed app); see [DropTrackCredentialProvider]. */
    val credentialProvider: Class<out DropTrackCredentialProvider>? = null,
    val log: (String) -> Unit = {}
)

/**
 * The library's entry points. Each one builds, once per process, a [LiveUpdateSync] on the app's
 * private storage (SharedPreferences, the credential sealed by a Keystore key) and its notifications,
 * from what the last [start] saved: so FCM's service and the card's dismiss receiver work in a
 * process the app's code never ran in, and no `Application` code is needed.
 */
object DropTrack {
    private const val TAG = "DropTrack"

    @Volatile
    private var made: LiveUpdateSync? = null
    @Volatile
    private var notifier: DeliveryNotifier? = null
    /** This process's credential function (from [start]); null in a cold process. */
    @Volatile
    private var appCredential: ((Boolean) -> String)? = null
    @Volatile
    private var appLog: (String) -> Unit = {}
    private val listeners = CopyOnWriteArrayList<(SyncEvent) -> Unit>()

    /**
     * Where FCM callbacks that are not DropTrack's go when DropTrack's service receives them: by
     * default expo-notifications' handler, used only if that library is in the app. Null: nowhere.
     */
    @Volatile
    var fcmForwardTarget: String? = MessageForwarding.EXPO_NOTIFICATIONS

    /** This process's sync, made from the stored state the first time it is asked for. */
    fun sync(context: Context): LiveUpdateSync {
        made?.let { return it }
        synchronized(this) {
            made?.let { return it }
            val app = context.applicationContext
            val store = SharedPreferencesStore(app)
            val log: (String) -> Unit = { line -> Log.i(TAG, line); appLog(line) }
            val secrets = SealedSecrets(store, AndroidKeystoreKeys(), log)
            val stored = SyncSetup.load(store)
            val surface = DeliveryNotifier.withIconsByName(app)
            applyIcons(app, surface, stored)
            val sync = LiveUpdateSync(store, secrets, surface, onEvent = { event -> listeners.forEach { it(event) } }, log = log)
            sync.credentialSource = credentialSource(app, stored)
            notifier = surface
            made = sync
            return sync
        }
    }

    /** The notifier this process posts with (its icons follow the last [start]). */
    fun notifier(context: Context): DeliveryNotifier {
        sync(context)
        return notifier!!
    }

    /**
     * Call when the user is signed in (an Activity is fine: nothing needs `Application.onCreate`).
     * Saves the setup for processes to come, then registers the current FCM token and sends what is
     * queued, on a thread of its own. A setup with a wrong field throws, naming it.
     */
    fun start(context: Context, setup: DropTrackSetup) {
        val app = context.applicationContext
        val sync = sync(app)
        val resources = app.resources
        val stored = SyncSetup(
            baseUrl = setup.baseUrl, userId = setup.userId,
            deviceId = setup.deviceId ?: SyncSetup.deviceId(SharedPreferencesStore(app)),
            credentialProvider = setup.credentialProvider?.name,
            smallIconName = if (setup.smallIcon != 0) resources.getResourceEntryName(setup.smallIcon) else null,
            trackerIconName = if (setup.trackerIcon != 0) resources.getResourceEntryName(setup.trackerIcon) else null
        )
        appCredential = setup.credential
        appLog = setup.log
        sync.configure(stored, credential = null)
        sync.credentialSource = credentialSource(app, stored)
        applyIcons(app, notifier!!, stored)
        FirebaseMessaging.getInstance().token
            .addOnSuccessListener { token -> thread(name = "droptrack-start") { schedule(app, sync.tokenChanged(token)); sync.reconcile() } }
            .addOnFailureListener { error ->
                setup.log("no FCM token yet (${error.javaClass.simpleName}); onNewToken will bring it")
                thread(name = "droptrack-start") { schedule(app, sync.flush(force = true)) }
            }
    }

    /** Hears what the sync does (cards shown, pushes dropped, tokens registered or retrying), on the thread that did it. */
    fun addListener(listener: (SyncEvent) -> Unit) = listeners.add(listener)

    fun removeListener(listener: (SyncEvent) -> Unit) = listeners.remove(listener)

    /** Whether an FCM data message is DropTrack's; an app with its own FirebaseMessagingService asks this first. */
    fun isDropTrackMessage(data: Map<String, String>): Boolean = LiveUpdatePlanner.isDropTrackMessage(data)

    /**
     * Shows one DropTrack data message as a Live Update, from any FirebaseMessagingService (the
     * library's, or the app's own that forwards here), in any process. False when it is not shown
     * (a stale sequence, a card the person dismissed, a bad field: the listeners hear why). Blocks
     * while queued reports go to the server: call it off the main thread, as FCM's callbacks are.
     */
    fun handleMessage(context: Context, data: Map<String, String>): Boolean {
        val sync = sync(context)
        val shown = sync.receive(data)
        schedule(context, sync.flush())
        return shown
    }

    /** FCM's new token, from the library's service or an app's own: kept and registered (retried until it is). */
    fun onNewToken(context: Context, token: String) = schedule(context, sync(context).tokenChanged(token))

    /** The cards this phone shows (ongoing or ended), with the data each shows. */
    fun runningActivities(context: Context): List<CardRecord> = sync(context).running()

    /** Makes the shade and the server agree (see [LiveUpdateSync.reconcile]); blocking. */
    fun reconcile(context: Context): ReconcileOutcome {
        val sync = sync(context)
        val outcome = sync.reconcile()
        schedule(context, sync.flush())
        return outcome
    }

    /** Asks the system to run [RetryJobService] when the next queued work is due; nothing when none is. */
    fun schedule(context: Context, nextDueMillis: Long?) = RetryJobService.schedule(context.applicationContext, nextDueMillis)

    private fun applyIcons(context: Context, surface: DeliveryNotifier, setup: SyncSetup?) {
        val small = DeliveryNotifier.drawable(context, setup?.smallIconName)
        if (small != 0) surface.smallIcon = small
        val tracker = DeliveryNotifier.drawable(context, setup?.trackerIconName)
        surface.trackerIcon = if (tracker != 0) tracker else surface.smallIcon
    }

    /**
     * This process's way to a fresh credential: the function [start] gave, else the provider class it
     * named (instantiated here: a cold process has nothing else), else none.
     */
    private fun credentialSource(context: Context, setup: SyncSetup?): ((Boolean) -> String)? {
        appCredential?.let { return it }
        val name = setup?.credentialProvider ?: return null
        val provider = try {
            Class.forName(name).getDeclaredConstructor().newInstance() as DropTrackCredentialProvider
        } catch (error: ReflectiveOperationException) {
            Log.w(TAG, "the credential provider $name cannot be made (${error.javaClass.simpleName}): give it a public no-argument constructor")
            return null
        } catch (error: ClassCastException) {
            Log.w(TAG, "$name is not a DropTrackCredentialProvider")
            return null
        }
        return { refresh -> provider.deviceCredential(context, refresh) }
    }
}
