package com.droptrack.android.core

import java.io.IOException

/**
 * Keeps this phone's Live Update cards and the server in step, from any process: the one the app
 * runs in, or one FCM starts while the app is killed, in which no app code (no `Application`, no
 * JavaScript) has run. Everything such a process needs comes from the [store] the app's last
 * `configure` wrote: the setup, the credential (sealed in [secrets]), the `sequence` and phase of
 * every card shown, and the work still owed to the server ([DeviceOutbox]).
 *
 * Cards: a push is planned by [LiveUpdatePlanner] against the sequence shown last (an older one is
 * refused, after a restart too), recorded, then posted; a card the person dismissed is never posted
 * again. The server hears `active` when a card first shows, `ended` when it ends, `dismissed` when
 * the person swipes it away, and `lost` when [reconcile] finds it gone from the shade.
 *
 * Work for the server is queued first and sent by [flush], with the device credential stored last
 * and, after a 401, a fresh one from [credentialSource] when this process has one; what fails for
 * a reason that can pass waits [OutboxPolicy] and survives the process.
 */
class LiveUpdateSync(
    private val store: KeyValueStore,
    private val secrets: SealedSecrets,
    private val surface: NotificationSurface,
    private val clock: () -> Long = { System.currentTimeMillis() },
    /** The in-process attempts of one flush; what still fails waits [outboxPolicy] before the next. */
    private val retry: RetryPolicy = RetryPolicy(maxAttempts = 3),
    outboxPolicy: OutboxPolicy = OutboxPolicy(),
    private val onEvent: (SyncEvent) -> Unit = {},
    private val log: (String) -> Unit = {}
) {
    /**
     * This process's way to a fresh device credential: the app's function, its provider class, or
     * JavaScript. Null in a process where none of those is reachable; the stored credential is used.
     */
    @Volatile
    var credentialSource: ((forceRefresh: Boolean) -> String)? = null

    private val records = ActivityRecords(store)
    private val outbox = DeviceOutbox(store, secrets, outboxPolicy)
    private val flushLock = Any()

    /** The setup the app saved last, or null before its first `configure` on this install. */
    fun setup(): SyncSetup? = SyncSetup.load(store)

    /**
     * Saves the setup (checked: a wrong field throws, naming it) and, when given, the credential. A
     * new user drops the previous user's credential and registers the token again for the new one.
     */
    fun configure(setup: SyncSetup, credential: String?) {
        setup.checked()
        val previous = setup()
        setup.save(store)
        if (previous != null && previous.userId != setup.userId) {
            secrets.remove(CREDENTIAL)
            secrets.read(REGISTERED_TOKEN)?.let { outbox.queueToken(it) }
        }
        if (credential != null) secrets.write(CREDENTIAL, credential)
    }

    /** A device credential from the app (JavaScript's answer, or a native app's): kept, and queued work is sent now. */
    fun supplyCredential(credential: String): Long? {
        secrets.write(CREDENTIAL, credential)
        return flush(force = true)
    }

    /** FCM's `onNewToken`, or the token read at start: queued (sealed) and sent. */
    fun tokenChanged(token: String): Long? {
        val registered = secrets.read(REGISTERED_TOKEN)
        if (token != registered || store.get(REGISTERED_FACTS) != surface.facts().toJson()) outbox.queueToken(token)
        return flush()
    }

    /** The facts may have changed (Live Updates switched off): the registered token is sent again if so. */
    fun refreshFacts() {
        val registered = secrets.read(REGISTERED_TOKEN) ?: return
        if (store.get(REGISTERED_FACTS) != surface.facts().toJson() && outbox.pendingToken() == null) outbox.queueToken(registered)
    }

    /**
     * The system said a switch changed (Android's `ACTION_APP_BLOCK_STATE_CHANGED`: the person
     * blocked or allowed the app's notifications): the server hears the new facts now, not at the
     * next push or launch.
     */
    fun factsChanged(): Long? {
        refreshFacts()
        return flush()
    }

    /** One FCM data message. True when it was shown; why not goes to the events. */
    fun receive(data: Map<String, String>): Boolean {
        refreshFacts()
        val activityId = data[LiveUpdatePlanner.Key.ACTIVITY_ID]
        val event = data[LiveUpdatePlanner.Key.EVENT] ?: "update"
        val record = activityId?.let { records.get(it) }
        if (record != null && record.phase == CardPhase.DISMISSED) {
            onEvent(SyncEvent.Dropped(activityId, event, "the person dismissed this card: it is not shown again"))
            return false
        }
        return show(data, record, fromPush = true, dismissAfterMillis = null) != null
    }

    /** The app starts a card itself: shown even over one dismissed earlier, since the person asked now. */
    fun startLocal(activityId: String, data: Map<String, String>): Boolean =
        show(stamped(data, records.get(activityId)), null, fromPush = false, dismissAfterMillis = null) != null

    /** The app updates its card; false (nothing shown) when the phone shows no such activity or it ended. */
    fun updateLocal(activityId: String, data: Map<String, String>): Boolean {
        val record = records.get(activityId)
        if (record == null || record.phase != CardPhase.ACTIVE) return false
        return show(stamped(data, record), record, fromPush = false, dismissAfterMillis = null) != null
    }

    /**
     * The app ends its card, with [data] or, when null, the state it shows; [dismissAfterMillis] null
     * keeps the ended card as long as iOS would (4 hours), 0 removes it now. False when there is no
     * such card.
     */
    fun endLocal(activityId: String, data: Map<String, String>?, dismissAfterMillis: Long?): Boolean {
        val record = records.get(activityId)
        if (record == null || record.phase == CardPhase.DISMISSED || record.phase == CardPhase.LOST) return false
        val final = stamped((data ?: record.data) + (LiveUpdatePlanner.Key.EVENT to "end"), record)
        if (dismissAfterMillis == 0L) {
            surface.remove(activityId)
            records.put(CardRecord(activityId, record.sequence, final, CardPhase.DISMISSED, clock()), clock())
            if (record.phase == CardPhase.ACTIVE) outbox.queueReport(activityId, CardPhase.ENDED.wire, null)
            outbox.queueReport(activityId, CardPhase.DISMISSED.wire, "ended by the app with immediate dismissal")
            flush()
            return true
        }
        return show(final, record, fromPush = false, dismissAfterMillis = dismissAfterMillis) != null
    }

    /** The card's delete intent: the person swiped it away. It is never posted again, and the server hears it. */
    fun dismissed(activityId: String): Long? {
        val record = records.get(activityId)
        if (record?.phase == CardPhase.DISMISSED) return flush()
        records.put(CardRecord(activityId, record?.sequence ?: 0L, record?.data ?: emptyMap(), CardPhase.DISMISSED, clock()), clock())
        outbox.queueReport(activityId, CardPhase.DISMISSED.wire, "swiped away")
        return flush()
    }

    /** The cards the phone shows, ongoing or ended, checked against the shade when it can say. */
    fun running(): List<CardRecord> {
        val shown = surface.shown()
        return records.all().filter { record ->
            (record.phase == CardPhase.ACTIVE || record.phase == CardPhase.ENDED) && (shown == null || record.activityId in shown)
        }
    }

    /**
     * Makes the shade, the records and the server agree (at launch and when the app comes to the
     * front): a card gone from the shade is `lost` (an ended one `dismissed`); an ongoing card whose
     * activity the server ended is ended here (and not reported back); changed facts (Live Updates
     * switched off) re-register the token. Then queued work is sent.
     */
    fun reconcile(): ReconcileOutcome {
        // The person may be back from the settings screen, where Android 16's Live Updates switch is:
        // that switch sends no broadcast, so coming to the front is when its change is noticed.
        refreshFacts()
        val now = clock()
        val shown = surface.shown()
        val lost = ArrayList<String>()
        if (shown != null) {
            for (record in records.all()) {
                if (record.activityId in shown) continue
                when (record.phase) {
                    CardPhase.ACTIVE -> {
                        records.put(record.copy(phase = CardPhase.LOST, changedAtMillis = now), now)
                        outbox.queueReport(record.activityId, CardPhase.LOST.wire, "the card was gone from the notification shade")
                        lost.add(record.activityId)
                    }
                    CardPhase.ENDED -> {
                        records.put(record.copy(phase = CardPhase.DISMISSED, changedAtMillis = now), now)
                        outbox.queueReport(record.activityId, CardPhase.DISMISSED.wire, "the ended card left the notification shade")
                    }
                    else -> Unit
                }
            }
        }
        val ended = ArrayList<String>()
        var failure: String? = null
        val setup = setup()
        if (setup == null) {
            failure = NOT_CONFIGURED
        } else {
            val client = client(setup)
            for (record in records.all().filter { it.phase == CardPhase.ACTIVE }) {
                when (val answer = client.activityState(record.activityId)) {
                    is RegistrationResult.Fetched -> if (answer.state == "ended" || answer.state == "dismissed") {
                        val final = record.data + (LiveUpdatePlanner.Key.EVENT to "end")
                        if (show(final, record, fromPush = false, dismissAfterMillis = null, reportEnd = false) != null) ended.add(record.activityId)
                    }
                    // 404: a delivery the app started on the phone alone, or one the server no longer has: left as it is.
                    is RegistrationResult.Refused -> if (answer.status != 404) failure = "${answer.status} ${answer.code}: ${answer.message}"
                    is RegistrationResult.GaveUp -> failure = answer.lastProblem
                    else -> Unit
                }
                if (failure != null) break
            }
        }
        flush()
        return ReconcileOutcome(ended, lost, failure)
    }

    /** What the outbox holds (the Expo module reports it; tests read it). */
    fun pendingWork(): List<OutboxEntry> = outbox.entries()

    /**
     * Sends the queued work that is due (all of it when [force]); returns when the next waiting piece
     * is due, for the glue to schedule a job then, or null when nothing waits.
     */
    fun flush(force: Boolean = false): Long? = synchronized(flushLock) {
        val setup = setup()
        if (setup == null) {
            if (outbox.entries().isNotEmpty()) log("work for the server waits: $NOT_CONFIGURED")
            return outbox.nextDueMillis()
        }
        val client = client(setup)
        for (entry in outbox.due(clock(), force)) {
            when (val work = entry.work) {
                is OutboxWork.Token -> sendToken(client, setup, entry, work)
                is OutboxWork.Report -> sendReport(client, setup, entry, work)
            }
        }
        return outbox.nextDueMillis()
    }

    private fun sendToken(client: RegistrationClient, setup: SyncSetup, entry: OutboxEntry, work: OutboxWork.Token) {
        val token = outbox.pendingToken() ?: return outbox.drop(entry)
        val facts = surface.facts()
        when (val result = client.register(setup.userId, setup.deviceId, token, facts)) {
            is RegistrationResult.Registered -> {
                secrets.write(REGISTERED_TOKEN, token)
                store.put(REGISTERED_FACTS, facts.toJson())
                outbox.done(entry)
                onEvent(SyncEvent.TokenRegistered(work.fingerprint, result.created))
            }
            is RegistrationResult.Refused -> if (result.status == 401) {
                retryToken(entry, work, "the server refused the device credential (${result.code}); waiting for a fresh one", null)
            } else {
                outbox.drop(entry)
                onEvent(SyncEvent.TokenFailed(work.fingerprint, result.status, "${result.status} ${result.code}: ${result.message}"))
            }
            is RegistrationResult.GaveUp -> retryToken(entry, work, result.lastProblem, result.retryAfterMillis)
            else -> Unit
        }
    }

    private fun retryToken(entry: OutboxEntry, work: OutboxWork.Token, problem: String, retryAfterMillis: Long?) {
        val next = outbox.retry(entry, clock(), problem, retryAfterMillis)
        onEvent(SyncEvent.TokenRetrying(work.fingerprint, next.attempts, next.notBeforeMillis, problem))
    }

    private fun sendReport(client: RegistrationClient, setup: SyncSetup, entry: OutboxEntry, work: OutboxWork.Report) {
        when (val result = client.reportLifecycle(work.activityId, setup.deviceId, work.state, work.reason)) {
            is RegistrationResult.Reported -> {
                outbox.done(entry)
                onEvent(SyncEvent.Reported(work.activityId, work.state))
            }
            is RegistrationResult.Refused -> if (result.status == 401) {
                outbox.retry(entry, clock(), "the server refused the device credential (${result.code})", null)
            } else {
                outbox.drop(entry)
                onEvent(SyncEvent.ReportDropped(work.activityId, work.state, "${result.status} ${result.code}: ${result.message}"))
            }
            is RegistrationResult.GaveUp -> outbox.retry(entry, clock(), result.lastProblem, result.retryAfterMillis)
            else -> Unit
        }
    }

    /**
     * Plans [data] against [record], records it, then posts it (recorded first: if the process dies
     * between the two, a later older message is still refused), and queues the lifecycle reports.
     */
    private fun show(
        data: Map<String, String>, record: CardRecord?, fromPush: Boolean, dismissAfterMillis: Long?, reportEnd: Boolean = true
    ): NotificationPlan? {
        val now = clock()
        val activityId = data[LiveUpdatePlanner.Key.ACTIVITY_ID]
        val event = data[LiveUpdatePlanner.Key.EVENT] ?: "update"
        val shownBefore = record?.takeIf { it.phase == CardPhase.ACTIVE || it.phase == CardPhase.ENDED }
        // The sequence of any card recorded, shown or lost: an older message never replaces a newer state.
        when (val outcome = LiveUpdatePlanner.plan(data, now, surface.facts(), record?.sequence, surface.brandColor)) {
            is PlanOutcome.Refused -> {
                val reason = "${outcome.field} ${outcome.code}: ${outcome.message}"
                log("Live Update ignored: $reason")
                if (fromPush) onEvent(SyncEvent.Dropped(activityId, event, reason))
                return null
            }
            is PlanOutcome.Planned -> {
                val plan = if (dismissAfterMillis != null && !outcome.plan.ongoing) {
                    outcome.plan.copy(timeoutAfterMillis = dismissAfterMillis)
                } else {
                    outcome.plan
                }
                val phase = if (plan.ongoing) CardPhase.ACTIVE else CardPhase.ENDED
                records.put(CardRecord(plan.tag, plan.sequence, data, phase, now), now)
                surface.post(plan)
                if (phase == CardPhase.ACTIVE && shownBefore == null) outbox.queueReport(plan.tag, CardPhase.ACTIVE.wire, null)
                if (phase == CardPhase.ENDED && shownBefore?.phase != CardPhase.ENDED && reportEnd) {
                    outbox.queueReport(plan.tag, CardPhase.ENDED.wire, null)
                }
                onEvent(SyncEvent.Shown(plan.tag, plan.event, fromPush))
                flush()
                return plan
            }
        }
    }

    /** A local update's map, stamped no older than the card it replaces, so the planner never refuses it as stale. */
    private fun stamped(data: Map<String, String>, record: CardRecord?): Map<String, String> {
        val now = LocalStamp.sequence(clock())
        val sequence = Math.max(now, record?.sequence ?: 0L)
        return data + (LiveUpdatePlanner.Key.SEQUENCE to sequence.toString())
    }

    private fun client(setup: SyncSetup) = RegistrationClient(setup.baseUrl, { refresh -> credential(refresh) }, retry, log = log)

    /** The stored credential, or a fresh one from [credentialSource] (kept for the next process). */
    private fun credential(forceRefresh: Boolean): String {
        if (!forceRefresh) secrets.read(CREDENTIAL)?.let { return it }
        val source = credentialSource ?: throw IOException(
            if (forceRefresh) "the server refused the stored device credential and this process cannot ask the app for a fresh one; it is asked at the app's next start"
            else "no device credential stored yet: the app supplies one when it configures DropTrack"
        )
        val made = try {
            source(forceRefresh)
        } catch (error: IOException) {
            throw error
        } catch (error: RuntimeException) {
            throw IOException("the app's credential function failed (${error.javaClass.simpleName}: ${error.message})")
        }
        secrets.write(CREDENTIAL, made)
        return made
    }

    companion object {
        const val CREDENTIAL = "deviceCredential"
        const val REGISTERED_TOKEN = "registeredToken"
        private const val REGISTERED_FACTS = "registered.facts"
        private const val NOT_CONFIGURED = "the app has not configured DropTrack on this install yet (DropTrack.start, or configure in JavaScript)"
    }
}

/** The `sequence` a card the app shows itself carries: Unix seconds, the clock the server's sequences use. */
object LocalStamp {
    fun sequence(nowMillis: Long): Long = nowMillis / 1000
}
