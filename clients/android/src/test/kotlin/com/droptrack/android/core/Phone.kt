package com.droptrack.android.core

import java.io.File
import java.nio.file.Files
import java.util.Collections

/**
 * The notification shade of a phone: what `NotificationManagerCompat` would show. It belongs to the
 * system, not to the app's process, so it outlives the processes the tests start and kill.
 */
class Shade(var facts: DeviceFacts = DeviceFacts(true, true, true, "Google", "16")) : NotificationSurface {
    val cards = LinkedHashMap<String, NotificationPlan>()
    /** Every post, in order. */
    val posted = Collections.synchronizedList(ArrayList<NotificationPlan>())

    override fun facts(): DeviceFacts = facts

    @Synchronized
    override fun post(plan: NotificationPlan) {
        cards[plan.tag] = plan
        posted.add(plan)
    }

    @Synchronized
    override fun remove(activityId: String) {
        cards.remove(activityId)
    }

    @Synchronized
    override fun shown(): Set<String>? = HashSet(cards.keys)

    /** The person swipes the card away: the system removes it (and sends its delete intent, which the test delivers). */
    @Synchronized
    fun swipe(activityId: String) {
        checkNotNull(cards.remove(activityId)) { "no card $activityId to swipe" }
    }
}

/**
 * One install of the app on a phone: its private files (the store and the key source) and the
 * shade. [process] starts a process of the app, as FCM or the launcher would, with nothing in
 * memory from the last one: whatever it knows, it reads from the files.
 */
class Phone(val shade: Shade = Shade()) {
    val folder: File = Files.createTempDirectory("droptrack-phone").toFile()
    val prefs = File(folder, "shared_prefs/droptrack.json")
    val keys = File(folder, "keystore.p12")

    fun process(
        nowMillis: () -> Long = { System.currentTimeMillis() },
        policy: OutboxPolicy = OutboxPolicy(initialBackoffMillis = 1_000, maxBackoffMillis = 8_000),
        events: MutableList<SyncEvent> = Collections.synchronizedList(ArrayList<SyncEvent>()),
        logs: MutableList<String> = Collections.synchronizedList(ArrayList<String>())
    ): AppProcess {
        val store = FileKeyValueStore(prefs)
        val secrets = SealedSecrets(store, KeystoreFileKeys(keys)) { logs.add(it) }
        val sync = LiveUpdateSync(
            store, secrets, shade, nowMillis, RetryPolicy(maxAttempts = 2, initialBackoffMillis = 50, maxBackoffMillis = 100),
            policy, onEvent = { events.add(it) }, log = { logs.add(it) }
        )
        return AppProcess(sync, events, logs)
    }

    fun delete() = folder.deleteRecursively()
}

class AppProcess(val sync: LiveUpdateSync, val events: MutableList<SyncEvent>, val logs: MutableList<String>)

/** A vector of `vectors/android/` as the data map FCM hands the service. */
@Suppress("UNCHECKED_CAST")
fun fcmVector(name: String): Map<String, String> {
    val folder = File(System.getProperty("droptrack.vectors") ?: "vectors", "android")
    return (MiniJson.parse(File(folder, name).readText()) as Map<String, Any?>).mapValues { it.value as String }
}
