import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// Rows to records and back: the column lists the statements select, and the mappers, which read
/// every column through `RowReader` so a damaged row throws `StoreError.corruptRow` instead of
/// turning into a plausible record.
extension SQLTransaction {
    // MARK: Tokens

    static let tokenColumns = [
        "app", "fingerprint", "kind", "token", "user_id", "device_id", "attributes_type", "activity_id", "environment",
        "created_at", "last_seen_at", "invalidated_at", "invalid_reason", "device",
    ]
    static let tokenColumnList = tokenColumns.joined(separator: ", ")

    static func token(_ row: SQLRow) throws(StoreError) -> TokenRecord {
        let r = RowReader(row: row, table: "tokens", columns: tokenColumns, keyColumns: [0, 1])
        var record = TokenRecord(
            app: try r.text(0), kind: try r.value(2, as: TokenKind.self), token: DeviceToken(try r.text(3)),
            fingerprint: try r.fingerprint(1), userId: r.optionalText(4), deviceId: try r.text(5),
            attributesType: r.optionalText(6), activityId: r.optionalText(7),
            environment: try r.optionalValue(8, as: APNsEnvironment.self),
            createdAt: try r.date(9), lastSeenAt: try r.date(10), invalidatedAt: try r.optionalDate(11),
            invalidReason: r.optionalText(12).map(InvalidationReason.init(stored:)))
        // Kept as text, unparsed: a fan-out reads every token of an activity and needs none of these
        // facts, so bad JSON here shows only as `device == nil` to the doctor, which reads it.
        record.deviceText = r.optionalText(13)
        return record
    }

    // MARK: Activities

    static let activityColumns = [
        "app", "id", "user_id", "attributes_type", "attributes", "content_state", "state", "version", "timestamp",
        "event", "priority", "priority_downgraded", "alert", "stale_date", "dismissal_date", "relevance_score",
        "idempotency_key", "start_response", "priority10_times", "created_at", "updated_at", "start_at", "end_at",
        "dismiss_at", "schedule", "channel_id", "mapper_state", "channel_policy",
    ]
    static let activityColumnList = activityColumns.joined(separator: ", ")

    static func activity(_ row: SQLRow) throws(StoreError) -> ActivityRecord {
        let r = RowReader(row: row, table: "activities", columns: activityColumns, keyColumns: [0, 1])
        return ActivityRecord(
            app: try r.text(0), id: try r.text(1), userId: try r.text(2), attributesType: try r.text(3),
            attributes: try r.json(4), contentState: try r.json(5), state: try r.value(6, as: ActivityState.self),
            version: try r.int(7), timestamp: try r.int(8), event: try r.value(9, as: LiveActivityEvent.self),
            priority: Int(try r.int(10)), priorityDowngraded: try r.bool(11), alert: try r.optionalJSON(12),
            staleDate: try r.optionalInt(13), dismissalDate: try r.optionalInt(14),
            relevanceScore: try r.optionalDouble(15), idempotencyKey: r.optionalText(16),
            startResponse: try r.optionalJSON(17), priority10Times: try priority10Times(r, 18),
            createdAt: try r.date(19), updatedAt: try r.date(20), startAt: try r.optionalDate(21),
            endAt: try r.optionalDate(22), dismissAt: try r.optionalDate(23), schedule: try r.optionalJSON(24),
            channelId: r.optionalText(25), channelPolicy: try r.optionalInt(27).map(Int.init),
            mapperState: try r.optionalJSON(26))
    }

    /// The budget's times: a JSON array of whole Unix seconds.
    private static func priority10Times(_ r: RowReader, _ index: Int) throws(StoreError) -> [Int64] {
        guard let items = try r.json(index).arrayValue else { throw r.corrupt(index, "is not a JSON array") }
        var times: [Int64] = []
        times.reserveCapacity(items.count)
        for item in items {
            guard let number = item.numberValue, let time = Int64(exactly: number) else {
                throw r.corrupt(index, "holds \(item), not whole Unix seconds")
            }
            times.append(time)
        }
        return times
    }

    // MARK: Outbox

    static let outboxColumns = [
        "id", "app", "activity_id", "token_fingerprint", "requested_version", "available_at", "first_queued_at",
        "attempts", "claimed_by", "claimed_until", "last_error", "in_doubt",
    ]
    static let outboxColumnList = outboxColumns.joined(separator: ", ")

    static func outbox(_ row: SQLRow) throws(StoreError) -> OutboxEntry {
        let r = RowReader(row: row, table: "outbox", columns: outboxColumns, keyColumns: [0, 1, 2])
        return OutboxEntry(
            id: try r.int(0), app: try r.text(1), activityId: try r.text(2), destination: try destination(r, 3),
            requestedVersion: try r.int(4), availableAt: try r.date(5), firstQueuedAt: try r.date(6),
            attempts: Int(try r.int(7)), claimedBy: r.optionalText(8), claimedUntil: try r.optionalDate(9),
            lastError: r.optionalText(10), inDoubt: try r.bool(11))
    }

    /// The column keeps the form it had before `OutboxDestination`: a fingerprint, or `channel:<id>`.
    private static func destination(_ r: RowReader, _ index: Int) throws(StoreError) -> OutboxDestination {
        let stored = try r.text(index)
        do {
            return try OutboxDestination(reading: stored)
        } catch {
            // The text is not repeated: a token stored here by mistake is a secret.
            throw r.corrupt(index, "names no channel (`channel:<id>`) and no token fingerprint: it \(error)")
        }
    }

    // MARK: Timeline

    /// A fingerprint, `channel:<id>`, `range:<hex digit>` or `-`; anything else is a corrupt row.
    private static func timelineDestination(_ r: RowReader, _ index: Int) throws(StoreError) -> TimelineDestination {
        guard let destination = TimelineDestination(stored: try r.text(index)) else {
            throw r.corrupt(
                index, "is no token fingerprint (16 lowercase hex digits), `channel:<id>`, `range:<hex digit>` or `-`")
        }
        return destination
    }

    /// `id` last: it is only the row's name in errors.
    static let timelineColumns = [
        "app", "activity_id", "at", "destination", "provider", "event", "version", "status", "reason", "remedy",
        "latency_ms", "priority", "attempt", "note", "id",
    ]
    static let timelineColumnList = timelineColumns.joined(separator: ", ")

    static func timelineEntry(_ row: SQLRow) throws(StoreError) -> TimelineEntry {
        let r = RowReader(row: row, table: "timeline", columns: timelineColumns, keyColumns: [14, 0, 1])
        return TimelineEntry(
            app: try r.text(0), activityId: try r.text(1), at: try r.date(2),
            destination: try timelineDestination(r, 3),
            provider: try r.value(4, as: TimelineProvider.self), event: try r.text(5), version: try r.int(6),
            status: Int(try r.int(7)),
            reason: try r.text(8), remedy: try r.value(9, as: TimelineRemedy.self), latencyMs: try r.double(10),
            priority: Int(try r.int(11)),
            attempt: Int(try r.int(12)), note: r.optionalText(13))
    }
}
