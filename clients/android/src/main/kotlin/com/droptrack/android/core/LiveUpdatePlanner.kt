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
    const val BRAND_COLOR = "#FF5A1F"
    /** The seven delivery steps, placed … delivered, one segment each. */
    const val STEP_COUNT = 7
    /** How long an ended card stays, unless the app says otherwise: iOS's default for an ended Live Activity. */
    const val ENDED_CARD_TIMEOUT_MILLIS = 4L * 3600 * 1000
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
    fun plan(data: Map<String, String>, nowMillis: Long, device: DeviceFacts, lastShownSequence: Long?): PlanOutcome {
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
        val plan = NotificationPlan(
            id = stableId(activityId),
            tag = activityId,
            title = title,
            text = courierLabel(data[Key.COURIER_NAME] ?: "", data[Key.RIDER_REASSIGNED] == "true"),
            subText = "Order #" + (data[Key.ORDER_ID] ?: ""),
            ongoing = ongoing,
            segments = List(STEP_COUNT) { PlanSegment(1, BRAND_COLOR) },
            points = POINT_POSITIONS.map { PlanPoint(it, null) },
            progress = litSegments(progress),
            chipText = percentText(progress),
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
    fun litSegments(progress: Double): Int {
        if (!progress.isFinite() || progress <= 0) return 0
        val lit = Math.ceil(Math.min(progress, 1.0) * STEP_COUNT - 1e-9).toInt()
        return Math.min(Math.max(lit, 0), STEP_COUNT)
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
