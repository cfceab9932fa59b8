import Foundation

/// A small line chart drawn as inline SVG: no script, no library, scaled to its own maximum.
struct SVGPlot {
    struct Series {
        var name: String
        /// A CSS class of console.css giving the line its colour.
        var cssClass: String
        /// Points as (seconds from the window's start, value); nil values leave a gap.
        var points: [(x: Double, y: Double?)]
    }

    var title: String
    var unit: String
    var window: Double
    var series: [Series]

    static let width = 600.0
    static let height = 160.0
    static let margin = (left: 44.0, right: 8.0, top: 8.0, bottom: 20.0)

    func render() -> String {
        let values = series.flatMap { $0.points.compactMap(\.y) }
        let top = Self.niceCeiling(values.max() ?? 0)
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        func x(_ value: Double) -> String { Self.number(Self.margin.left + plotWidth * min(1, max(0, value / window))) }
        func y(_ value: Double) -> String { Self.number(Self.margin.top + plotHeight * (1 - min(1, value / top))) }
        let titleText = ConsoleHTTP.escape(title)
        var svg = """
            <figure class="plot"><figcaption>\(titleText) <span class="unit">(\(ConsoleHTTP.escape(unit)))</span>\
            </figcaption><svg viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" role="img" \
            aria-label="\(titleText)">
            <line class="axis" x1="\(x(0))" y1="\(y(0))" x2="\(x(window))" y2="\(y(0))"/>\
            <line class="axis" x1="\(x(0))" y1="\(y(top))" x2="\(x(0))" y2="\(y(0))"/>\
            <line class="grid" x1="\(x(0))" y1="\(y(top))" x2="\(x(window))" y2="\(y(top))"/>\
            <text class="tick" x="\(Self.number(Self.margin.left - 4))" y="\(y(top))" text-anchor="end" \
            dominant-baseline="hanging">\(Self.label(top))</text>\
            <text class="tick" x="\(Self.number(Self.margin.left - 4))" y="\(y(0))" text-anchor="end">0</text>\
            <text class="tick" x="\(x(0))" y="\(Int(Self.height) - 4)">−\(Int(window / 60)) min</text>\
            <text class="tick" x="\(x(window))" y="\(Int(Self.height) - 4)" text-anchor="end">now</text>
            """
        for line in series {
            // A gap (no reading, or no finished fan-out) starts a new run of the path.
            var path = ""
            var drawing = false
            for point in line.points {
                guard let value = point.y else {
                    drawing = false
                    continue
                }
                path += "\(drawing ? "L" : "M")\(x(point.x)) \(y(value)) "
                drawing = true
            }
            svg += "<path class=\"line \(line.cssClass)\" d=\"\(path.isEmpty ? "M0 0" : path)\"/>"
            // The newest reading as a dot, so a plot with one reading (or a lone point between gaps) shows it.
            if let last = line.points.last, let value = last.y {
                svg += "<circle class=\"dot \(line.cssClass)\" cx=\"\(x(last.x))\" cy=\"\(y(value))\" r=\"3\"/>"
            }
        }
        svg += "</svg><ul class=\"legend\">"
        for line in series {
            let last = line.points.last(where: { $0.y != nil })?.y.map(Self.label) ?? "–"
            svg += "<li class=\"\(line.cssClass)\">\(ConsoleHTTP.escape(line.name)): \(last)</li>"
        }
        return svg + "</ul></figure>"
    }

    /// 1, 2 or 5 times a power of ten at or above `value` (at least 1), so the axis reads plainly.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 1 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where value <= step * power { return step * power }
        return 10 * power
    }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    static func label(_ value: Double) -> String {
        value >= 100 || value == value.rounded() ? String(Int(value.rounded())) : String(format: "%.2f", value)
    }
}
