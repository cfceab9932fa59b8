package com.droptrack.android.core

import java.io.IOException
import java.net.HttpURLConnection
import java.net.URL
import java.security.MessageDigest

/** How often and how long [RegistrationClient] retries; every loop it runs is bounded by these. */
data class RetryPolicy(
    val maxAttempts: Int = 6,
    val initialBackoffMillis: Long = 250,
    val maxBackoffMillis: Long = 8_000,
    val connectTimeoutMillis: Int = 5_000,
    val readTimeoutMillis: Int = 10_000
)

/** What came of a registration. */
sealed class RegistrationResult {
    /** 201 (new) or 200 (already known, last-seen refreshed); [fingerprint] is the server's name for the token. */
    data class Registered(val status: Int, val fingerprint: String, val created: Boolean, val attempts: Int) : RegistrationResult()

    /** 204, or 404 (the server had no such token any more). */
    data class Unregistered(val status: Int, val fingerprint: String, val attempts: Int) : RegistrationResult()

    /** A lifecycle report the server recorded; [tokensInvalidated] counts this device's update tokens it retired. */
    data class Reported(val status: Int, val state: String, val tokensInvalidated: Int, val attempts: Int) : RegistrationResult()

    /** `GET /v1/activities/{id}`: the activity's state as the server has it (`active`, `ended`, `dismissed`…). */
    data class Fetched(val status: Int, val state: String, val attempts: Int) : RegistrationResult()

    /** The server said no and retrying will not help (400, 403, a second 401, …). */
    data class Refused(val status: Int, val code: String?, val message: String?, val attempts: Int) : RegistrationResult()

    /**
     * Every attempt failed with something retryable (429, 5xx, no connection, no credential yet);
     * [retryAfterMillis] is the last answer's `Retry-After`, when it had one.
     */
    data class GaveUp(val lastProblem: String, val attempts: Int, val retryAfterMillis: Long? = null) : RegistrationResult()
}

/**
 * Sends the FCM token and the device's facts to `POST /v1/tokens/fcm`, and removes it with
 * `DELETE /v1/tokens/{fingerprint}` (docs/reference/device-api.md).
 *
 * [credential] returns the bearer credential; it is called with `true` once after a 401 so the
 * app can fetch a fresh device credential from its backend. 429, 5xx and I/O errors are retried
 * with doubling backoff (a 429's `Retry-After` is honoured, capped); other refusals are final.
 * Plain `HttpURLConnection`, so the library needs nothing beyond the platform.
 */
class RegistrationClient(
    baseUrl: String,
    private val credential: (forceRefresh: Boolean) -> String,
    private val retry: RetryPolicy = RetryPolicy(),
    private val sleep: (Long) -> Unit = { Thread.sleep(it) },
    private val log: (String) -> Unit = {}
) {
    private val base = baseUrl.trimEnd('/')

    fun register(userId: String, deviceId: String, token: String, facts: DeviceFacts): RegistrationResult {
        val body = "{\"userId\":${MiniJson.write(userId)},\"deviceId\":${MiniJson.write(deviceId)}," +
            "\"token\":${MiniJson.write(token)},\"device\":${facts.toJson()}}"
        val name = "register token sha256:${tokenFingerprint(token)}"
        return exchange(name, "POST", "/v1/tokens/fcm", body) { answer, attempts ->
            val fields = answer.json()
            RegistrationResult.Registered(answer.status, fields["fingerprint"] as? String ?: "", fields["created"] == true, attempts)
        }
    }

    /**
     * `DELETE /v1/tokens/{fingerprint}`, e.g. when the user signs out. A 404 counts as done: the
     * server no longer has the token, which is what was asked.
     */
    fun unregister(token: String): RegistrationResult {
        val fingerprint = tokenFingerprint(token)
        return exchange("unregister token sha256:$fingerprint", "DELETE", "/v1/tokens/$fingerprint", null) { answer, attempts ->
            RegistrationResult.Unregistered(answer.status, fingerprint, attempts)
        }
    }

    /**
     * `POST /v1/activities/{id}/lifecycle`: what this phone saw of the activity's card (`active`,
     * `ended`, `dismissed`, `lost`). A 404 is a refusal: the server has no such activity of this user
     * (a delivery the app started on the phone alone, or one deleted since).
     */
    fun reportLifecycle(activityId: String, deviceId: String, state: String, reason: String?): RegistrationResult {
        val body = MiniJson.write(linkedMapOf("deviceId" to deviceId, "state" to state, "reason" to reason).filterValues { it != null })
        return exchange("report $state for $activityId", "POST", "/v1/activities/$activityId/lifecycle", body) { answer, attempts ->
            val fields = answer.json()
            RegistrationResult.Reported(answer.status, state, ((fields["tokensInvalidated"] as? Long) ?: 0L).toInt(), attempts)
        }
    }

    /** `GET /v1/activities/{id}` with the device credential: the activity's state at the server, for reconciling. */
    fun activityState(activityId: String): RegistrationResult =
        exchange("read activity $activityId", "GET", "/v1/activities/$activityId", null) { answer, attempts ->
            RegistrationResult.Fetched(answer.status, answer.json()["state"] as? String ?: "", attempts)
        }

    /**
     * One request with the retry rules: success (2xx, or 404 for a DELETE) goes to [done]; 429,
     * 5xx and I/O errors wait and retry; the first 401 refreshes the credential and retries at once.
     */
    private fun exchange(
        name: String, method: String, path: String, body: String?, done: (Answer, Int) -> RegistrationResult
    ): RegistrationResult {
        // The app's credential function may fail or time out (its backend is down): nothing to send yet.
        var bearer = try {
            credential(false)
        } catch (error: IOException) {
            return RegistrationResult.GaveUp("no device credential: ${error.message}", 0)
        }
        var refreshed = false
        var backoff = retry.initialBackoffMillis
        var lastProblem = "no attempt made"
        var retryAfterMillis: Long? = null
        attempts@ for (attempt in 1..retry.maxAttempts) {
            val answer = try {
                send(method, path, body, bearer)
            } catch (error: IOException) {
                lastProblem = "${error.javaClass.simpleName}: ${error.message}"
                log("$name: attempt $attempt failed ($lastProblem)")
                null
            }
            var wait = backoff
            if (answer != null) {
                val status = answer.status
                when {
                    status in 200..299 || (status == 404 && method == "DELETE") -> {
                        log("$name: $status after $attempt attempt(s)")
                        return done(answer, attempt)
                    }
                    status == 401 && !refreshed -> {
                        // The credential expired or was rotated: ask for a fresh one, once, and retry at once.
                        log("$name: 401, refreshing the credential")
                        refreshed = true
                        bearer = try {
                            credential(true)
                        } catch (error: IOException) {
                            return RegistrationResult.GaveUp("no fresh device credential: ${error.message}", attempt)
                        }
                        lastProblem = "401 ${answer.errorCode()}"
                        continue@attempts
                    }
                    status == 429 || status >= 500 -> {
                        lastProblem = "$status ${answer.errorCode() ?: ""}".trim()
                        retryAfterMillis = answer.retryAfterSeconds?.let { it * 1000 }
                        answer.retryAfterSeconds?.let { wait = Math.min(it * 1000, retry.maxBackoffMillis) }
                        log("$name: attempt $attempt got $lastProblem")
                    }
                    else -> {
                        log("$name: refused with $status ${answer.errorCode() ?: ""}")
                        return RegistrationResult.Refused(status, answer.errorCode(), answer.errorMessage(), attempt)
                    }
                }
            }
            if (attempt < retry.maxAttempts) {
                sleep(wait)
                backoff = Math.min(backoff * 2, retry.maxBackoffMillis)
            }
        }
        return RegistrationResult.GaveUp(lastProblem, retry.maxAttempts, retryAfterMillis)
    }

    private class Answer(val status: Int, val body: String, val retryAfterSeconds: Long?) {
        @Suppress("UNCHECKED_CAST")
        fun json(): Map<String, Any?> = try {
            MiniJson.parse(body) as? Map<String, Any?> ?: emptyMap()
        } catch (error: IllegalArgumentException) {
            emptyMap()
        }

        @Suppress("UNCHECKED_CAST")
        private fun error(): Map<String, Any?> = json()["error"] as? Map<String, Any?> ?: emptyMap()

        fun errorCode() = error()["code"] as? String
        fun errorMessage() = error()["message"] as? String
    }

    private fun send(method: String, path: String, body: String?, bearer: String): Answer {
        val connection = URL(base + path).openConnection() as HttpURLConnection
        try {
            connection.requestMethod = method
            connection.connectTimeout = retry.connectTimeoutMillis
            connection.readTimeout = retry.readTimeoutMillis
            connection.setRequestProperty("Authorization", "Bearer $bearer")
            if (body != null) {
                connection.doOutput = true
                connection.setRequestProperty("Content-Type", "application/json")
                connection.outputStream.use { it.write(body.toByteArray(Charsets.UTF_8)) }
            }
            val status = connection.responseCode
            val stream = if (status >= 400) connection.errorStream else connection.inputStream
            val text = stream?.use { it.readBytes().toString(Charsets.UTF_8) } ?: ""
            return Answer(status, text, connection.getHeaderField("Retry-After")?.trim()?.toLongOrNull())
        } finally {
            connection.disconnect()
        }
    }

    companion object {
        /** The server's name for a token: the first 8 bytes of its SHA-256, hex. Safe to log. */
        fun tokenFingerprint(token: String): String =
            MessageDigest.getInstance("SHA-256").digest(token.toByteArray(Charsets.UTF_8))
                .take(8).joinToString("") { String.format("%02x", it.toInt() and 0xFF) }
    }
}
