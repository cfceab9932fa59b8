package com.droptrack.android.core

import org.junit.AfterClass
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.BeforeClass
import org.junit.Test

/**
 * The person turns Live Updates or notifications off: the server hears it (the token registered
 * again with the new device facts, which `droptrack serve` answers 200, "already known") when the
 * app comes to the front ([LiveUpdateSync.reconcile]) or when the system broadcasts the change
 * ([LiveUpdateSync.factsChanged]), not only at the next push or launch.
 */
class SwitchesTests {
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

    /** A phone whose app configured the library for [user] and registered a token. */
    private fun registeredPhone(user: String): Triple<Phone, AppProcess, String> {
        val phone = Phone()
        val process = phone.process()
        process.sync.configure(SyncSetup(server.baseUrl, user, "pixel-$user"), server.deviceCredential(user))
        val token = "fcm-$user:" + System.nanoTime()
        process.sync.tokenChanged(token)
        val first = process.events.filterIsInstance<SyncEvent.TokenRegistered>().single()
        assertTrue("the first registration creates the token", first.created)
        return Triple(phone, process, RegistrationClient.tokenFingerprint(token))
    }

    private fun registrations(process: AppProcess) = process.events.filterIsInstance<SyncEvent.TokenRegistered>()

    @Test
    fun liveUpdatesSwitchedOffReachTheServerWhenTheAppComesToTheFront() {
        val (phone, process, fingerprint) = registeredPhone("u-switch")
        try {
            process.sync.reconcile()
            assertEquals("nothing changed: nothing is sent again", 1, registrations(process).size)

            // Android 16's per-app Live Updates switch, turned off in Settings; it sends no broadcast.
            phone.shade.facts = DeviceFacts(true, false, false, "Google", "16")
            val outcome = process.sync.reconcile()
            assertNull(outcome.failure)
            val again = registrations(process)
            assertEquals("coming back to the app re-registers with the new facts", 2, again.size)
            assertEquals(fingerprint, again[1].fingerprint)
            assertFalse("the server already had the token", again[1].created)
        } finally {
            phone.delete()
        }
    }

    @Test
    fun notificationsBlockedReachTheServerWhenTheSystemBroadcastsIt() {
        val (phone, process, fingerprint) = registeredPhone("u-blocked")
        try {
            assertNull("nothing changed, nothing waits", process.sync.factsChanged())
            assertEquals(1, registrations(process).size)

            phone.shade.facts = DeviceFacts(false, false, false, "Google", "16")
            assertNull("sent at once, nothing left to retry", process.sync.factsChanged())
            val again = registrations(process)
            assertEquals(2, again.size)
            assertEquals(fingerprint, again[1].fingerprint)
        } finally {
            phone.delete()
        }
    }
}
