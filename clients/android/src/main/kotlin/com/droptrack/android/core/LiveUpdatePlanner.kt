package com.droptrack.android.core

/**
 * Reads the DropTrack Live Update FCM data map (schema version 1, every value a string; see
 * `vectors/README.md`) and decides the notification, agreeing with the Swift phone model
 * (`AndroidLiveUpdatePhone.build` and `evaluate`) through `vectors/android-plans/`.
 *
 * Lenient where a missing value has an obvious default (no status: empty title; no courier:
 * "Your courier"; no ETA: no `when`), strict where showing something would be wrong: no
 * `activityId`, a `progress` that is present but not a number, a `schemaVersion` other than 1, or
 * a `sequence` older than the one shown (FCM does not keep order).
 */
object LiveUpdatePlanner {
    const val SCHEMA_VERSION = "1"
    /** The default brand colour ([BrandColor]); an app may set its own. */
    const val BRAND_COLOR = BrandColor.DEFAULT
    /** The seven delivery steps, placed … delivered, one segment each, when the map counts no steps of its own. */
    const val STEP_COUNT = 7
    /** How long an ended card stays, unless the app says otherwise: iOS's default for an ended Live Activity. */
    const val ENDED_CARD_TIMEOUT_MILLIS = 4L * 3600 * 1000
    /** The most steps a map may count (`stepCount`), as `DeliveryWidgetLogic.maximumStepCount`. */
    const val MAXIMUM_STEP_COUNT = 100
    /** ProgressStyle draws at most this many segments apart; more are posted as one long segment. */
    const val MAXIMUM_SEGMENTS = 10
    /** Points at the end of "picked up" (step 4) and "almost there" (step 6), as `DeliveryStep`'s raw values. */
    val POINT_POSITIONS = listOf(4, 6)

    object Key {
        const val ACTIVITY_ID = "activityId"
        const val EVENT = "event"
        const val ORDER_ID = "orderId"
        const val STATUS = "status"
        const val PROGRESS = "progress"
        const val ETA_EPOCH_MILLIS = "etaEpochMillis"
        const val STOPS_REMAINING = "stopsRemaining"
        const val COURIER_NAME = "courierName"
        const val RIDER_REASSIGNED = "riderReassigned"
        const val SCHEMA_VERSION = "schemaVersion"
        const val SEQUENCE = "sequence"
        /** N of M: steps done and steps in all, present only when the content-state counts steps. */
        const val STEP = "step"
        const val STEP_COUNT = "stepCount"
    }

    /**
     * Whether an FCM data map is DropTrack's (the server always sends `schemaVersion`), so that a
     * service receiving every FCM message of the app can pass the others on.
     */
    fun isDropTrackMessage(data: Map<String, String>): Boolean =
        data.containsKey(Key.SCHEMA_VERSION) || (data.containsKey(Key.ACTIVITY_ID) && data.containsKey(Key.SEQUENCE))

    // A plain decimal, as the server writes numbers. Kotlin's toDoubleOrNull would also take
    // "NaN", "Infinity", "0x1p3" and "1.5f", which Swift's Double(_:) and the contract do not.
    private val decimal = Regex("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$")

    /**
     * The plan for one message, or why it is refused. [lastShownSequence] is the `sequence` of the
     * card shown for this activity, if any; [nowMillis] decides whether the ETA is still ahead.
     */
    fun plan(
        data: Map<String, String>,
        nowMillis: Long,
        device: DeviceFacts,
        lastShownSequence: Long?,
        brandColor: String = BRAND_COLOR
    ): PlanOutcome {
        val activityId = data[Key.ACTIVITY_ID]
        if (activityId == null || activityId.length == 0) {
            return PlanOutcome.Refused(Key.ACTIVITY_ID, MapRefusal.MISSING, "'activityId' is missing, so there is no card to update")
        }
        val version = data[Key.SCHEMA_VERSION]
        if (version != null && version != SCHEMA_VERSION) {
            return PlanOutcome.Refused(
                Key.SCHEMA_VERSION, MapRefusal.UNKNOWN_VERSION,
                "'schemaVersion' is '$version', not $SCHEMA_VERSION: the server's map is newer than this app"
            )
        }
        val progressText = data[Key.PROGRESS]
        val progress = when {
            progressText == null -> 0.0
            decimal.matches(progressText) -> progressText.toDouble()
            else -> return PlanOutcome.Refused(
                Key.PROGRESS, MapRefusal.NOT_A_NUMBER, "'progress' must be a number written as a string, not '$progressText'"
            )
        }
        if (!progress.isFinite()) {
            return PlanOutcome.Refused(Key.PROGRESS, MapRefusal.NOT_A_NUMBER, "'progress' is out of range: '$progressText'")
        }
        val sequence = data[Key.SEQUENCE]?.toLongOrNull() ?: 0L
        if (lastShownSequence != null && sequence < lastShownSequence) {
            return PlanOutcome.Refused(
                Key.SEQUENCE, MapRefusal.STALE, "sequence $sequence is older than $lastShownSequence, which is shown"
            )
        }
        val event = data[Key.EVENT] ?: "update"
        val title = data[Key.STATUS] ?: ""
        val etaMillis = data[Key.ETA_EPOCH_MILLIS]?.toLongOrNull() ?: 0L
        val ongoing = event != "end"
        val bar = bar(
            progress, data[Key.STOPS_REMAINING]?.toIntOrNull() ?: 0,
            data[Key.STEP]?.toIntOrNull(), data[Key.STEP_COUNT]?.toIntOrNull()
        )
        val plan = NotificationPlan(
            id = stableId(activityId),
            tag = activityId,
            title = title,
            text = courierLabel(data[Key.COURIER_NAME] ?: "", data[Key.RIDER_REASSIGNED] == "true") + " · " + bar.remainingText,
            subText = "Order #" + (data[Key.ORDER_ID] ?: ""),
            ongoing = ongoing,
            segments = bar.segmentLengths.map { PlanSegment(it, brandColor) },
            points = bar.points.map { PlanPoint(it, null) },
            progress = bar.lit,
            chipText = bar.progressText,
            whenMillis = if (etaMillis > nowMillis) etaMillis else null,
            requestPromotion = true,
            promotionRefusals = promotionRefusals(ongoing, title, device),
            sequence = sequence,
            event = event,
            timeoutAfterMillis = if (ongoing) null else ENDED_CARD_TIMEOUT_MILLIS
        )
        return PlanOutcome.Planned(plan)
    }

    /** The reasons Android will not promote this card, in the order the Swift model lists them. */
    fun promotionRefusals(ongoing: Boolean, title: String, device: DeviceFacts): List<String> {
        val reasons = ArrayList<String>()
        if (!ongoing) reasons.add(PromotionRefusal.NOT_ONGOING)
        if (isBlank(title)) reasons.add(PromotionRefusal.NO_TITLE)
        if (device.canPostPromoted == false) reasons.add(PromotionRefusal.PROMOTED_PERMISSION_MISSING)
        if (device.userAllowsLiveUpdates == false) reasons.add(PromotionRefusal.LIVE_UPDATES_OFF)
        if (device.notificationsEnabled == false) reasons.add(PromotionRefusal.NOTIFICATIONS_DISABLED)
        return reasons
    }

    /** FNV-1a (32-bit) of the UTF-8 id, top bit cleared: the same on every run and in the Swift model. */
    fun stableId(activityId: String): Int {
        var hash = 0x811C9DC5.toInt()
        for (byte in activityId.toByteArray(Charsets.UTF_8)) {
            hash = hash xor (byte.toInt() and 0xFF)
            hash *= 16777619
        }
        return hash and 0x7FFFFFFF
    }

    /** Segments lit for a progress 0…1: a step counts once it has started (as `DeliveryWidgetLogic.litSegments`). */
    fun litSegments(progress: Double, count: Int = STEP_COUNT): Int {
        if (!progress.isFinite() || progress <= 0) return 0
        val lit = Math.ceil(Math.min(progress, 1.0) * count - 1e-9).toInt()
        return Math.min(Math.max(lit, 0), count)
    }

    /**
     * The bar and its lines, as `DeliveryWidgetLogic.Bar` draws them (`vectors/progress/` holds both
     * to it): N of M when the map has a `stepCount` of at least 1 (at most [MAXIMUM_STEP_COUNT], `step`
     * clamped to it, or lit from `progress` without one), else the delivery's seven steps.
     */
    fun bar(progress: Double, stopsRemaining: Int, step: Int?, stepCount: Int?): ProgressBar {
        if (stepCount != null && stepCount >= 1) {
            val count = Math.min(stepCount, MAXIMUM_STEP_COUNT)
            val done = if (step != null) Math.min(Math.max(step, 0), count) else litSegments(progress, count)
            return ProgressBar(
                segmentLengths = if (count <= MAXIMUM_SEGMENTS) List(count) { 1 } else listOf(count),
                points = emptyList(),
                lit = done,
                progressText = "$done of $count",
                remainingText = if (done >= count) "All done" else "${count - done} to go"
            )
        }
        return ProgressBar(
            segmentLengths = List(STEP_COUNT) { 1 },
            points = POINT_POSITIONS,
            lit = litSegments(progress),
            progressText = percentText(progress),
            remainingText = stopsLabel(stopsRemaining, progress)
        )
    }

    /** "You're next", "1 stop away", "N stops away"; "Enjoy your order" once delivered (progress 1). */
    fun stopsLabel(stopsRemaining: Int, progress: Double): String = when {
        progress.isFinite() && progress >= 1 -> "Enjoy your order"
        stopsRemaining <= 0 -> "You're next"
        stopsRemaining == 1 -> "1 stop away"
        else -> "$stopsRemaining stops away"
    }

    /** "0%" … "100%", rounded half away from zero as Swift's `rounded()`. */
    fun percentText(progress: Double): String {
        if (!progress.isFinite()) return "0%"
        return "${Math.round(Math.min(Math.max(progress, 0.0), 1.0) * 100)}%"
    }

    fun courierLabel(courierName: String, riderReassigned: Boolean): String {
        val name = if (isBlank(courierName)) "Your courier" else courierName
        return if (riderReassigned) "New courier: $name" else "$name is delivering your order"
    }

    // Swift's CharacterSet.whitespaces: spaces and tabs, not newlines.
    private fun isBlank(text: String) = text.all { it == ' ' || it == '\t' || Character.getType(it) == Character.SPACE_SEPARATOR.toInt() }
}

/** The progress bar a map asks for, and the lines that go with it ([LiveUpdatePlanner.bar]). */
data class ProgressBar(
    /** `ProgressStyle` segment lengths: one per step up to ten, else one as long as the steps. */
    val segmentLengths: List<Int>,
    /** Points at step boundaries (the delivery's only). */
    val points: List<Int>,
    /** Steps lit. */
    val lit: Int,
    /** "3 of 12", or "71%" for the delivery's steps. */
    val progressText: String,
    /** What remains: "9 to go", "All done"; "2 stops away", "You're next", "Enjoy your order". */
    val remainingText: String
)
