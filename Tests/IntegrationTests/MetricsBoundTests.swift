import DropTrackCore
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackAPI

@Suite("Metrics stay bounded whatever clients send")
struct MetricsBoundTests {
    @Test("20,000 requests with made-up methods and paths leave /metrics small and the series few")
    func madeUpMethods() throws {
        let server = try ServerHarness(engine: .memory)
        defer { server.stop() }
        let padding = String(repeating: "X", count: 1000)
        var connection = try RawConnection(port: server.port)
        var answered = 0
        let deadline = ContinuousClock.now + .seconds(120)
        // Batches of pipelined requests on a keep-alive connection; a closed connection is replaced.
        var number = 0
        while number < 20_000 && ContinuousClock.now < deadline {
            let batch = min(50, 20_000 - number)
            var text = ""
            for index in number..<number + batch {
                text += "M\(index)\(padding) /nope/\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            do {
                try connection.send(text)
                for _ in 0..<batch {
                    let response = try connection.readResponse(timeout: .seconds(10))
                    #expect(response.status >= 400 && response.status < 500)
                    answered += 1
                }
            } catch {
                connection = try RawConnection(port: server.port)
            }
            number += batch
        }
        #expect(answered > 19_000, "most made-up requests were answered (\(answered))")
        let scrape = try server.call("GET", "/metrics", key: nil)
        #expect(scrape.status == 200)
        #expect(scrape.text.utf8.count < 64 * 1024, "/metrics is \(scrape.text.utf8.count) bytes")
        #expect(!scrape.text.contains(padding))
        #expect(scrape.text.contains(#"method="other""#) && scrape.text.contains(#"route="unmatched""#))
        #expect(server.metrics.seriesCount("droptrack_http_requests_total") < 20)
        #expect(server.metrics.seriesCount("droptrack_http_request_duration_seconds") < 20)
    }

    @Test("past the cap, new label sets fold into one overflow series, counted, and rendering stays small")
    func seriesCap() {
        let metrics = MetricsRegistry(maximumSeriesPerMetric: 100)
        metrics.declareCounter("c", help: "a counter")
        metrics.declareHistogram("h", help: "a histogram", buckets: [1])
        for number in 0..<20_000 {
            metrics.increment("c", ["who": "client-\(number)"])
            metrics.observe("h", 0.5, ["who": "client-\(number)"])
        }
        #expect(metrics.seriesCount("c") == 101 && metrics.seriesCount("h") == 101)
        #expect(metrics.value("c", ["who": "overflow"]) == 19_900)
        #expect(metrics.observations("h", ["who": "overflow"]) == 19_900)
        #expect(metrics.value("c", ["who": "client-7"]) == 1, "series below the cap keep counting")
        #expect(metrics.value(MetricsRegistry.overflowCounter, ["metric": "c"]) == 19_900)
        #expect(metrics.render().utf8.count < 64 * 1024)

        // A value longer than any closed set's folds too, even below the cap.
        let fresh = MetricsRegistry()
        fresh.increment("c", ["method": String(repeating: "M", count: 20_000)])
        #expect(fresh.value("c", ["method": "overflow"]) == 1)
        #expect(fresh.render().utf8.count < 1024)
    }

    @Test("observations recorded together count as the same observations one at a time, overflow included")
    func batchedObservations() {
        let values = [0.002, 0.5, 0.5, 3, 0.02]
        let (one, together) = (MetricsRegistry(maximumSeriesPerMetric: 1), MetricsRegistry(maximumSeriesPerMetric: 1))
        for metrics in [one, together] { metrics.declareHistogram("h", help: "a histogram", buckets: [0.01, 1]) }
        for labels in [["who": "a"], ["who": "b"]] {
            for value in values { one.observe("h", value, labels) }
            together.observe("h", values, labels)
        }
        together.observe("h", [Double](), ["who": "c"])
        #expect(together.render() == one.render())
        #expect(together.observations("h", ["who": "overflow"]) == 5)
        #expect(together.value(MetricsRegistry.overflowCounter, ["metric": "h"]) == 5)
    }

    @Test("an app label is kept for the console's per-app readings and summed away in /metrics")
    func appLabelNotRendered() {
        let metrics = MetricsRegistry()
        metrics.declareHistogram("lag_seconds", help: "lag", buckets: [1, 10])
        metrics.increment("sends_total", ["app": "shop", "outcome": "success"], by: 3)
        metrics.increment("sends_total", ["app": "rides", "outcome": "success"], by: 4)
        metrics.increment("sends_total", ["app": "rides", "outcome": "failure"])
        metrics.observe("lag_seconds", 0.5, ["app": "shop"])
        metrics.observe("lag_seconds", 5, ["app": "rides"])
        let text = metrics.render()
        #expect(!text.contains("shop") && !text.contains("rides") && !text.contains("app="))
        #expect(
            text.contains("sends_total{outcome=\"success\"} 7\n")
                && text.contains("sends_total{outcome=\"failure\"} 1\n"))
        #expect(text.contains("lag_seconds_bucket{le=\"1\"} 1\n") && text.contains("lag_seconds_bucket{le=\"10\"} 2\n"))
        #expect(text.contains("lag_seconds_sum 5.5\n") && text.contains("lag_seconds_count 2\n"))
        let byApp = metrics.counterTotals("sends_total", by: "outcome", per: "app")
        #expect(byApp["shop"] == ["success": 3] && byApp["rides"] == ["success": 4, "failure": 1])
        #expect(metrics.histogramTotals("lag_seconds", per: "app")["rides"]?.count == 1)
    }

    @Test("every route the router names is a known label")
    func routeLabels() {
        let paths = [
            "/v1/tokens/push-to-start", "/v1/tokens/activity", "/v1/tokens/fcm", "/v1/tokens/channel-subscription",
            "/v1/tokens/abc", "/v1/activities", "/v1/activities/x", "/v1/activities/x/events", "/v1/activities/x/end",
            "/v1/activities/x/diagnosis", "/v1/push", "/v1/doctor", "/v1/events",
        ]
        for path in paths {
            let parts = path.split(separator: "/").map(String.init)
            let template = APIRouter.template(parts).0
            #expect(template.map { APIRouter.routeTemplates.contains($0) } == true, "\(path)")
        }
        #expect(APIRouter.methodLabel("PATCH") == "PATCH" && APIRouter.methodLabel("patch") == "other")
        #expect(APIRouter.methodLabel("BREW") == "other")
    }
}
