import Foundation
import Synchronization

/// Counters, gauges and histograms with bounded label sets, rendered as Prometheus text.
/// Label values must come from closed sets (provider, outcome, reason codes), never tokens or ids.
/// An `app` label is kept for readers in this process (the console plots an app's own sends) and
/// summed away in `render()`: `/metrics` answers without a key, and an app's name and volume are its own.
///
/// A backstop keeps a mistake there from growing memory and `/metrics` without bound: each counter or histogram
/// holds at most `maximumSeriesPerMetric` label sets, and label values at most `maximumLabelValueBytes` long. Past
/// either, observations fold into one overflow series whose every label reads `overflow`, and
/// `droptrack_metric_series_overflow_total{metric}` counts them.
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

    /// Label sets a counter or histogram keeps before new ones fold into its overflow series.
    public let maximumSeriesPerMetric: Int
    /// Longer label values fold into the overflow series (no closed set has values this long).
    public let maximumLabelValueBytes: Int

    /// The counter of observations folded into overflow series, by metric name.
    public static let overflowCounter = "droptrack_metric_series_overflow_total"

    /// Creates an empty registry.
    public init(maximumSeriesPerMetric: Int = 1000, maximumLabelValueBytes: Int = 200) {
        self.maximumSeriesPerMetric = max(1, maximumSeriesPerMetric)
        self.maximumLabelValueBytes = max(1, maximumLabelValueBytes)
        declareCounter(
            Self.overflowCounter,
            help: "Observations folded into a metric's overflow series: a label set past the cap, or a value too long.")
    }

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
            var family = families.removeValue(forKey: name) ?? Family(help: name, type: "counter")
            let series = admitted(labels, known: family.counters[labels] != nil, count: family.counters.count)
            family.counters[series ?? Self.overflow(labels), default: 0] += amount
            families[name] = family
            if series == nil { Self.countOverflow(name, 1, in: &families) }
        }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ value: Double, _ labels: [String: String] = [:]) {
        observe(name, CollectionOfOne(value), labels)
    }

    /// Records observations of one series at once: one lock and one lookup of the series for all of
    /// them, where a fan-out's outcomes would otherwise take both per send.
    public func observe(_ name: String, _ values: some Collection<Double>, _ labels: [String: String] = [:]) {
        guard !values.isEmpty else { return }
        families.withLock { families in
            // Taken out while changed, so the dictionary's copy is the only one and is not copied on write.
            guard var family = families.removeValue(forKey: name) else { return }
            let admitted = admitted(labels, known: family.histograms[labels] != nil, count: family.histograms.count)
            let series = admitted ?? Self.overflow(labels)
            var entry = family.histograms[series] ?? (Array(repeating: 0, count: family.buckets.count), 0, 0)
            for value in values {
                for (index, bound) in family.buckets.enumerated() where value <= bound { entry.counts[index] += 1 }
                entry.sum += value
                entry.count += 1
            }
            family.histograms[series] = entry
            families[name] = family
            if admitted == nil { Self.countOverflow(name, values.count, in: &families) }
        }
    }

    /// `labels` if it may have a series of its own; nil if it must fold into the overflow series.
    private func admitted(_ labels: [String: String], known: Bool, count: Int) -> [String: String]? {
        if known { return labels }
        guard count < maximumSeriesPerMetric else { return nil }
        // The overflow series itself is admitted past the cap: it exists so there is somewhere to fold.
        guard labels.values.allSatisfy({ $0.utf8.count <= maximumLabelValueBytes }) else { return nil }
        return labels
    }

    /// The one series a metric's surplus label sets share: the same label names, so queries still match.
    static func overflow(_ labels: [String: String]) -> [String: String] {
        labels.mapValues { _ in "overflow" }
    }

    private static func countOverflow(_ name: String, _ observations: Int, in families: inout [String: Family]) {
        guard name != overflowCounter else { return }
        families[overflowCounter, default: Family(help: overflowCounter, type: "counter")].counters[
            ["metric": name], default: 0] += Double(observations)
    }

    /// Series (label sets) a counter or histogram holds now.
    public func seriesCount(_ name: String) -> Int {
        families.withLock { family in family[name].map { $0.counters.count + $0.histograms.count } ?? 0 }
    }

    /// The current value of a counter (tests).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        families.withLock { $0[name]?.counters[labels] ?? 0 }
    }

    /// A counter's series summed by one label's value, per value of another (the console's plots: each
    /// app's sends by outcome).
    public func counterTotals(_ name: String, by label: String, per group: String) -> [String: [String: Double]] {
        families.withLock { families in
            var totals: [String: [String: Double]] = [:]
            for (labels, value) in families[name]?.counters ?? [:] {
                totals[labels[group] ?? "", default: [:]][labels[label] ?? "", default: 0] += value
            }
            return totals
        }
    }

    /// A histogram's sum and count per value of one label (the console's plots: each app's mean lag between
    /// two readings).
    public func histogramTotals(_ name: String, per group: String) -> [String: (sum: Double, count: Int)] {
        families.withLock { families in
            var totals: [String: (sum: Double, count: Int)] = [:]
            for (labels, entry) in families[name]?.histograms ?? [:] {
                let total = totals[labels[group] ?? ""] ?? (0, 0)
                totals[labels[group] ?? ""] = (total.sum + entry.sum, total.count + entry.count)
            }
            return totals
        }
    }

    /// A histogram's sum and count over all its series.
    public func histogramTotals(_ name: String) -> (sum: Double, count: Int) {
        histogramTotals(name, per: "").values.reduce((0, 0)) { ($0.0 + $1.sum, $0.1 + $1.count) }
    }

    /// Observations recorded in a histogram (tests).
    public func observations(_ name: String, _ labels: [String: String] = [:]) -> Int {
        families.withLock { $0[name]?.histograms[labels]?.count ?? 0 }
    }

    /// The Prometheus text exposition (version 0.0.4).
    /// Labels summed away when rendered.
    public static let unrenderedLabels: Set<String> = ["app"]

    public func render() -> String {
        var out = ""
        let snapshot = families.withLock { $0 }.mapValues(Self.foldingUnrenderedLabels)
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

    /// The family with the series that differ only in `unrenderedLabels` added together.
    private static func foldingUnrenderedLabels(_ family: Family) -> Family {
        func rendered(_ labels: [String: String]) -> [String: String] {
            labels.filter { !unrenderedLabels.contains($0.key) }
        }
        var folded = family
        folded.counters = [:]
        for (labels, value) in family.counters { folded.counters[rendered(labels), default: 0] += value }
        folded.histograms = [:]
        for (labels, entry) in family.histograms {
            var total = folded.histograms[rendered(labels)] ?? (Array(repeating: 0, count: entry.counts.count), 0, 0)
            for index in total.counts.indices { total.counts[index] += entry.counts[index] }
            total.sum += entry.sum
            total.count += entry.count
            folded.histograms[rendered(labels)] = total
        }
        return folded
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
