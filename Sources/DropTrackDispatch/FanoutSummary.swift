import DropTrackContract
import Foundation

/// What one pass of a fan-out range sent: counts by status and reason, and a latency histogram for
/// p50/p99. A pass may span many batches and workers, so the summary travels in the range's row
/// (`FanoutJob.summary`, JSON text) and is written to the timeline once, when the pass ends: one
/// entry per range pass instead of one per token (failures still get their own entries).
struct FanoutSummary: Equatable, Sendable {
    /// Upper bounds of the latency buckets, in milliseconds; one more bucket holds what is above.
    static let latencyBounds: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000]

    /// Sends by `"<status> <reason>"` (`200 ok`, `410 Unregistered`, `0 ConnectionFailed`).
    var counts: [String: Int] = [:]
    /// Sends by latency bucket (`latencyBounds`, then one above the last).
    var buckets: [Int] = Array(repeating: 0, count: latencyBounds.count + 1)
    /// The lowest and highest versions sent in the pass (the newest is read when each batch goes out).
    var lowestVersion: Int64 = 0
    var highestVersion: Int64 = 0
    /// Times a worker took the range over from a lease that ran out (a crash), resending after the cursor.
    var resumes = 0

    init() {}

    /// Reads the stored form; an unreadable one starts afresh (a summary only informs the timeline).
    init(stored: String?) {
        guard let stored, let value = try? JSONValue.parse(stored), let object = value.objectValue else { return }
        for (key, count) in object["counts"]?.objectValue ?? [:] {
            if let count = count.numberValue { counts[key] = Int(saturating: count) }
        }
        let read = (object["buckets"]?.arrayValue ?? []).compactMap(\.numberValue).map { Int(saturating: $0) }
        if read.count == buckets.count { buckets = read }
        lowestVersion = Int64(saturating: object["lowestVersion"]?.numberValue ?? 0)
        highestVersion = Int64(saturating: object["highestVersion"]?.numberValue ?? 0)
        resumes = Int(saturating: object["resumes"]?.numberValue ?? 0)
    }

    /// The stored form.
    var stored: String {
        let value = JSONValue.object([
            "counts": .object(counts.mapValues { .number(Double($0)) }),
            "buckets": .array(buckets.map { .number(Double($0)) }),
            "lowestVersion": .number(Double(lowestVersion)), "highestVersion": .number(Double(highestVersion)),
            "resumes": .number(Double(resumes)),
        ])
        return String(decoding: value.serialized(), as: UTF8.self)
    }

    var sends: Int { counts.values.reduce(0, +) }

    /// The status most sends of the pass got (200 when most went through), 0 with no sends.
    var commonStatus: Int {
        var byStatus: [Int: Int] = [:]
        for (key, count) in counts { byStatus[Int(key.prefix { $0 != " " }) ?? 0, default: 0] += count }
        return byStatus.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? 0
    }

    mutating func record(status: Int, reason: String, latencyMs: Double, version: Int64) {
        counts["\(status) \(reason)", default: 0] += 1
        let bucket = Self.latencyBounds.firstIndex { latencyMs <= $0 } ?? Self.latencyBounds.count
        buckets[bucket] += 1
        lowestVersion = lowestVersion == 0 ? version : min(lowestVersion, version)
        highestVersion = max(highestVersion, version)
    }

    /// The upper bound of the bucket holding the `quantile` (0…1) of the latencies, in milliseconds;
    /// nil with no sends. Above the last bound, the last bound (read "more than").
    func percentile(_ quantile: Double) -> Double? {
        let total = buckets.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int(saturating: (quantile * Double(total)).rounded(.up)))
        var seen = 0
        for (index, count) in buckets.enumerated() {
            seen += count
            if seen >= rank { return Self.latencyBounds[min(index, Self.latencyBounds.count - 1)] }
        }
        return Self.latencyBounds.last
    }

    /// The timeline note: `range 3 sent 6250 (200 ok 6248, 410 Unregistered 2); latency p50 ≤ 10 ms, p99 ≤ 50 ms`.
    func note(range: String, newerVersion: Int64?) -> String {
        let counted = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }
        var note = "\(range) sent \(sends) (\(counted.joined(separator: ", ")))"
        if let p50 = percentile(0.5), let p99 = percentile(0.99) {
            note += "; latency p50 ≤ \(Self.format(p50)) ms, p99 ≤ \(Self.format(p99)) ms"
        }
        if lowestVersion != highestVersion { note += "; versions \(lowestVersion)–\(highestVersion)" }
        if resumes > 0 { note += "; resumed \(resumes)× after a lease ran out (sends after the cursor went again)" }
        if let newerVersion { note += "; version \(newerVersion) was requested meanwhile: a new pass starts for it" }
        return note
    }

    private static func format(_ value: Double) -> String { String(Int(saturating: value)) }
}
