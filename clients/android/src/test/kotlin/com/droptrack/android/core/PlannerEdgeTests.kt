package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/** The planner's rules at their edges, beyond the shared vectors. */
class PlannerEdgeTests {
    private val now = 1_796_000_000_000L
    private val allowed = DeviceFacts(notificationsEnabled = true, canPostPromoted = true, userAllowsLiveUpdates = true)
    private val base = mapOf(
        "activityId" to "act-1", "event" to "update", "orderId" to "A-1", "status" to "On the way",
        "progress" to "0.5", "etaEpochMillis" to "1796000600000", "stopsRemaining" to "1",
        "courierName" to "Sam", "riderReassigned" to "false", "schemaVersion" to "1", "sequence" to "10"
    )

    private fun planned(data: Map<String, String>, device: DeviceFacts = allowed, last: Long? = null): NotificationPlan {
        val outcome = LiveUpdatePlanner.plan(data, now, device, last)
        assertTrue("expected a plan, got $outcome", outcome is PlanOutcome.Planned)
        return (outcome as PlanOutcome.Planned).plan
    }

    private fun refused(data: Map<String, String>, last: Long? = null): PlanOutcome.Refused {
        val outcome = LiveUpdatePlanner.plan(data, now, allowed, last)
        assertTrue("expected a refusal, got $outcome", outcome is PlanOutcome.Refused)
        return outcome as PlanOutcome.Refused
    }

    @Test
    fun theStableIdIsFnv1aOfTheActivityId() {
        // Values computed independently (Python) with the Swift model's algorithm.
        assertEquals(1534700243, LiveUpdatePlanner.stableId("act-A-1042"))
        assertEquals(0x811C9DC5.toInt() and 0x7FFFFFFF, LiveUpdatePlanner.stableId(""))
        assertEquals(planned(base).id, planned(base + ("sequence" to "11")).id)
    }

    @Test
    fun progressThatIsNotAPlainDecimalIsRefused() {
        for (text in listOf("NaN", "Infinity", "0x1p-1", "0.5f", "", "half", "0,5", "1e999")) {
            val refusal = refused(base + ("progress" to text))
            assertEquals(text, "progress", refusal.field)
            assertEquals(MapRefusal.NOT_A_NUMBER, refusal.code)
        }
    }

    @Test
    fun progressIsClampedAndLitByStepStarted() {
        assertEquals(0, planned(base + ("progress" to "-0.5")).progress)
        assertEquals("0%", planned(base + ("progress" to "-0.5")).chipText)
        assertEquals(7, planned(base + ("progress" to "1.5")).progress)
        assertEquals("100%", planned(base + ("progress" to "1.5")).chipText)
        assertEquals(1, planned(base + ("progress" to "0.01")).progress)
        assertEquals(4, planned(base + ("progress" to "0.5")).progress)
        assertEquals("50%", planned(base + ("progress" to "0.5")).chipText)
        assertEquals(0, planned(base - "progress").progress)
    }

    @Test
    fun missingOptionalValuesHaveDefaults() {
        val plan = planned(mapOf("activityId" to "act-1"))
        assertEquals("", plan.title)
        assertEquals("Your courier is delivering your order · You're next", plan.text)
        assertEquals("Order #", plan.subText)
        assertTrue(plan.ongoing)
        assertNull(plan.whenMillis)
        assertEquals(0L, plan.sequence)
        assertEquals(listOf(PromotionRefusal.NO_TITLE), plan.promotionRefusals)
    }

    @Test
    fun aMissingSchemaVersionIsVersionOneButAnotherIsRefused() {
        planned(base - "schemaVersion")
        assertEquals("schemaVersion", refused(base + ("schemaVersion" to "1.0")).field)
    }

    @Test
    fun anEqualSequenceIsShownAgainButAnOlderOneIsNot() {
        assertEquals(10L, planned(base, last = 10).sequence)
        val refusal = refused(base, last = 11)
        assertEquals("sequence", refusal.field)
        assertEquals(MapRefusal.STALE, refusal.code)
        assertEquals("activityId", refused(base + ("activityId" to "")).field)
    }

    @Test
    fun theEtaIsShownOnlyWhileAhead() {
        assertEquals(now + 1, planned(base + ("etaEpochMillis" to (now + 1).toString())).whenMillis)
        assertNull(planned(base + ("etaEpochMillis" to now.toString())).whenMillis)
        assertNull(planned(base + ("etaEpochMillis" to "soon")).whenMillis)
    }

    @Test
    fun promotionRefusalsFollowTheDeviceFacts() {
        assertEquals(emptyList<String>(), planned(base, DeviceFacts()).promotionRefusals)
        assertEquals(
            listOf(PromotionRefusal.NOT_ONGOING, PromotionRefusal.NOTIFICATIONS_DISABLED),
            planned(base + ("event" to "end"), DeviceFacts(notificationsEnabled = false)).promotionRefusals
        )
        assertEquals(listOf(PromotionRefusal.NO_TITLE), planned(base + ("status" to " \t")).promotionRefusals)
    }

    @Test
    fun onlyTheExactStringTrueMeansReassigned() {
        assertEquals("New courier: Sam · 1 stop away", planned(base + ("riderReassigned" to "true")).text)
        assertEquals("Sam is delivering your order · 1 stop away", planned(base + ("riderReassigned" to "TRUE")).text)
    }

    @Test
    fun deviceFactsWriteUnknownsAsNull() {
        assertEquals(
            "{\"notificationsEnabled\":true,\"canPostPromoted\":null,\"userAllowsLiveUpdates\":false," +
                "\"manufacturer\":\"Google \\\"Pixel\\\"\",\"osVersion\":null}",
            DeviceFacts(notificationsEnabled = true, userAllowsLiveUpdates = false, manufacturer = "Google \"Pixel\"").toJson()
        )
        assertEquals(mapOf("a" to listOf(1L, 2.5, null, "x\n")), MiniJson.parse(MiniJson.write(mapOf("a" to listOf(1L, 2.5, null, "x\n")))))
    }
}
