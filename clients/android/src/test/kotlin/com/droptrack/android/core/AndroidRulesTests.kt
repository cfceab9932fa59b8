package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** The platform decisions the Android glue delegates to plain code. */
class AndroidRulesTests {
    @Test
    fun notificationPermissionIsAskedOnlyFromAndroid13WhileNotGranted() {
        assertFalse(AndroidRules.needsNotificationPermissionRequest(32, granted = false))
        assertTrue(AndroidRules.needsNotificationPermissionRequest(33, granted = false))
        assertFalse(AndroidRules.needsNotificationPermissionRequest(33, granted = true))
        assertTrue(AndroidRules.needsNotificationPermissionRequest(36, granted = false))
    }

    @Test
    fun thePromotionFactIsUnknownBeforeAndroid16AndTheCheckIsNotMade() {
        var probed = 0
        assertNull(AndroidRules.canPostPromoted(35) { probed += 1; true })
        assertEquals(0, probed)
    }

    @Test
    fun aMissingPromotionCheckReadsAsFalseNotACrash() {
        // DT-116: the glue answers null when the platform method is missing on the device.
        assertEquals(false, AndroidRules.canPostPromoted(36) { null })
        assertEquals(true, AndroidRules.canPostPromoted(36) { true })
        assertEquals(false, AndroidRules.canPostPromoted(37) { false })
    }

    @Test
    fun aCardPostedButNotPromotableIsLoggedWithTheReasonsThePlanForesaw() {
        val planned = LiveUpdatePlanner.plan(fcmVector("update.on-the-way.json"), 0, DeviceFacts(true, false, false), null)
        val plan = (planned as PlanOutcome.Planned).plan
        val line = AndroidRules.promotionWarning(plan, promotable = false)
        assertTrue("$line", line!!.contains("hasPromotableCharacteristics() is false"))
        assertTrue("$line", line.contains(PromotionRefusal.PROMOTED_PERMISSION_MISSING))
        assertTrue("$line", line.contains(plan.tag))
        assertTrue(AndroidRules.promotionWarning(plan.copy(promotionRefusals = emptyList()), false)!!.contains("none foreseen"))
        assertNull("promotable: nothing to say", AndroidRules.promotionWarning(plan, promotable = true))
        assertNull("before Android 16 the device cannot say", AndroidRules.promotionWarning(plan, promotable = null))
        assertNull("an ended card does not ask", AndroidRules.promotionWarning(plan.copy(requestPromotion = false), false))
    }

    @Test
    fun coloursBecomeOpaqueArgbOrAreRefusedByName() {
        assertEquals(0xFFFF5A1F.toInt(), AndroidRules.argb("#FF5A1F"))
        assertEquals(0x80FF5A1F.toInt(), AndroidRules.argb("#80ff5a1f"))
        for (bad in listOf("FF5A1F", "#FF5A1", "#GG5A1F", "")) {
            try {
                AndroidRules.argb(bad)
                fail("'$bad' was accepted")
            } catch (refused: IllegalArgumentException) {
                assertTrue(refused.message!!.contains("'$bad'"))
            }
        }
    }

    @Test
    fun theStatusBarIconIsTheAppsNamedIconElseTheBundledOne() {
        val appIcons = mapOf("notification_icon" to 0x7f080001, "droptrack_ic_stat_delivery" to 0x7f080002)
        assertEquals(0x7f080001, AndroidRules.statusBarIcon(AndroidRules.STATUS_BAR_ICON_NAMES) { appIcons[it] ?: 0 })
        val bundledOnly = mapOf("droptrack_ic_stat_delivery" to 0x7f080002)
        assertEquals(0x7f080002, AndroidRules.statusBarIcon(AndroidRules.STATUS_BAR_ICON_NAMES) { bundledOnly[it] ?: 0 })
        // The launcher icon is not a candidate at all: Android masks status-bar icons to white.
        assertFalse(AndroidRules.STATUS_BAR_ICON_NAMES.any { it.startsWith("ic_launcher") })
        try {
            AndroidRules.statusBarIcon(listOf("notification_icon")) { 0 }
            fail("no icon was accepted")
        } catch (missing: IllegalStateException) {
            assertTrue(missing.message!!.contains("'notification_icon'"))
        }
    }

    @Test
    fun dropTrackMessagesAreToldFromOthers() {
        assertTrue(LiveUpdatePlanner.isDropTrackMessage(mapOf("activityId" to "a", "schemaVersion" to "1")))
        assertTrue(LiveUpdatePlanner.isDropTrackMessage(mapOf("activityId" to "a", "sequence" to "3")))
        assertFalse(LiveUpdatePlanner.isDropTrackMessage(mapOf("title" to "Sale!", "body" to "20% off")))
        assertFalse(LiveUpdatePlanner.isDropTrackMessage(mapOf("activityId" to "a")))
    }
}
