package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import java.io.IOException
import java.util.Collections
import kotlin.concurrent.thread

class CredentialRelayTests {
    @Test
    fun asksOnceAndKeepsTheCredentialUntilARefreshIsForced() {
        val requests = Collections.synchronizedList(mutableListOf<String>())
        lateinit var relay: CredentialRelay
        var issued = 0
        relay = CredentialRelay(timeoutMillis = 5_000) { reason ->
            requests.add(reason)
            // The app answers on another thread, as JavaScript does.
            thread { Thread.sleep(50); relay.supply("credential-${++issued}") }
        }
        assertEquals("credential-1", relay.credential(false))
        assertEquals("credential-1", relay.credential(false))
        assertEquals("credential-2", relay.credential(true))
        assertEquals(listOf("start", "refused"), requests)
    }

    @Test
    fun aSilentAppTimesOutWithTheFix() {
        val relay = CredentialRelay(timeoutMillis = 100) { }
        val started = System.nanoTime()
        try {
            relay.credential(false)
            fail("expected a timeout")
        } catch (error: IOException) {
            assertTrue(error.message!!.contains("credential function"))
        }
        assertTrue("waited about the timeout", (System.nanoTime() - started) / 1_000_000 in 90..3_000)
    }

    @Test
    fun aCredentialFailureIsAGaveUpNotACrash() {
        val relay = CredentialRelay(timeoutMillis = 50) { }
        val client = RegistrationClient("http://127.0.0.1:9", relay::credential, sleep = {})
        val result = client.register("u-1", "d-1", "token-abc", DeviceFacts())
        assertTrue("$result", result is RegistrationResult.GaveUp && result.lastProblem.startsWith("no device credential"))
    }
}
