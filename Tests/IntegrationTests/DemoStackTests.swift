import DropTrackContract
import DropTrackCore
import DropTrackDemo
import DropTrackEmulators
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// One request to the demo's HTTP API with its key, over a connection of its own.
private func request(_ demo: DemoStack, _ method: String, _ path: String, _ body: String = "") throws -> (
    status: Int, body: JSONValue
) {
    let connection = try RawConnection(port: demo.server.port)
    defer { connection.close() }
    try connection.send(
        // The demo answers only at its own address, and takes changes only as JSON (DemoGuard).
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(demo.server.port)\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\n"
            + "Authorization: Bearer \(demo.apiKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    let response = try connection.readResponse(timeout: .seconds(30))
    return (response.status, (try? JSONValue.parse(bytes: response.body)) ?? .null)
}

@Suite("The demo, in process: server, emulators and both phones")
struct DemoStackTests {
    @Test(
        "place an order, six steps and a reassignment: both phones show the same final state; a broken push is dropped")
    func wholeLoop() throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(eventually { demo.iphone.tokens.count == 1 })
        #expect(demo.driver.place().status == 201)
        #expect(eventually { demo.iphone.activities.count == 1 && demo.android.notifications.count == 1 })
        for _ in 0..<6 { #expect(demo.driver.next().status == 200) }
        #expect(demo.driver.next().status == 409, "no step after delivered")
        #expect(demo.driver.reassign().status == 200)
        func settled() -> Bool {
            guard let activity = demo.iphone.activities.last,
                let state = try? LiveActivityJSON.decode(
                    DeliveryAttributes.ContentState.self, from: activity.contentState.encoded()),
                let notification = demo.android.notifications.last
            else { return false }
            return state.status == "Delivered" && state.riderReassigned && notification.title == "Delivered"
                && notification.text.contains(state.courierName)
        }
        #expect(eventually(timeout: .seconds(10), settled))
        #expect(demo.iphone.drops.isEmpty && demo.android.drops.isEmpty)
        let broken = demo.driver.sendBroken(.unixDate, iphone: demo.iphone)
        #expect(broken["status"]?.numberValue == 200, "APNs accepts it")
        #expect(broken["findings"]?.arrayValue?.contains { $0["trap"]?.stringValue == "DT-017" } == true)
        #expect(eventually { demo.iphone.drops.contains { $0.trap == "DT-017" } }, "and the phone drops it")
        #expect(demo.driver.end().status == 200)
        #expect(eventually { demo.iphone.activities.last?.phase(at: Date()) == "ended" })
    }

    @Test("each broken-push button: the doctor names its trap, and the client, APNs or the phone refuses it")
    func brokenPushes() throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(eventually { demo.iphone.tokens.count == 1 })
        let placed = demo.driver.place()
        #expect(placed.status == 201)
        let orderID = try #require(placed.body["activityId"]?.stringValue)
        #expect(eventually { demo.iphone.activities.first?.updateToken.isEmpty == false })
        #expect(demo.driver.next().status == 200)
        // The phone holds the server's newest version before anything breaks.
        #expect(
            eventually {
                let held = try? demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }
                return held?.version == 2 && demo.iphone.activities.first?.timestamp == held?.timestamp
            },
            "\(String(describing: try? demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }?.timestamp)) \(demo.iphone.activities.map(\.timestamp))"
        )
        #expect(demo.iphone.drops.isEmpty)
        // Status 0: DropTrack's own client refuses a suffix-less topic before sending it.
        let expected: [(DemoDriver.BrokenPush, trap: String, status: Int, phoneDrops: Bool)] = [
            (.topic, "DT-001", 0, false), (.unixDate, "DT-017", 200, true),
            (.startWithoutAlert, "DT-025", 200, true), (.oldTimestamp, "DT-020", 200, true),
        ]
        for (kind, trap, status, phoneDrops) in expected {
            let answer = demo.driver.sendBroken(kind, iphone: demo.iphone)
            let traps = answer["findings"]?.arrayValue?.compactMap { $0["trap"]?.stringValue } ?? []
            #expect(traps.contains(trap), "\(kind): the doctor found \(traps)")
            #expect(!traps.contains("DT-063"), "the demo's client signs every push; no missing-credentials finding")
            #expect(answer["status"]?.numberValue == Double(status), "\(kind): \(answer)")
            if phoneDrops {
                #expect(eventually { demo.iphone.drops.contains { $0.trap == trap } }, "\(kind): \(demo.iphone.drops)")
            }
        }
        // The server's diagnosis of the order shows what the phone dropped, by trap.
        let response = try request(demo, "GET", "/v1/activities/\(orderID)/diagnosis")
        let dropped = Set(response.body["deviceDrops"]?.arrayValue?.compactMap { $0["trap"]?.stringValue } ?? [])
        #expect(response.status == 200 && dropped.isSuperset(of: ["DT-017", "DT-020"]), "\(dropped)")
    }

    @Test(
        "turning Live Activities off on the phone reaches the diagnosis: the app reports it, and DT-048 names the device"
    )
    func switchReachesDiagnosis() throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(eventually { demo.iphone.tokens.count == 1 })
        let placed = demo.driver.place()
        let orderID = try #require(placed.body["activityId"]?.stringValue)
        #expect(eventually { demo.iphone.activities.first?.updateToken.isEmpty == false })
        let updateToken = try #require(demo.iphone.activities.first?.updateToken)
        func lateFindings() throws -> [String] {
            try request(demo, "GET", "/v1/activities/\(orderID)/diagnosis").body["findings"]?.arrayValue?.compactMap {
                $0["device"]?.stringValue == Fingerprint(of: updateToken).value ? $0["trap"]?.stringValue : nil
            } ?? []
        }
        #expect(try !lateFindings().contains("DT-048"))
        #expect(try request(demo, "POST", "/demo/settings", #"{"liveActivitiesEnabled":false}"#).status == 200)
        #expect(eventually { (try? lateFindings())?.contains("DT-048") == true }, "\((try? lateFindings()) ?? [])")
    }
}
