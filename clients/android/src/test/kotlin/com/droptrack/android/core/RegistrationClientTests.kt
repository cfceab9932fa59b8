package com.droptrack.android.core

import org.junit.AfterClass
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.BeforeClass
import org.junit.Test
import java.util.Collections

/** The registration client against a real `droptrack serve`, started once for the class. */
class RegistrationClientTests {
    companion object {
        lateinit var server: DropTrackServer

        @BeforeClass
        @JvmStatic
        fun startServer() {
            server = DropTrackServer()
            server.start()
        }

        @AfterClass
        @JvmStatic
        fun stopServer() = server.stop()
    }

    private val facts = DeviceFacts(true, true, true, "Google", "16")
    private val quick = RetryPolicy(maxAttempts = 3, initialBackoffMillis = 50, maxBackoffMillis = 200)
    private val logs: MutableList<String> = Collections.synchronizedList(ArrayList<String>())

    private fun client(credential: (Boolean) -> String) =
        RegistrationClient(server.baseUrl, credential, quick, log = { logs.add(it) })

    private fun assertLogsHideSecrets(token: String) {
        for (line in logs) {
            assertFalse("a log line shows the token", line.contains(token))
            assertFalse("a log line shows the key", line.contains(server.apiKey))
        }
    }

    @Test
    fun registersThenRefreshesTheSameToken() {
        val token = "fcm-token-registers:" + System.nanoTime()
        val first = client { server.deviceCredential("u-1") }.register("u-1", "pixel-1", token, facts)
        assertTrue("$first", first is RegistrationResult.Registered)
        first as RegistrationResult.Registered
        assertEquals(201, first.status)
        assertTrue(first.created)
        assertEquals(RegistrationClient.tokenFingerprint(token), first.fingerprint)
        assertEquals(1, first.attempts)

        val again = client { server.deviceCredential("u-1") }.register("u-1", "pixel-1", token, facts.copy(canPostPromoted = false))
        assertTrue("$again", again is RegistrationResult.Registered)
        assertEquals(200, (again as RegistrationResult.Registered).status)
        assertFalse(again.created)
        assertTrue(logs.any { it.contains(first.fingerprint) })
        assertLogsHideSecrets(token)
    }

    @Test
    fun unregistersTheTokenAndAnUnknownOneCountsAsGone() {
        val token = "fcm-token-unregister:" + System.nanoTime()
        val registered = client { server.deviceCredential("u-5") }.register("u-5", "pixel-5", token, facts)
        assertTrue("$registered", registered is RegistrationResult.Registered)
        val removed = client { server.deviceCredential("u-5") }.unregister(token)
        assertEquals(RegistrationResult.Unregistered(204, RegistrationClient.tokenFingerprint(token), 1), removed)
        // The server keeps a deleted token as invalid, so only a token it never saw answers 404.
        val unknown = "fcm-token-never-registered:" + System.nanoTime()
        assertEquals(
            RegistrationResult.Unregistered(404, RegistrationClient.tokenFingerprint(unknown), 1),
            client { server.deviceCredential("u-5") }.unregister(unknown)
        )
        assertLogsHideSecrets(token)
    }

    @Test
    fun a401RefreshesTheCredentialOnceAndSucceeds() {
        val asked = ArrayList<Boolean>()
        // An expired credential first (ttl 1 s, then a pause), then the fresh one the backend mints.
        val expired = server.deviceCredential("u-2", ttlSeconds = 1)
        Thread.sleep(2_100)
        val result = client { refresh -> asked.add(refresh); if (refresh) server.deviceCredential("u-2") else expired }
            .register("u-2", "pixel-2", "fcm-token-refresh:" + System.nanoTime(), facts)
        assertTrue("$result", result is RegistrationResult.Registered)
        assertEquals(listOf(false, true), asked)
        assertEquals(2, (result as RegistrationResult.Registered).attempts)
    }

    @Test
    fun a401AfterTheRefreshIsFinal() {
        val asked = ArrayList<Boolean>()
        val result = client { refresh -> asked.add(refresh); "dt_shop_wrong" }
            .register("u-3", "pixel-3", "fcm-token-wrong:" + System.nanoTime(), facts)
        assertTrue("$result", result is RegistrationResult.Refused)
        assertEquals(401, (result as RegistrationResult.Refused).status)
        assertEquals(2, result.attempts)
        assertEquals(listOf(false, true), asked)
    }

    @Test
    fun aBadBodyIsRefusedWithoutRetrying() {
        val result = client { server.deviceCredential("u-4") }.register("u-4", "not an id", "fcm-token-bad", facts)
        assertTrue("$result", result is RegistrationResult.Refused)
        result as RegistrationResult.Refused
        assertEquals(400, result.status)
        assertEquals(1, result.attempts)
        assertTrue("the refusal says what: ${result.message}", (result.message ?: "").contains("deviceId"))
    }

    @Test
    fun aCredentialForAnotherUserIsRefusedWithoutRetrying() {
        val result = client { server.deviceCredential("u-7") }.register("u-8", "pixel-7", "fcm-token-other:" + System.nanoTime(), facts)
        assertTrue("$result", result is RegistrationResult.Refused)
        result as RegistrationResult.Refused
        assertEquals(403, result.status)
        assertEquals("other_user", result.code)
        assertEquals(1, result.attempts)
    }
}
