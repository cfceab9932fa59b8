package com.droptrack.android.core

import com.sun.net.httpserver.HttpServer
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger

/** Retries: a real server that is not up yet, a port with nothing behind it, and 503/429 answers. */
class RegistrationRetryTests {
    private val facts = DeviceFacts(notificationsEnabled = true)

    @Test
    fun retriesUntilTheServerComesUp() {
        val server = DropTrackServer()
        val sleeps = Collections.synchronizedList(ArrayList<Long>())
        // The server starts 1.5 s after the first attempt; backoff 200, 400, 800, 1600, 2000… ms.
        val starter = Thread {
            Thread.sleep(1_500)
            server.start()
        }
        try {
            val client = RegistrationClient(
                // The backend (the API key) stands in for a credential here: this server is not up yet
                // to mint one, and what is tested is the transport retry.
                server.baseUrl, { server.apiKey },
                RetryPolicy(maxAttempts = 20, initialBackoffMillis = 200, maxBackoffMillis = 2_000),
                sleep = { sleeps.add(it); Thread.sleep(it) }
            )
            starter.start()
            val token = "fcm-token-late-server:" + System.nanoTime()
            val result = client.register("u-late", "pixel-late", token, facts)
            assertTrue("$result", result is RegistrationResult.Registered)
            result as RegistrationResult.Registered
            assertEquals(201, result.status)
            assertTrue("it had to retry (attempts ${result.attempts})", result.attempts > 1)
            assertEquals(RegistrationClient.tokenFingerprint(token), result.fingerprint)
            assertEquals(listOf(200L, 400L, 800L, 1_600L, 2_000L, 2_000L).take(sleeps.size), sleeps.take(6))
        } finally {
            starter.join(60_000)
            server.stop()
        }
    }

    @Test
    fun givesUpAfterTheLastAttemptWhenNothingListens() {
        val port = ServerSocket(0).use { it.localPort }
        val sleeps = ArrayList<Long>()
        val result = RegistrationClient(
            "http://127.0.0.1:$port", { "dt_x" },
            RetryPolicy(maxAttempts = 3, initialBackoffMillis = 10, maxBackoffMillis = 15),
            sleep = { sleeps.add(it) }
        ).register("u", "d", "t", facts)
        assertTrue("$result", result is RegistrationResult.GaveUp)
        assertEquals(3, (result as RegistrationResult.GaveUp).attempts)
        assertEquals(listOf(10L, 15L), sleeps)
    }

    @Test
    fun retries503And429HonouringRetryAfter() {
        // The real server gives neither on demand, so a stand-in answers 503, then 429, then 201.
        val calls = AtomicInteger()
        val stand = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
        stand.createContext("/v1/tokens/fcm") { exchange ->
            exchange.requestBody.readBytes()
            val (status, body) = when (calls.incrementAndGet()) {
                1 -> 503 to "{\"error\":{\"code\":\"store_unavailable\",\"message\":\"retry\"}}"
                2 -> { exchange.responseHeaders.add("Retry-After", "3"); 429 to "{\"error\":{\"code\":\"rate_limited\"}}" }
                else -> 201 to "{\"fingerprint\":\"abcd\",\"kind\":\"fcm\",\"created\":true}"
            }
            val bytes = body.toByteArray()
            exchange.sendResponseHeaders(status, bytes.size.toLong())
            exchange.responseBody.use { it.write(bytes) }
        }
        stand.start()
        try {
            val sleeps = ArrayList<Long>()
            val result = RegistrationClient(
                "http://127.0.0.1:${stand.address.port}", { "dt_x" },
                RetryPolicy(maxAttempts = 5, initialBackoffMillis = 100, maxBackoffMillis = 2_500),
                sleep = { sleeps.add(it) }
            ).register("u", "d", "t", facts)
            assertTrue("$result", result is RegistrationResult.Registered)
            assertEquals(3, (result as RegistrationResult.Registered).attempts)
            // 100 ms after the 503; the 429's Retry-After of 3 s, capped at 2.5 s.
            assertEquals(listOf(100L, 2_500L), sleeps)
        } finally {
            stand.stop(0)
        }
    }
}
