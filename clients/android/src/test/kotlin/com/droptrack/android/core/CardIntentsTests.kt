package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertNull
import org.junit.Test

/**
 * The tap and the swipe of a card (DT-118–DT-120): what the two PendingIntents carry. The glue
 * (`DeliveryNotifier`) builds the platform objects from exactly these values.
 */
class CardIntentsTests {
    @Test
    fun tappingOpensTheAppOnTheActivityBroughtToTheFrontNotStackedAgain() {
        val content = CardIntents.content("act-A-1042")
        assertEquals(setOf(LaunchFlag.SINGLE_TOP, LaunchFlag.CLEAR_TOP), content.launchFlags)
        assertEquals(setOf(PendingFlag.IMMUTABLE, PendingFlag.UPDATE_CURRENT), content.pendingFlags)
        assertEquals(mapOf(CardIntents.EXTRA_ACTIVITY_ID to "act-A-1042"), content.extras)
        assertNull("the app's own launch intent, not an action of the library's", content.action)
    }

    @Test
    fun eachActivityHasItsOwnRequestCodeSoTwoCardsNeverShareAPendingIntent() {
        val first = CardIntents.content("act-A-1042")
        val second = CardIntents.content("act-B-7")
        assertEquals(LiveUpdatePlanner.stableId("act-A-1042"), first.requestCode)
        assertNotEquals(first.requestCode, second.requestCode)
        assertEquals("stable across processes", first.requestCode, CardIntents.content("act-A-1042").requestCode)
        assertEquals(first.requestCode, CardIntents.delete("act-A-1042").requestCode)
    }

    @Test
    fun swipingSendsTheLibrarysReceiverTheActivityImmutably() {
        val delete = CardIntents.delete("act-A-1042")
        assertEquals(CardIntents.ACTION_DISMISSED, delete.action)
        assertEquals(setOf(PendingFlag.IMMUTABLE, PendingFlag.UPDATE_CURRENT), delete.pendingFlags)
        assertEquals(emptySet<LaunchFlag>(), delete.launchFlags)
        assertEquals("act-A-1042", CardIntents.dismissedActivity(delete.action) { delete.extras[it] })
    }

    @Test
    fun theReceiverIgnoresAnythingButItsOwnDeleteIntent() {
        assertNull(CardIntents.dismissedActivity("android.intent.action.BOOT_COMPLETED") { "act-A-1042" })
        assertNull(CardIntents.dismissedActivity(CardIntents.ACTION_DISMISSED) { null })
        assertNull("not an id the server could hold", CardIntents.dismissedActivity(CardIntents.ACTION_DISMISSED) { "../etc" })
    }
}
