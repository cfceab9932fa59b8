package com.droptrack.android.core

import org.junit.AfterClass
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.BeforeClass
import org.junit.Test

/**
 * DT-122, the app killed: FCM starts a process in which the app's code never ran (no
 * `Application.onCreate`, no JavaScript `configure`). Each test configures the library in one
 * process, drops it (the process dies: nothing in memory survives), and starts another on the same
 * files and the same shade, which must show the push with the right content and register a token
 * rotated meanwhile with a real `droptrack serve`.
 */
class ColdStartTests {
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

    private val vectorNow = 1796000300000L

    private fun setup(user: String, device: String) = SyncSetup(server.baseUrl, user, device)

    private fun vector(name: String, activityId: String) = fcmVector(name) + (LiveUpdatePlanner.Key.ACTIVITY_ID to activityId)

    /** Registering the same token again with a fresh credential: 200 and not created means the server had it for this user and device. */
    private fun assertServerHasToken(user: String, device: String, token: String, at: DropTrackServer = server) {
        val again = RegistrationClient(at.baseUrl, { at.deviceCredential(user) })
            .register(user, device, token, DeviceFacts(true, true, true, "Google", "16"))
        assertTrue("$again", again is RegistrationResult.Registered)
        assertEquals("the server already had the token", 200, (again as RegistrationResult.Registered).status)
        assertFalse(again.created)
    }

    @Test
    fun aPushInAFreshProcessShowsTheCardWithoutAnyConfigureCall() {
        val phone = Phone()
        try {
            server.startActivity("cold-1", "u-cold-1")
            val first = phone.process(nowMillis = { vectorNow })
            first.sync.configure(setup("u-cold-1", "pixel-cold-1"), server.deviceCredential("u-cold-1"))
            assertTrue(first.sync.receive(vector("update.on-the-way.json", "cold-1")))
            // The process dies here: the next one shares only the files and the shade.

            val second = phone.process(nowMillis = { vectorNow })
            assertEquals(setup("u-cold-1", "pixel-cold-1"), second.sync.setup())
            // An older message that FCM delivers late is refused by the sequence the first process kept.
            assertFalse(second.sync.receive(vector("start.json", "cold-1")))
            assertEquals("On the way", phone.shade.cards.getValue("cold-1").title)
            assertTrue(second.events.any { it is SyncEvent.Dropped && it.reason.startsWith("sequence stale") })

            assertTrue(second.sync.receive(vector("update.reassigned.json", "cold-1")))
            val card = phone.shade.cards.getValue("cold-1")
            assertEquals("On the way", card.title)
            assertEquals("New courier: Priya · 2 stops away", card.text)
            assertEquals("Order #A-1042", card.subText)
            assertEquals("71%", card.chipText)
            assertEquals(1796000200L, card.sequence)
            assertTrue(card.ongoing)
            // The `active` report the first process queued reached the server with the stored credential.
            assertEquals(listOf("active" to "deviceId pixel-cold-1"), server.lifecycleReports("cold-1"))
        } finally {
            phone.delete()
        }
    }

    @Test
    fun aTokenRotatedWhileTheAppWasKilledReachesTheServer() {
        val phone = Phone()
        try {
            val first = phone.process()
            first.sync.configure(setup("u-cold-2", "pixel-cold-2"), server.deviceCredential("u-cold-2"))
            first.sync.tokenChanged("fcm-token-before:" + System.nanoTime())
            assertTrue(first.events.any { it is SyncEvent.TokenRegistered })

            // Killed; FCM rotates the token and starts a process for onNewToken alone.
            val rotated = "fcm-token-rotated:" + System.nanoTime()
            val second = phone.process()
            second.sync.tokenChanged(rotated)
            val registered = second.events.filterIsInstance<SyncEvent.TokenRegistered>().single()
            assertEquals(RegistrationClient.tokenFingerprint(rotated), registered.fingerprint)
            assertTrue(registered.created)
            assertTrue(second.sync.pendingWork().isEmpty())
            assertServerHasToken("u-cold-2", "pixel-cold-2", rotated)
            for (line in first.logs + second.logs) assertFalse("a log line shows the token: $line", line.contains(rotated))
        } finally {
            phone.delete()
        }
    }

    @Test
    fun aTokenThatArrivedWhileTheServerWasDownIsSentByALaterProcess() {
        val late = DropTrackServer()
        val phone = Phone()
        try {
            late.start()
            val credential = late.deviceCredential("u-late", ttlSeconds = 3600)
            late.pause()
            var now = 1_000_000L
            val first = phone.process(nowMillis = { now })
            first.sync.configure(SyncSetup(late.baseUrl, "u-late", "pixel-late"), credential)
            val token = "fcm-token-while-down:" + System.nanoTime()
            first.sync.tokenChanged(token)
            val retrying = first.events.filterIsInstance<SyncEvent.TokenRetrying>().single()
            assertEquals(1, retrying.attempts)
            assertEquals("backoff 1 s after the first failure", now + 1_000, retrying.nextAttemptAtMillis)

            // A second process before the wait is over sends nothing; one after it, with the server up, registers it.
            late.start()
            val early = phone.process(nowMillis = { now + 500 })
            assertEquals(now + 1_000, early.sync.flush())
            assertTrue(early.events.isEmpty())
            now += 1_000
            val second = phone.process(nowMillis = { now })
            assertEquals(null, second.sync.flush())
            assertEquals(RegistrationClient.tokenFingerprint(token), second.events.filterIsInstance<SyncEvent.TokenRegistered>().single().fingerprint)
            assertServerHasToken("u-late", "pixel-late", token, at = late)
        } finally {
            phone.delete()
            late.stop()
        }
    }

    @Test
    fun anExpiredCredentialInAColdProcessWaitsForTheAppRatherThanFailing() {
        val phone = Phone()
        try {
            val expired = server.deviceCredential("u-cold-3", ttlSeconds = 1)
            Thread.sleep(2_100)
            val first = phone.process()
            first.sync.configure(setup("u-cold-3", "pixel-cold-3"), expired)
            val second = phone.process()
            val token = "fcm-token-expired-credential:" + System.nanoTime()
            second.sync.tokenChanged(token)
            val waiting = second.events.filterIsInstance<SyncEvent.TokenRetrying>().single()
            assertTrue(waiting.problem, waiting.problem.contains("cannot ask the app for a fresh one"))

            // The app starts and hands over a fresh credential: the queued token goes at once.
            val launched = phone.process()
            launched.sync.supplyCredential(server.deviceCredential("u-cold-3"))
            assertNotNull(launched.events.filterIsInstance<SyncEvent.TokenRegistered>().singleOrNull())
            assertServerHasToken("u-cold-3", "pixel-cold-3", token)
        } finally {
            phone.delete()
        }
    }

    @Test
    fun theCredentialAndTheTokenAreStoredSealedInAnOwnerOnlyFile() {
        val phone = Phone()
        try {
            val credential = server.deviceCredential("u-cold-4")
            val process = phone.process()
            process.sync.configure(SyncSetup("http://127.0.0.1:9", "u-cold-4", "pixel-cold-4"), credential)
            val token = "fcm-token-sealed:" + System.nanoTime()
            process.sync.tokenChanged(token)
            val text = phone.prefs.readText()
            assertFalse("the credential is in the clear", text.contains(credential))
            assertFalse("the token is in the clear", text.contains(token))
            assertTrue(text.contains(SealedSecrets.PREFIX + LiveUpdateSync.CREDENTIAL))
            for (file in listOf(phone.prefs, phone.keys)) {
                val mode = java.nio.file.Files.getPosixFilePermissions(file.toPath())
                assertEquals("${file.name} is 0600", java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"), mode)
            }
            // A later process opens both.
            val later = phone.process()
            assertEquals(token, DeviceOutbox(FileKeyValueStore(phone.prefs), SealedSecrets(FileKeyValueStore(phone.prefs), KeystoreFileKeys(phone.keys)), OutboxPolicy()).pendingToken())
            assertEquals(setup("u-cold-4", "pixel-cold-4").copy(baseUrl = "http://127.0.0.1:9"), later.sync.setup())
        } finally {
            phone.delete()
        }
    }
}
