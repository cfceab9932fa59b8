package com.droptrack.android.core

/** One piece of work owed to the server. */
sealed class OutboxWork {
    /** Register the FCM token whose fingerprint this is (the token itself is sealed, see [DeviceOutbox]). */
    data class Token(val fingerprint: String) : OutboxWork()

    /** `POST /v1/activities/{id}/lifecycle` with this state. */
    data class Report(val activityId: String, val state: String, val reason: String?) : OutboxWork()
}

/** A queued piece of work and how its attempts went. */
data class OutboxEntry(val work: OutboxWork, val attempts: Int, val notBeforeMillis: Long, val lastProblem: String?)

/** How long work waits after a failed attempt: doubling from [initialBackoffMillis], at most [maxBackoffMillis]. */
data class OutboxPolicy(val initialBackoffMillis: Long = 30_000, val maxBackoffMillis: Long = 3_600_000) {
    /** The wait after the [attempts]-th failed attempt; a server's `Retry-After` is honoured when longer. */
    fun backoff(attempts: Int, retryAfterMillis: Long?): Long {
        var wait = initialBackoffMillis
        for (step in 1 until Math.min(attempts, 30)) wait = Math.min(wait * 2, maxBackoffMillis)
        return Math.max(Math.min(wait, maxBackoffMillis), retryAfterMillis ?: 0)
    }
}

/**
 * The work the phone owes the server, kept in the [KeyValueStore] until it is done, so a token that
 * arrives while the server is down, or while the process has no credential, or just before Android
 * kills the process, is registered by a later one (the iOS side's ledger does the same). Only the
 * newest FCM token is kept (an older one is dead once FCM rotated it); it is sealed in
 * [SealedSecrets], and the queue names it by fingerprint. Lifecycle reports are kept one per
 * activity and state.
 */
class DeviceOutbox(private val store: KeyValueStore, private val secrets: SealedSecrets, private val policy: OutboxPolicy) {
    fun queueToken(token: String) {
        secrets.write(PENDING_TOKEN, token)
        store.put(TOKEN_KEY, entryJson(0, 0, null, RegistrationClient.tokenFingerprint(token)))
    }

    /** The token queued, when its entry is still there. */
    fun pendingToken(): String? = if (store.get(TOKEN_KEY) != null) secrets.read(PENDING_TOKEN) else null

    fun queueReport(activityId: String, state: String, reason: String?) {
        val key = "$REPORT_PREFIX$activityId.$state"
        if (store.get(key) != null) return
        store.put(key, MiniJson.write(linkedMapOf("activityId" to activityId, "state" to state, "reason" to reason, "attempts" to 0L, "notBefore" to 0L)))
    }

    fun entries(): List<OutboxEntry> = (listOf(TOKEN_KEY) + store.keys(REPORT_PREFIX)).mapNotNull { key -> entry(key) }

    /** What may be attempted now, token first; [force] ignores the waits (the app just supplied a credential). */
    fun due(nowMillis: Long, force: Boolean): List<OutboxEntry> = entries().filter { force || it.notBeforeMillis <= nowMillis }

    /** The earliest time some waiting work may be attempted, or null when nothing is queued. */
    fun nextDueMillis(): Long? {
        // A loop, not min(): its return type differs between Kotlin 1.3 (nullable) and 1.7+ (throws when empty).
        var earliest: Long? = null
        for (entry in entries()) if (earliest == null || entry.notBeforeMillis < earliest) earliest = entry.notBeforeMillis
        return earliest
    }

    fun done(entry: OutboxEntry) = remove(entry)

    /** Work the server refused for good (a 400, a 403, an activity it does not have): not sent again. */
    fun drop(entry: OutboxEntry) = remove(entry)

    /** Records a failed attempt; the work waits [OutboxPolicy.backoff] before the next one. */
    fun retry(entry: OutboxEntry, nowMillis: Long, problem: String, retryAfterMillis: Long?): OutboxEntry {
        val attempts = entry.attempts + 1
        val next = entry.copy(attempts = attempts, notBeforeMillis = nowMillis + policy.backoff(attempts, retryAfterMillis), lastProblem = problem)
        when (val work = entry.work) {
            is OutboxWork.Token -> if (currentTokenFingerprint() == work.fingerprint) {
                store.put(TOKEN_KEY, entryJson(next.attempts, next.notBeforeMillis, problem, work.fingerprint))
            }
            is OutboxWork.Report -> store.put(
                reportKey(work),
                MiniJson.write(
                    linkedMapOf(
                        "activityId" to work.activityId, "state" to work.state, "reason" to work.reason,
                        "attempts" to next.attempts.toLong(), "notBefore" to next.notBeforeMillis, "problem" to problem
                    )
                )
            )
        }
        return next
    }

    private fun remove(entry: OutboxEntry) {
        when (val work = entry.work) {
            // A newer token queued while this one was being sent stays queued.
            is OutboxWork.Token -> if (currentTokenFingerprint() == work.fingerprint) {
                store.put(TOKEN_KEY, null)
                secrets.remove(PENDING_TOKEN)
            }
            is OutboxWork.Report -> store.put(reportKey(work), null)
        }
    }

    private fun currentTokenFingerprint(): String? = (store.get(TOKEN_KEY)?.let { parse(it) })?.get("fingerprint") as? String

    private fun reportKey(work: OutboxWork.Report) = "$REPORT_PREFIX${work.activityId}.${work.state}"

    private fun entry(key: String): OutboxEntry? {
        val map = store.get(key)?.let { parse(it) } ?: return null
        val attempts = ((map["attempts"] as? Long) ?: 0L).toInt()
        val notBefore = (map["notBefore"] as? Long) ?: 0L
        val problem = map["problem"] as? String
        val work = if (key == TOKEN_KEY) {
            OutboxWork.Token(map["fingerprint"] as? String ?: return null)
        } else {
            OutboxWork.Report(map["activityId"] as? String ?: return null, map["state"] as? String ?: return null, map["reason"] as? String)
        }
        return OutboxEntry(work, attempts, notBefore, problem)
    }

    private fun entryJson(attempts: Int, notBefore: Long, problem: String?, fingerprint: String) = MiniJson.write(
        linkedMapOf("fingerprint" to fingerprint, "attempts" to attempts.toLong(), "notBefore" to notBefore, "problem" to problem)
    )

    private fun parse(json: String): Map<*, *>? = try {
        MiniJson.parse(json) as? Map<*, *>
    } catch (error: IllegalArgumentException) {
        null
    }

    companion object {
        const val PENDING_TOKEN = "pendingToken"
        private const val TOKEN_KEY = "outbox.token"
        private const val REPORT_PREFIX = "outbox.report."
    }
}
