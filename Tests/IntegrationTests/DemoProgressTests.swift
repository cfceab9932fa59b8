import DropTrackContract
import DropTrackCore
import DropTrackDemo
import DropTrackEmulators
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The demo's dashboard state for an order that counts its own steps: the iPhone card (drawn with the
/// widget's logic) and the Android card (the phone model's) show 3 of 12 and what remains.
@Suite("The demo dashboard draws N of M on both phones")
struct DemoProgressTests {
    /// One request to the demo's API with its key.
    func request(_ demo: DemoStack, _ method: String, _ path: String, _ body: String = "") throws -> JSONValue {
        let connection = try RawConnection(port: demo.server.port)
        defer { connection.close() }
        try connection.send(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(demo.server.port)\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nAuthorization: Bearer \(demo.apiKey)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return (try? JSONValue.parse(bytes: try connection.readResponse(timeout: .seconds(30)).body)) ?? .null
    }

    @Test("an update with step 3 of 12: twelve segments, three lit, \"3 of 12\" and \"9 to go\" on both cards")
    func threeOfTwelve() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        // The iPhone app registers its push-to-start token on launch; the order is placed after it.
        #expect(
            await waitFor(timeout: .seconds(30)) {
                let tokens = try? demo.server.store.transaction {
                    try $0.tokens(app: DemoStack.appID, deviceIds: [DemoIPhoneApp.deviceID])
                }
                return tokens?.contains { $0.kind == .pushToStart } == true
            })
        let placed = demo.driver.place()
        #expect(placed.status == 201)
        let order = try #require(placed.body["activityId"]?.stringValue)
        #expect(
            await waitFor(timeout: .seconds(30)) {
                !demo.iphone.activities.isEmpty && !demo.android.notifications.isEmpty
            })
        let eta = Date().addingTimeInterval(900).timeIntervalSinceReferenceDate.rounded()
        let updated = try request(
            demo, "PATCH", "/v1/activities/\(order)",
            #"{"contentState":{"status":"Confirming your deposit","progress":0.25,"eta":\#(eta),"stopsRemaining":0,"courierName":"Sam","riderReassigned":false,"step":3,"stepCount":12}}"#
        )
        #expect(updated["error"] == nil, "\(updated)")
        #expect(
            await waitFor(timeout: .seconds(30)) {
                demo.iphone.activities.last?.contentState["stepCount"] == .number(12)
                    && demo.android.notifications.last?.title == "Confirming your deposit"
            })
        let state = try request(demo, "GET", "/demo/state")
        let view = try #require(state["iphone"]?["activities"]?.arrayValue?.last?["view"], "\(state)")
        #expect(view["segmentCount"] == .number(12) && view["litSegments"] == .number(3), "\(view)")
        #expect(view["percent"] == .string("3 of 12") && view["stops"] == .string("9 to go"), "\(view)")
        let card = try #require(state["android"]?["notifications"]?.arrayValue?.last)
        #expect(card["max"] == .number(12) && card["progress"] == .number(3), "\(card)")
        #expect(card["segments"]?.arrayValue?.count == 1, "twelve steps go to Android as one segment: \(card)")
        #expect(card["chip"] == .string("3 of 12"), "\(card)")
        #expect(card["text"] == .string("Sam is delivering your order · 9 to go"), "\(card)")
    }
}
