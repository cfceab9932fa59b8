package com.droptrack.expo

import com.droptrack.android.core.CardPhase
import com.droptrack.android.core.CardRecord
import com.droptrack.android.core.DeviceFacts
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.PlanOutcome
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

class LocalDeliveryTests {
    // What JavaScript hands the module: numbers arrive as doubles.
    private val state = mapOf<String, Any?>(
        "status" to "On the way", "progress" to 0.7142857142857143, "etaEpochMillis" to 1796000720000.0,
        "stopsRemaining" to 2.0, "courierName" to "Sam", "riderReassigned" to false
    )

    @Test
    fun aLocalUpdateIsTheServersMapForTheSameState() {
        val local = LocalDelivery.dataMap("act-A-1042", "update", state)
        // The server's own map for this state (vectors/android/update.on-the-way.json), apart from the
        // order id and the sequence, which the sync stamps.
        val server = mapOf(
            "activityId" to "act-A-1042", "courierName" to "Sam", "etaEpochMillis" to "1796000720000",
            "event" to "update", "progress" to "0.7142857142857143", "riderReassigned" to "false",
            "schemaVersion" to "1", "status" to "On the way", "stopsRemaining" to "2"
        )
        assertEquals(server, local - "orderId")
        assertEquals("1", LocalDelivery.dataMap("a", "end", state + ("progress" to 1.0))["progress"])
    }

    @Test
    fun theLibraryPlansALocalUpdateAsItPlansAPush() {
        val data = LocalDelivery.dataMap("act-A-1042", "start", state) + ("sequence" to "1796000000")
        val outcome = LiveUpdatePlanner.plan(data, 1796000000000, DeviceFacts(true, true, true), null)
        assertTrue("$outcome", outcome is PlanOutcome.Planned)
        val plan = (outcome as PlanOutcome.Planned).plan
        assertEquals("On the way", plan.title)
        assertEquals("71%", plan.chipText)
        assertEquals(1796000720000L, plan.whenMillis)
    }

    @Test
    fun aMissingFieldNamesIt() {
        try {
            LocalDelivery.dataMap("a", "update", state - "courierName")
            fail("expected a refusal")
        } catch (error: ModuleError) {
            assertEquals("DropTrack: 'courierName' must be a string", error.message)
            assertEquals("courierName", error.field)
        }
    }

    @Test
    fun runningActivitiesCarryTheStateTheyShowAsTheTypeScriptTypeRequires() {
        val started = CardRecord("act-A-1042", 10, LocalDelivery.dataMap("act-A-1042", "update", state), CardPhase.ACTIVE, 0)
        val ended = CardRecord("act-B-7", 11, LocalDelivery.dataMap("act-B-7", "end", state + ("status" to "Delivered")), CardPhase.ENDED, 0)
        val running = LocalDelivery.runningActivities(listOf(ended, started))
        assertEquals(listOf("act-A-1042", "act-B-7"), running.map { it["activityId"] })
        assertEquals(listOf("active", "ended"), running.map { it["state"] })
        // RunningActivity.contentState: the six DeliveryState fields, typed as JavaScript gets them.
        for (entry in running) {
            assertEquals(setOf("activityId", "localId", "state", "contentState"), entry.keys)
        }
        assertEquals(state, running[0]["contentState"])
        assertEquals("Delivered", (running[1]["contentState"] as Map<*, *>)["status"])
    }
}
