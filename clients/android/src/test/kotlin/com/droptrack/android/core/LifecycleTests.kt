package com.droptrack.android.core

import org.junit.AfterClass
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.BeforeClass
import org.junit.Test

/**
 * Swipes, ends and reconciliation against a real `droptrack serve`: what the person did to a card
 * reaches the server as a lifecycle report (`POST /v1/activities/{id}/lifecycle`, a
 * `device_lifecycle` timeline entry), and a card the person dismissed is never posted again, by
 * this process or a later one.
 */
class LifecycleTests {
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

    private val now = 1796000300000L

    private fun vector(name: String, activityId: String) = fcmVector(name) + (LiveUpdatePlanner.Key.ACTIVITY_ID to activityId)

    /** A phone whose app configured the library for [user], and the activity started for that user. */
    private fun phoneWith(activityId: String, user: String): Pair<Phone, AppProcess> {
        server.startActivity(activityId, user)
        val phone = Phone()
        val process = phone.process(nowMillis = { now })
        process.sync.configure(SyncSetup(server.baseUrl, user, "pixel-$user"), server.deviceCredential(user))
        return phone to process
    }

    @Test
    fun aSwipedCardIsReportedDismissedAndNeverPostedAgain() {
        val (phone, first) = phoneWith("swipe-1", "u-swipe")
        try {
            assertTrue(first.sync.receive(vector("update.on-the-way.json", "swipe-1")))
            phone.shade.swipe("swipe-1")
            // The delete intent reaches the receiver, in a process of its own.
            phone.process(nowMillis = { now }).sync.dismissed("swipe-1")
            assertEquals(
                listOf("active" to "deviceId pixel-u-swipe", "dismissed" to "deviceId pixel-u-swipe; reason: swiped away"),
                server.lifecycleReports("swipe-1")
            )

            val posts = phone.shade.posted.size
            val later = phone.process(nowMillis = { now })
            assertFalse(later.sync.receive(vector("update.reassigned.json", "swipe-1")))
            assertFalse(later.sync.receive(vector("end.json", "swipe-1")))
            assertEquals("nothing posted after the swipe", posts, phone.shade.posted.size)
            assertFalse(phone.shade.cards.containsKey("swipe-1"))
            val dropped = later.events.filterIsInstance<SyncEvent.Dropped>()
            assertEquals(2, dropped.size)
            assertTrue(dropped.all { it.reason.contains("dismissed") })
            assertTrue(later.sync.running().isEmpty())
        } finally {
            phone.delete()
        }
    }

    @Test
    fun aDismissalWhileTheServerIsUnreachableIsSentByALaterProcess() {
        val (phone, first) = phoneWith("swipe-2", "u-swipe-2")
        try {
            assertTrue(first.sync.receive(vector("update.on-the-way.json", "swipe-2")))
            phone.shade.swipe("swipe-2")
            server.pause()
            var clock = now
            val receiver = phone.process(nowMillis = { clock })
            receiver.sync.dismissed("swipe-2")
            assertEquals(listOf("dismissed"), receiver.sync.pendingWork().map { (it.work as OutboxWork.Report).state })
            server.start()
            clock += 1_000
            phone.process(nowMillis = { clock }).sync.flush()
            assertEquals(listOf("active", "dismissed"), server.lifecycleReports("swipe-2").map { it.first })
        } finally {
            server.start()
            phone.delete()
        }
    }

    @Test
    fun theServerHearsActiveOnceAndEndedWhenTheEndIsShown() {
        val (phone, process) = phoneWith("life-1", "u-life")
        try {
            assertTrue(process.sync.receive(vector("start.json", "life-1")))
            assertTrue(process.sync.receive(vector("update.on-the-way.json", "life-1")))
            assertTrue(process.sync.receive(vector("end.json", "life-1")))
            val card = phone.shade.cards.getValue("life-1")
            assertFalse(card.ongoing)
            assertEquals(LiveUpdatePlanner.ENDED_CARD_TIMEOUT_MILLIS, card.timeoutAfterMillis)
            assertEquals(listOf("active", "ended"), server.lifecycleReports("life-1").map { it.first })
            assertEquals(listOf("life-1"), process.sync.running().map { it.activityId })
            assertEquals(CardPhase.ENDED, process.sync.running().single().phase)
        } finally {
            phone.delete()
        }
    }

    @Test
    fun reconcileReportsACardThatVanishedAsLostAndEndsOneTheServerEnded() {
        server.startActivity("gone-1", "u-rec")
        val (phone, first) = phoneWith("ended-1", "u-rec")
        try {
            assertTrue(first.sync.receive(vector("update.on-the-way.json", "ended-1")))
            assertTrue(first.sync.receive(vector("update.on-the-way.json", "gone-1")))
            // The system removed one card without a delete intent (notifications blocked, a force stop)...
            phone.shade.remove("gone-1")
            // ...and the backend ended the other while its end push never arrived.
            server.endActivity("ended-1")

            val launched = phone.process(nowMillis = { now })
            val outcome = launched.sync.reconcile()
            assertEquals(listOf("ended-1"), outcome.endedLocally)
            assertEquals(listOf("gone-1"), outcome.reportedLost)
            assertEquals(null, outcome.failure)
            val ended = phone.shade.cards.getValue("ended-1")
            assertFalse("ended here too", ended.ongoing)
            assertEquals("On the way", ended.title)
            assertEquals(listOf("active", "lost"), server.lifecycleReports("gone-1").map { it.first })
            // The server ended it: nothing is reported back.
            assertEquals(listOf("active"), server.lifecycleReports("ended-1").map { it.first })
            assertEquals(listOf("ended-1"), launched.sync.running().map { it.activityId })
        } finally {
            phone.delete()
        }
    }

    @Test
    fun theAppEndsItsCardWithTheStateShownAndADismissalDelay() {
        val phone = Phone()
        try {
            val process = phone.process(nowMillis = { now })
            process.sync.configure(SyncSetup("http://127.0.0.1:9", "u-local", "pixel-local"), null)
            val data = vector("update.on-the-way.json", "local-1") - LiveUpdatePlanner.Key.SEQUENCE
            assertTrue(process.sync.startLocal("local-1", data))
            assertFalse("an unknown id is not created by an update", process.sync.updateLocal("local-unknown", data))
            assertFalse(phone.shade.cards.containsKey("local-unknown"))
            assertTrue(process.sync.endLocal("local-1", null, 60_000))
            val card = phone.shade.cards.getValue("local-1")
            assertFalse(card.ongoing)
            assertEquals("On the way", card.title)
            assertEquals(60_000L, card.timeoutAfterMillis)
            assertTrue(process.sync.endLocal("local-1", null, 0))
            assertFalse("0 removes it now", phone.shade.cards.containsKey("local-1"))
            assertFalse("it cannot be ended twice", process.sync.endLocal("local-1", null, 0))
        } finally {
            phone.delete()
        }
    }
}
