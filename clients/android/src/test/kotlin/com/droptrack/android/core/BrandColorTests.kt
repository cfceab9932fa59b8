package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File

/** One brand colour: the default is `vectors/brand.json`'s (the Swift widget's tests read it too), and an app may set its own. */
class BrandColorTests {
    private val vectors = File(System.getProperty("droptrack.vectors") ?: "vectors")

    @Test
    fun theDefaultIsTheVectorsOne() {
        @Suppress("UNCHECKED_CAST")
        val brand = MiniJson.parse(File(vectors, "brand.json").readText()) as Map<String, Any?>
        assertEquals(brand["brandColor"], BrandColor.DEFAULT)
        assertEquals(BrandColor.DEFAULT, LiveUpdatePlanner.BRAND_COLOR)
    }

    @Test
    fun anAppsColourIsUsedAndAMalformedOneFallsBackNamingTheEntry() {
        val lines = mutableListOf<String>()
        assertEquals("#0A84FF", BrandColor.resolve("#0A84FF") { lines.add(it) })
        assertEquals(BrandColor.DEFAULT, BrandColor.resolve(null) { lines.add(it) })
        assertTrue(lines.isEmpty())
        for (bad in listOf("0A84FF", "#0A84F", "#GGGGGG", "", "#800A84FF")) {
            assertEquals(bad, BrandColor.DEFAULT, BrandColor.resolve(bad) { lines.add(it) })
        }
        assertEquals(5, lines.size)
        assertTrue(lines.first(), lines.all { it.contains(BrandColor.MANIFEST_KEY) && it.contains("#RRGGBB") })
    }

    @Test
    fun thePlanDrawsTheBarInTheAppsColour() {
        @Suppress("UNCHECKED_CAST")
        val vector = MiniJson.parse(File(vectors, "android-plans/update.on-the-way.json").readText()) as Map<String, Any?>
        @Suppress("UNCHECKED_CAST")
        val data = (vector["data"] as Map<String, Any?>).mapValues { it.value.toString() }
        val own = LiveUpdatePlanner.plan(data, 0L, DeviceFacts(), null, "#0A84FF") as PlanOutcome.Planned
        assertTrue(own.plan.segments.isNotEmpty())
        assertTrue(own.plan.segments.all { it.color == "#0A84FF" })
        val default = LiveUpdatePlanner.plan(data, 0L, DeviceFacts(), null) as PlanOutcome.Planned
        assertTrue(default.plan.segments.all { it.color == BrandColor.DEFAULT })
    }
}
