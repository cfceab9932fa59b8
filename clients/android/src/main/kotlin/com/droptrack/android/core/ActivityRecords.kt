package com.droptrack.android.core

/** Where a card stands on this phone, as the library last saw it. */
enum class CardPhase(val wire: String) {
    /** Shown and ongoing. */
    ACTIVE("active"),
    /** Shown as ended (no longer ongoing), until the person or its timeout removes it. */
    ENDED("ended"),
    /** The person swiped it away (or the app removed it): never posted again. */
    DISMISSED("dismissed"),
    /** Gone without the library hearing why (notifications blocked, the app force-stopped). */
    LOST("lost");

    companion object {
        fun of(wire: String?): CardPhase? = values().firstOrNull { it.wire == wire }
    }
}

/**
 * One activity's card as this phone last showed it: the data map it was posted from (so a later
 * process can answer what it shows, and end it with its last state), the `sequence` that map carried
 * (so an older message that arrives after a restart is refused), and its [phase].
 */
data class CardRecord(
    val activityId: String,
    val sequence: Long,
    val data: Map<String, String>,
    val phase: CardPhase,
    /** When the phase last changed, Unix ms: old records are pruned by it. */
    val changedAtMillis: Long
) {
    fun toJson(): String = MiniJson.write(
        linkedMapOf("sequence" to sequence, "phase" to phase.wire, "changedAt" to changedAtMillis, "data" to data)
    )

    companion object {
        /** A stored record, or null when it is not one (a record this version cannot read is dropped, not fatal). */
        fun parse(activityId: String, json: String): CardRecord? {
            val map = try {
                MiniJson.parse(json) as? Map<*, *>
            } catch (error: IllegalArgumentException) {
                null
            } ?: return null
            val data = (map["data"] as? Map<*, *>)?.entries?.associate { (key, value) -> key.toString() to value.toString() } ?: return null
            val phase = CardPhase.of(map["phase"] as? String) ?: return null
            return CardRecord(activityId, (map["sequence"] as? Long) ?: 0L, data, phase, (map["changedAt"] as? Long) ?: 0L)
        }
    }
}

/**
 * The cards this install has shown, one [CardRecord] per activity in the [KeyValueStore]
 * (`card.<activityId>`). Records of cards that are gone are kept for [retainMillis] after they went
 * (a dismissed card must stay refused while the server may still send for it), and at most
 * [maxRecords] are kept, the oldest gone ones pruned first.
 */
class ActivityRecords(
    private val store: KeyValueStore,
    private val retainMillis: Long = 8L * 24 * 3600 * 1000,
    private val maxRecords: Int = 200
) {
    fun get(activityId: String): CardRecord? = store.get(PREFIX + activityId)?.let { CardRecord.parse(activityId, it) }

    fun all(): List<CardRecord> = store.keys(PREFIX).mapNotNull { key -> get(key.removePrefix(PREFIX)) }

    /** Saves [record] and prunes, in one durable write. */
    fun put(record: CardRecord, nowMillis: Long) {
        val changes = HashMap<String, String?>()
        changes[PREFIX + record.activityId] = record.toJson()
        val others = all().filter { it.activityId != record.activityId }
        val gone = others.filter { it.phase == CardPhase.DISMISSED || it.phase == CardPhase.LOST }
        for (old in gone) if (nowMillis - old.changedAtMillis > retainMillis) changes[PREFIX + old.activityId] = null
        val kept = others.filter { !changes.containsKey(PREFIX + it.activityId) }
        val excess = kept.size + 1 - maxRecords
        if (excess > 0) {
            // Cards still shown are dropped last: a gone card's record matters less than a shown one's.
            val order = kept.sortedWith(compareBy<CardRecord>({ it.phase == CardPhase.ACTIVE || it.phase == CardPhase.ENDED }, { it.changedAtMillis }))
            for (old in order.take(excess)) changes[PREFIX + old.activityId] = null
        }
        store.write(changes)
    }

    companion object {
        const val PREFIX = "card."
    }
}
