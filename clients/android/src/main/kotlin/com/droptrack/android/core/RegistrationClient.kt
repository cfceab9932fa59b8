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

    /** The server said no and retrying will not help (400, 403, a second 401, …). */
    data class Refused(val status: Int, val code: String?, val message: String?, val attempts: Int) : RegistrationResult()

    /** Every attempt failed with something retryable (429, 5xx, no connection). */
    data class GaveUp(val lastProblem: String, val attempts: Int) : RegistrationResult()
}

/**
 * Sends the FCM token and the device's facts to `POST /v1/tokens/fcm` (docs/device-api.md).
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
    private val endpoint = URL(baseUrl.trimEnd('/') + "/v1/tokens/fcm")

    fun register(userId: String, deviceId: String, token: String, facts: DeviceFacts): RegistrationResult {
        val body = "{\"userId\":${MiniJson.write(userId)},\"deviceId\":${MiniJson.write(deviceId)}," +
            "\"token\":${MiniJson.write(token)},\"device\":${facts.toJson()}}"
        val name = "token sha256:${tokenFingerprint(token)}"
        var bearer = credential(false)
        var refreshed = false
        var backoff = retry.initialBackoffMillis
        var lastProblem = "no attempt made"
        attempts@ for (attempt in 1..retry.maxAttempts) {
            val answer = try {
                post(body, bearer)
            } catch (error: IOException) {
                lastProblem = "${error.javaClass.simpleName}: ${error.message}"
                log("register $name: attempt $attempt failed ($lastProblem)")
                null
            }
            var wait = backoff
            if (answer != null) {
                val status = answer.status
                when {
                    status == 200 || status == 201 -> {
                        val fields = answer.json()
                        log("register $name: $status after $attempt attempt(s)")
                        return RegistrationResult.Registered(
                            status, fields["fingerprint"] as? String ?: "", fields["created"] == true, attempt
                        )
                    }
                    status == 401 && !refreshed -> {
                        // The credential expired or was rotated: ask for a fresh one, once, and retry at once.
                        log("register $name: 401, refreshing the credential")
                        refreshed = true
                        bearer = credential(true)
                        lastProblem = "401 ${answer.errorCode()}"
                        continue@attempts
                    }
                    status == 429 || status >= 500 -> {
                        lastProblem = "$status ${answer.errorCode() ?: ""}".trim()
                        answer.retryAfterSeconds?.let { wait = Math.min(it * 1000, retry.maxBackoffMillis) }
                        log("register $name: attempt $attempt got $lastProblem")
                    }
                    else -> {
                        log("register $name: refused with $status ${answer.errorCode() ?: ""}")
                        return RegistrationResult.Refused(status, answer.errorCode(), answer.errorMessage(), attempt)
                    }
                }
            }
            if (attempt < retry.maxAttempts) {
                sleep(wait)
                backoff = Math.min(backoff * 2, retry.maxBackoffMillis)
            }
        }
        return RegistrationResult.GaveUp(lastProblem, retry.maxAttempts)
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

    private fun post(body: String, bearer: String): Answer {
        val connection = endpoint.openConnection() as HttpURLConnection
        try {
            connection.requestMethod = "POST"
            connection.connectTimeout = retry.connectTimeoutMillis
            connection.readTimeout = retry.readTimeoutMillis
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/json")
            connection.setRequestProperty("Authorization", "Bearer $bearer")
            connection.outputStream.use { it.write(body.toByteArray(Charsets.UTF_8)) }
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
