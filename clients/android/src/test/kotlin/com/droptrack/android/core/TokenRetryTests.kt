package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Registration never gives up on a token while the server cannot be reached (the earlier module
 * stopped after six tries and still said "retrying"): every failed round is reported as
 * `TokenRetrying` with its attempt count and when the next one is due, the wait doubles to the
 * policy's cap, the token stays queued, and a real `droptrack serve` that comes back gets it.
 */
class TokenRetryTests {
    @Test
    fun aTokenIsRetriedPastSixFailuresEachReportedWithItsNextAttemptUntilTheServerIsBack() {
        val server = DropTrackServer()
        val phone = Phone()
        try {
            server.start()
            val credential = server.deviceCredential("u-retry", ttlSeconds = 3600)
            server.pause()
            var now = 1_000_000L
            // Phone's policy: 1 s doubling to 8 s.
            val process = phone.process(nowMillis = { now })
            process.sync.configure(SyncSetup(server.baseUrl, "u-retry", "pixel-retry"), credential)
            val token = "fcm-retry:" + System.nanoTime()
            var due = process.sync.tokenChanged(token)
            for (round in 1..9) {
                val retrying = process.events.filterIsInstance<SyncEvent.TokenRetrying>()
                assertEquals("round $round is reported", round, retrying.size)
                val last = retrying.last()
                assertEquals(round, last.attempts)
                assertEquals("the wait doubles to the cap", Math.min(1_000L shl (round - 1), 8_000L), last.nextAttemptAtMillis - now)
                assertEquals("the event says when the flush is due", due, last.nextAttemptAtMillis)
                assertTrue("never reported failed", process.events.none { it is SyncEvent.TokenFailed })
                assertEquals("still queued", 1, process.sync.pendingWork().size)
                now = last.nextAttemptAtMillis
                if (round < 9) due = process.sync.flush()
            }

            server.start()
            assertNull("nothing left to send", process.sync.flush())
            val registered = process.events.filterIsInstance<SyncEvent.TokenRegistered>().single()
            assertEquals(RegistrationClient.tokenFingerprint(token), registered.fingerprint)
            assertTrue(process.sync.pendingWork().isEmpty())
        } finally {
            phone.delete()
            server.stop()
        }
    }
}
