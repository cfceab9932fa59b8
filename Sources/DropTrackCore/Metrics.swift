import Foundation
import Synchronization

/// Counters, gauges and histograms with bounded label sets, rendered as Prometheus text.
/// Label values must come from closed sets (provider, outcome, reason codes), never tokens or ids.
public final class MetricsRegistry: Sendable {
    private struct Family {
        var help: String
        var type: String
        var buckets: [Double] = []
        var counters: [[String: String]: Double] = [:]
        var histograms: [[String: String]: (counts: [Int], sum: Double, count: Int)] = [:]
    }

    private let families = Mutex<[String: Family]>([:])
    private let gauges = Mutex<[String: (help: String, read: @Sendable () -> [([String: String], Double)])]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Declares a counter.
    public func declareCounter(_ name: String, help: String) {
        families.withLock { if $0[name] == nil { $0[name] = Family(help: help, type: "counter") } }
    }

    /// Declares a histogram with upper bounds (seconds, usually).
    public func declareHistogram(_ name: String, help: String, buckets: [Double]) {
        families.withLock {
            if $0[name] == nil { $0[name] = Family(help: help, type: "histogram", buckets: buckets.sorted()) }
        }
    }

    /// Declares a gauge read at scrape time.
    public func declareGauge(_ name: String, help: String, read: @escaping @Sendable () -> [([String: String], Double)])
    {
        gauges.withLock { $0[name] = (help, read) }
    }

    /// Adds to a counter.
    public func increment(_ name: String, _ labels: [String: String] = [:], by amount: Double = 1) {
        families.withLock { families in
            families[name, default: Family(help: name, type: "counter")].counters[labels, default: 0] += amount
        }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ value: Double, _ labels: [String: String] = [:]) {
        families.withLock { families in
            guard var family = families[name] else { return }
            var entry = family.histograms[labels] ?? (Array(repeating: 0, count: family.buckets.count), 0, 0)
            for (index, bound) in family.buckets.enumerated() where value <= bound { entry.counts[index] += 1 }
            entry.sum += value
            entry.count += 1
            family.histograms[labels] = entry
            families[name] = family
        }
    }

    /// The current value of a counter (tests).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        families.withLock { $0[name]?.counters[labels] ?? 0 }
    }

    /// Observations recorded in a histogram (tests).
    public func observations(_ name: String, _ labels: [String: String] = [:]) -> Int {
        families.withLock { $0[name]?.histograms[labels]?.count ?? 0 }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func render() -> String {
        var out = ""
        let snapshot = families.withLock { $0 }
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            if family.type == "counter" {
                for (labels, value) in family.counters.sorted(by: { Self.labelText($0.key) < Self.labelText($1.key) }) {
                    out += "\(name)\(Self.labelText(labels)) \(Self.format(value))\n"
                }
            } else {
                for (labels, entry) in family.histograms.sorted(by: { Self.labelText($0.key) < Self.labelText($1.key) })
                {
                    for (index, bound) in family.buckets.enumerated() {
                        var withBound = labels
                        withBound["le"] = Self.format(bound)
                        out += "\(name)_bucket\(Self.labelText(withBound)) \(entry.counts[index])\n"
                    }
                    var infinity = labels
                    infinity["le"] = "+Inf"
                    out += "\(name)_bucket\(Self.labelText(infinity)) \(entry.count)\n"
                    out += "\(name)_sum\(Self.labelText(labels)) \(Self.format(entry.sum))\n"
                    out += "\(name)_count\(Self.labelText(labels)) \(entry.count)\n"
                }
            }
        }
        let readers = gauges.withLock { $0 }
        for name in readers.keys.sorted() {
            let gauge = readers[name]!
            out += "# HELP \(name) \(gauge.help)\n# TYPE \(name) gauge\n"
            for (labels, value) in gauge.read() { out += "\(name)\(Self.labelText(labels)) \(Self.format(value))\n" }
        }
        return out
    }

    static func labelText(_ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return "" }
        let parts = labels.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\""
            )
            .replacingOccurrences(of: "\n", with: "\\n")
            return "\(key)=\"\(escaped)\""
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
