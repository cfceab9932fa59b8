package com.droptrack.expo

import com.droptrack.android.core.AndroidRules
import com.droptrack.android.core.MiniJson
import com.droptrack.android.core.Phone
import com.droptrack.android.core.SyncEvent
import com.droptrack.android.core.fcmVector
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import java.io.File

/**
 * The module's Android side held to `clients/expo/test/contract/cases.json`, the description both
 * phones answer to (contract.test.ts drives the JavaScript layer through the same file). Each case
 * runs on a fresh phone (the library's [com.droptrack.android.core.LiveUpdateSync] on its files and
 * a shade, as the library's tests run it) through [ExpoDeliveries], the code behind the module's
 * AsyncFunctions, with each step's `native` arguments as JavaScript hands them over (numbers as
 * doubles); its answer must be the step's `resolves`, or an error containing `rejects`.
 */
@Suppress("UNCHECKED_CAST")
class ContractCasesTests {
    private val contract = MiniJson.parse(
        File(System.getProperty("droptrack.contract") ?: "clients/expo/test/contract/cases.json").readText()
    ) as Map<String, Any?>
    private val states = contract["states"] as Map<String, Any?>

    private fun forAndroid(entry: Map<String, Any?>) = "android" in (entry["platforms"] as List<String>)

    @Test
    fun everyCaseForAndroidAnswersAsTheContractSays() {
        val cases = (contract["cases"] as List<Map<String, Any?>>).filter { forAndroid(it) }
        assertTrue("cases.json has no Android cases", cases.size >= 5)
        for (case in cases) {
            val phone = Phone()
            try {
                val deliveries = ExpoDeliveries(phone.process().sync)
                for (step in case["steps"] as List<Map<String, Any?>>) {
                    // null: the JavaScript layer refuses before any native call (contract.test.ts checks that).
                    val native = step["native"] as List<Any?>? ?: continue
                    check(case["name"] as String, step, deliveries, resolve(native) as List<Any?>)
                }
            } finally {
                phone.delete()
            }
        }
    }

    @Test
    fun everyPushThePhoneReceivesIsEmittedAsOnPushShownOrDropped() {
        val pushes = contract["pushes"] as Map<String, Any?>
        assertTrue(forAndroid(pushes))
        val phone = Phone()
        try {
            val process = phone.process()
            for (step in pushes["steps"] as List<Map<String, Any?>>) {
                // `data` names a file under vectors/; fcmVector reads vectors/android/.
                val data = fcmVector((step["data"] as String).removePrefix("android/")) + (step["with"] as Map<String, String>)
                val before = process.events.size
                process.sync.receive(data)
                val emitted = process.events.drop(before).mapNotNull { ExpoDeliveries.pushEvent(it) }
                val expected = step["onPush"] as Map<String, Any?>
                assertEquals("one onPush for ${step["data"]}", 1, emitted.size)
                val event = emitted.single()
                assertEquals(expected["activityId"], event["activityId"])
                assertEquals(expected["event"], event["event"])
                val dropped = expected["dropped"] as String?
                if (dropped == null) {
                    assertEquals("${step["data"]} was shown", null, event["dropped"])
                } else {
                    val reason = event["dropped"] as String? ?: ""
                    assertTrue("${step["data"]} dropped: '$reason' should contain '$dropped'", reason.contains(dropped))
                }
            }
        } finally {
            phone.delete()
        }
    }

    @Test
    fun theDismissalDelayReachesTheCardAsItsTimeout() {
        val phone = Phone()
        try {
            val deliveries = ExpoDeliveries(phone.process().sync)
            val placed = resolve("@placed") as Map<String, Any?>
            deliveries.start("A-1", placed)
            deliveries.end("A-1", null, 60.0)
            assertEquals("60 s as setTimeoutAfter's milliseconds", 60_000L, phone.shade.cards.getValue("A-1").timeoutAfterMillis)
            deliveries.start("A-2", placed)
            deliveries.end("A-2", null, null)
            assertEquals("no delay given: iOS's 4 hours", 4 * 3_600_000L, phone.shade.cards.getValue("A-2").timeoutAfterMillis)
        } finally {
            phone.delete()
        }
    }

    @Test
    fun tokenEventsSayTruthfullyWhetherTheTokenIsRetryingOrFailedAsTokenEventTypesThem() {
        val retrying = ExpoDeliveries.tokenEvent(SyncEvent.TokenRetrying("sha256:0123456789abcdef", 7, 1_796_000_000_000, "connection refused"))
        assertEquals(
            mapOf(
                "kind" to "fcm", "fingerprint" to "sha256:0123456789abcdef", "status" to "retrying",
                "error" to "connection refused", "nextAttemptAt" to 1.796e12
            ),
            retrying
        )
        val failed = ExpoDeliveries.tokenEvent(SyncEvent.TokenFailed("sha256:0123456789abcdef", 400, "400 bad_token: the token is not an FCM token"))
        assertEquals("failed", failed!!["status"])
        assertEquals(null, ExpoDeliveries.tokenEvent(SyncEvent.Reported("A-1", "active")))
    }

    @Test
    fun theSynchronousChecksAnswerAsTheSupportTableSaysForEachAndroidVersion() {
        val rows = ((contract["support"] as Map<String, Any?>)["rows"] as List<Map<String, Any?>>).filter { it["platform"] == "android" }
        assertTrue(rows.size >= 2)
        for (row in rows) {
            val sdk = (row["version"] as String).toInt()
            assertEquals("isSupported on API $sdk", row["isSupported"], ExpoDeliveries.isSupported(sdk))
            assertEquals("isPushToStartEligible on API $sdk", row["isPushToStartEligible"], ExpoDeliveries.isPushToStartEligible(sdk))
            // The module answers DeliveryNotifier.canPostPromoted(): this rule with the platform's probe.
            row["canPostPromotedNotifications"]?.let { expected ->
                assertEquals("canPostPromotedNotifications on API $sdk", expected, AndroidRules.canPostPromoted(sdk) { true } == true)
            }
        }
    }

    private fun check(case: String, step: Map<String, Any?>, deliveries: ExpoDeliveries, args: List<Any?>) {
        val call = step["call"] as String
        val where = "$case: $call$args"
        val rejects = step["rejects"] as String?
        val answer = try {
            invoke(deliveries, call, args)
        } catch (error: ModuleError) {
            val message = error.message ?: ""
            assertTrue("$where rejected: '$message'; the contract says '${rejects ?: "no error"}'", rejects != null && message.contains(rejects))
            return
        }
        if (rejects != null) fail("$where answered $answer; the contract says it rejects with '$rejects'")
        assertMatches(where, resolve(step["resolves"]), answer)
    }

    /** What the module's AsyncFunction of that name runs (DropTrackModule.kt), with JavaScript's arguments. */
    private fun invoke(deliveries: ExpoDeliveries, call: String, args: List<Any?>): Any? = when (call) {
        "startDelivery" -> deliveries.start(args[0] as String, args[1] as Map<String, Any?>)
        "updateDelivery" -> deliveries.update(args[0] as String, args[1] as Map<String, Any?>)
        "endDelivery" -> {
            deliveries.end(args[0] as String, args[1] as Map<String, Any?>?, args[2] as Double?)
            null
        }
        "getRunningActivities" -> deliveries.running()
        else -> throw AssertionError("cases.json calls $call, which the Android side's contract test does not drive yet")
    }

    /** `@name` → the named state; numbers as JavaScript's (doubles), as Expo hands them to Kotlin. */
    private fun resolve(value: Any?): Any? = when (value) {
        is String -> if (value.startsWith("@")) resolve(states[value.substring(1)] ?: fail("cases.json names no state '$value'")) else value
        is Long -> value.toDouble()
        is List<*> -> value.map { resolve(it) }
        is Map<*, *> -> value.entries.associate { (key, item) -> key to resolve(item) }
        else -> value
    }

    /** Equal, where `"*"` stands for any non-empty string (the local id the phone chose). */
    private fun assertMatches(where: String, expected: Any?, actual: Any?) {
        when {
            expected == "*" -> assertTrue("$where: a non-empty string, not $actual", actual is String && actual.length > 0)
            expected is List<*> -> {
                assertTrue("$where: a list, not $actual", actual is List<*>)
                val list = actual as List<*>
                assertEquals("$where: $list", expected.size, list.size)
                for (index in expected.indices) assertMatches("$where[$index]", expected[index], list[index])
            }
            expected is Map<*, *> -> {
                assertTrue("$where: an object, not $actual", actual is Map<*, *>)
                val map = actual as Map<*, *>
                assertEquals("$where: its keys", expected.keys, map.keys)
                for ((key, value) in expected) assertMatches("$where.$key", value, map[key])
            }
            else -> assertEquals(where, expected, actual)
        }
    }
}
