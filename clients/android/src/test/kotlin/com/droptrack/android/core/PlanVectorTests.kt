package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import java.io.File

/**
 * Every file in `vectors/android-plans/` is planned and compared with its expectation. The Swift
 * side (`Tests/EmulatorTests/AndroidPlanVectorTests.swift`) feeds the same files to the phone
 * model, so the Kotlin notifier and the model agree through these files.
 */
class PlanVectorTests {
    private val folder = File(System.getProperty("droptrack.vectors") ?: "vectors", "android-plans")

    private fun files(): List<File> =
        (folder.listFiles { file -> file.name.endsWith(".json") } ?: emptyArray()).sortedBy { it.name }

    @Test
    fun theFolderHoldsTheAgreedCases() {
        val names = files().map { it.name.removeSuffix(".json") }.toSet()
        for (required in listOf(
            "start", "update.on-the-way", "update.reassigned", "end", "past-eta", "missing-activity-id",
            "progress-not-a-number", "unknown-schema-version", "stale-sequence", "promotion-not-allowed",
            "update.3-of-12"
        )) {
            assertTrue("vectors/android-plans/$required.json is missing (have $names)", required in names)
        }
    }

    @Test
    fun everyVectorPlansAsExpected() {
        val problems = ArrayList<String>()
        for (file in files()) {
            try {
                check(file)
            } catch (error: AssertionError) {
                problems.add("${file.name}: ${error.message}")
            }
        }
        if (problems.size > 0) fail(problems.joinToString("\n"))
    }

    private val progressFolder = File(System.getProperty("droptrack.vectors") ?: "vectors", "progress")

    /**
     * `vectors/progress/`: N of M (3 of 12 among them) and the delivery's seven steps. The map of
     * `update.on-the-way` with each vector's keys posts the vector's bar, as the Swift widget logic,
     * the Android phone model and the doctor read the same files.
     */
    @Test
    @Suppress("UNCHECKED_CAST")
    fun everyProgressVectorDrawsItsBar() {
        val files = (progressFolder.listFiles { file -> file.name.endsWith(".json") } ?: emptyArray()).sortedBy { it.name }
        assertTrue("vectors/progress/3-of-12.json is missing", files.any { it.name == "3-of-12.json" })
        val base = strings((MiniJson.parse(File(folder, "update.on-the-way.json").readText()) as Map<String, Any?>)["data"] as Map<String, Any?>)
        val problems = ArrayList<String>()
        for (file in files) {
            val vector = MiniJson.parse(file.readText()) as Map<String, Any?>
            val bar = vector["bar"] as Map<String, Any?>
            val outcome = LiveUpdatePlanner.plan(base + strings(vector["data"] as Map<String, Any?>), 0L, DeviceFacts(), null)
            if (outcome !is PlanOutcome.Planned) {
                problems.add("${file.name}: not planned: $outcome")
                continue
            }
            val plan = outcome.plan
            val actual = mapOf(
                "androidSegments" to plan.segments.map { it.length.toLong() },
                "points" to plan.points.map { it.position.toLong() },
                "lit" to plan.progress.toLong(),
                "segmentCount" to plan.segments.map { it.length.toLong() }.sum(),
                "progressText" to plan.chipText,
                "remainingText" to plan.text.substringAfterLast(" · ")
            )
            for ((key, value) in actual) {
                if (bar[key] != value) problems.add("${file.name}: $key is $value, the vector says ${bar[key]}")
            }
        }
        if (problems.size > 0) fail(problems.joinToString("\n"))
    }

    @Suppress("UNCHECKED_CAST")
    private fun check(file: File) {
        val vector = MiniJson.parse(file.readText()) as Map<String, Any?>
        val now = vector["now"] as Long
        val device = deviceFacts(vector["device"] as Map<String, Any?>)
        var lastShown: Long? = null
        (vector["shown"] as Map<String, Any?>?)?.let { shown ->
            val before = LiveUpdatePlanner.plan(strings(shown), now, device, null)
            assertTrue("the shown message plans: $before", before is PlanOutcome.Planned)
            lastShown = (before as PlanOutcome.Planned).plan.sequence
        }
        val outcome = LiveUpdatePlanner.plan(strings(vector["data"] as Map<String, Any?>), now, device, lastShown)
        val refused = vector["refused"] as Map<String, Any?>?
        if (refused != null) {
            assertTrue("expected a refusal, got $outcome", outcome is PlanOutcome.Refused)
            val actual = outcome as PlanOutcome.Refused
            assertEquals(refused["field"], actual.field)
            assertEquals(refused["code"], actual.code)
            assertTrue("the message names the field: ${actual.message}", actual.message.contains(actual.field))
        } else {
            assertTrue("expected a plan, got $outcome", outcome is PlanOutcome.Planned)
            assertEquals(vector["plan"], planAsJson((outcome as PlanOutcome.Planned).plan))
        }
    }

    private fun strings(map: Map<String, Any?>): Map<String, String> = map.mapValues { it.value as String }

    private fun deviceFacts(map: Map<String, Any?>) = DeviceFacts(
        notificationsEnabled = map["notificationsEnabled"] as Boolean?,
        canPostPromoted = map["canPostPromoted"] as Boolean?,
        userAllowsLiveUpdates = map["userAllowsLiveUpdates"] as Boolean?
    )

    companion object {
        /** The plan in the vectors' shape (numbers as Long, as MiniJson reads them). */
        fun planAsJson(plan: NotificationPlan): Map<String, Any?> = mapOf(
            "id" to plan.id.toLong(),
            "tag" to plan.tag,
            "title" to plan.title,
            "text" to plan.text,
            "subText" to plan.subText,
            "ongoing" to plan.ongoing,
            "segments" to plan.segments.map { mapOf("length" to it.length.toLong(), "color" to it.color) },
            "points" to plan.points.map { mapOf("position" to it.position.toLong(), "color" to it.color) },
            "progress" to plan.progress.toLong(),
            "chipText" to plan.chipText,
            "whenMillis" to plan.whenMillis,
            "requestPromotion" to plan.requestPromotion,
            "promotionRefusals" to plan.promotionRefusals,
            "sequence" to plan.sequence,
            "event" to plan.event,
            "timeoutAfterMillis" to plan.timeoutAfterMillis
        )
    }
}
