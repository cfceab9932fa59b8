import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The server with the README's two declarative types registered for app1, an iPhone (fed by the
/// APNs emulator) with push-to-start tokens for both, and an Android phone, all for user `u1`.
final class MapperStack: Sendable {
    let server: ServerHarness
    let phone: IPhoneSimulator
    let android: String

    init(clock: any WallClock = SystemWallClock()) throws {
        let server = try ServerHarness(clock: clock) { configuration in
            configuration.apps[0].schemas?.merge(MapperExamples.schemas) { old, _ in old }
        }
        self.server = server
        phone = IPhoneSimulator(
            deviceID: "iphone", attributesTypes: ["ReceiptAttributes", "ClassScheduleAttributes"], clock: clock
        ) { event in
            switch event {
            case .pushToStart(let type, let token):
                _ = try? server.registry.registerToken(
                    app: "app1", kind: .pushToStart,
                    body: .object([
                        "userId": .string("u1"), "deviceId": .string("iphone"), "token": .string(token.wireValue),
                        "environment": .string("sandbox"), "attributesType": .string(type),
                    ]))
            case .activity(_, _, let attributes, let token):
                // The app knows its server's id from the static attributes.
                _ = try? server.registry.registerToken(
                    app: "app1", kind: .activity,
                    body: .object([
                        "activityId": attributes["id"] ?? .null, "deviceId": .string("iphone"),
                        "token": .string(token.wireValue), "environment": .string("sandbox"),
                    ]))
            }
        }
        let phone = self.phone
        server.apns.emulator.addDeliveryListener { delivery in
            if let token = delivery.token {
                phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
            }
        }
        phone.registerPushToStartTokens()
        android = server.fcm.newToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .fcm,
            body: .object(["userId": .string("u1"), "deviceId": .string("pixel"), "token": .string(android)]))
    }

    /// What the phone shows for the activity started with `id`.
    func shown(_ id: String) -> SimulatedActivity? {
        phone.activities.first { $0.attributes["id"]?.stringValue == id }
    }

    func post(_ path: String, _ body: String) throws -> APIAnswer {
        let answer = try server.call("POST", path, body)
        try server.drain()
        return answer
    }
}

/// The receipt as the app's widget would decode it (Swift optionals for the one-of members).
struct ReceiptState: Codable, Equatable {
    struct Preparing: Codable, Equatable { var readyBy: Date? }
    struct OnTheWay: Codable, Equatable {
        var courier: String
        var eta: Date?
    }
    struct Delivered: Codable, Equatable { var at: Date }
    var orderNumber: String
    var status: String
    var updatedAt: Date
    var preparing: Preparing?
    var onTheWay: OnTheWay?
    var delivered: Delivered?
}

@Suite("Declarative mappers end to end: the APNs emulator, a simulated iPhone and the FCM emulator")
struct DeclarativeMapperEndToEndTests {
    func decode(_ state: JSONValue?) throws -> ReceiptState {
        try LiveActivityJSON.decode(ReceiptState.self, from: try #require(state).encoded())
    }

    @Test("a receipt through the API: accepted, dispatched (with a banner), delivered ends it; the phone shows each")
    func receipt() throws {
        let stack = try MapperStack()
        defer { stack.server.stop() }
        let started = try stack.post(
            "/v1/activities",
            #"{"activityId":"r-1","userId":"u1","attributesType":"ReceiptAttributes","attributes":{"id":"r-1"},"event":{"type":"receipt.accepted","data":{"orderNumber":"R-17"}},"alert":{"title":"Order accepted"},"idempotencyKey":"r-1"}"#
        )
        #expect(started.status == 201, "\(started.text)")
        let first = try decode(stack.shown("r-1")?.contentState)
        #expect(first.orderNumber == "R-17" && first.status == "preparing" && first.preparing != nil)
        #expect(first.onTheWay == nil && first.delivered == nil)

        let dispatched = try stack.post(
            "/v1/activities/r-1/events", #"{"type":"receipt.dispatched","data":{"courier":"Sam"}}"#)
        #expect(dispatched.status == 200, "\(dispatched.text)")
        let second = try decode(stack.shown("r-1")?.contentState)
        #expect(second.status == "onTheWay" && second.onTheWay?.courier == "Sam" && second.preparing == nil)
        #expect(stack.shown("r-1")?.lastAlert?.contains("Sam is bringing order R-17") == true)

        _ = try stack.post("/v1/activities/r-1/events", #"{"type":"receipt.delivered"}"#)
        let shown = try #require(stack.shown("r-1"))
        let last = try decode(shown.contentState)
        #expect(last.status == "delivered" && last.delivered != nil && last.onTheWay == nil)
        #expect(shown.endedAt != nil, "receipt.delivered ends the activity")
        #expect(stack.phone.drops.isEmpty, "\(stack.phone.drops)")
        let records = stack.server.apns.emulator.records(forToken: shown.updateToken)
        #expect(records.map(\.event) == ["update", "end"] && records.allSatisfy { $0.findings.isEmpty })
        let described = try stack.server.call("GET", "/v1/activities/r-1")
        #expect(described.body["state"]?.stringValue == "ended")
        // Android gets the same state, nested objects as JSON strings, as for any registered type.
        let data = try #require(stack.server.fcm.emulator.latestDelivered(forToken: stack.android)?.data)
        #expect(data["event"] == "end" && data["status"] == "delivered" && data["orderNumber"] == "R-17")
        #expect(data["delivered"]?.hasPrefix(#"{"at":"#) == true && data["onTheWay"] == nil)
    }

    @Test("refusals through the API: a nested one-of with two members, an unknown event type, a missing data field")
    func refusals() throws {
        let stack = try MapperStack()
        defer { stack.server.stop() }
        let two = try stack.server.call(
            "POST", "/v1/activities",
            #"{"activityId":"r-2","userId":"u1","attributesType":"ReceiptAttributes","attributes":{"id":"r-2"},"contentState":{"orderNumber":"R","status":"onTheWay","updatedAt":0,"preparing":{},"onTheWay":{"courier":"Sam"}},"alert":{"title":"t"},"idempotencyKey":"r-2"}"#
        )
        #expect(two.status == 422 && two.errorField == "contentState", "\(two.text)")
        #expect(
            two.body["error"]?["message"]?.stringValue?.contains(
                "exactly one of preparing, onTheWay, delivered must be set; found preparing, onTheWay") == true,
            "\(two.text)")
        _ = try stack.post(
            "/v1/activities",
            #"{"activityId":"r-3","userId":"u1","attributesType":"ReceiptAttributes","attributes":{"id":"r-3"},"event":{"type":"receipt.accepted","data":{"orderNumber":"R-3"}},"alert":{"title":"t"},"idempotencyKey":"r-3"}"#
        )
        let update = try stack.server.call(
            "PATCH", "/v1/activities/r-3",
            #"{"contentState":{"orderNumber":"R","status":"delivered","updatedAt":0,"delivered":{"at":0},"onTheWay":{"courier":"Sam"}}}"#
        )
        #expect(update.status == 422 && update.errorField == "contentState", "\(update.text)")
        let unknown = try stack.server.call("POST", "/v1/activities/r-3/events", #"{"type":"receipt.lost"}"#)
        #expect(
            unknown.status == 422 && unknown.errorCode == "unknown_event_type" && unknown.errorField == "type",
            "\(unknown.text)")
        let missing = try stack.server.call("POST", "/v1/activities/r-3/events", #"{"type":"receipt.dispatched"}"#)
        #expect(missing.status == 422 && missing.errorField == "data.courier", "\(missing.text)")
        let wrongType = try stack.server.call("POST", "/v1/activities/r-3/events", #"{"type":"classes.set"}"#)
        #expect(wrongType.status == 422 && wrongType.errorField == "type", "\(wrongType.text)")
    }

    @Test("the declarative mappers guide's schemas.json is the examples these tests run")
    func readmeExamples() throws {
        let readme = try String(
            contentsOfFile: repositoryRoot + "/docs/how-to/declarative-mappers.md", encoding: .utf8)
        let start = try #require(readme.range(of: "cat > schemas.json <<'EOF'\n"))
        let end = try #require(readme.range(of: "\nEOF\n", range: start.upperBound..<readme.endIndex))
        let shown = try JSONValue.parse(String(readme[start.upperBound..<end.lowerBound]))
        #expect(shown["ReceiptAttributes"] == (try JSONValue.parse(MapperExamples.receiptJSON)))
        #expect(shown["ClassScheduleAttributes"] == (try JSONValue.parse(MapperExamples.classesJSON)))
    }

    @Test("a class schedule: the scheduler pushes the current and next class as each starts, and nothing in between")
    func schedule() throws {
        let clock = ManualWallClock(Date())
        let stack = try MapperStack(clock: clock)
        defer { stack.server.stop() }
        let now = clock.unixSeconds()
        let started = try stack.post(
            "/v1/activities",
            #"{"activityId":"gym","userId":"u1","attributesType":"ClassScheduleAttributes","attributes":{"id":"gym"},"event":{"type":"classes.set","data":{"gym":"Riverside","classes":[{"name":"Spin","room":"A","at":\#(now + 60)},{"name":"Yoga","room":"B","at":\#((now + 120) * 1000)}]}},"alert":{"title":"Today at the gym"},"idempotencyKey":"gym"}"#
        )
        #expect(started.status == 201, "\(started.text)")
        #expect(stack.shown("gym")?.contentState["next"]?["name"]?.stringValue == "Spin")
        #expect(stack.shown("gym")?.contentState["current"] == nil)
        #expect(stack.server.registry.runScheduled().recomputed == 0, "no boundary has come")

        clock.advance(by: 61)
        #expect(stack.server.registry.runScheduled().recomputed == 1)
        try stack.server.drain()
        var shown = try #require(stack.shown("gym"))
        #expect(shown.contentState["current"]?["name"]?.stringValue == "Spin")
        #expect(shown.contentState["next"]?["name"]?.stringValue == "Yoga")
        #expect(stack.server.registry.runScheduled().recomputed == 0, "the entry in force was pushed once")

        clock.advance(by: 60)
        #expect(stack.server.registry.runScheduled().recomputed == 1)
        try stack.server.drain()
        shown = try #require(stack.shown("gym"))
        #expect(shown.contentState["current"]?["name"]?.stringValue == "Yoga" && shown.contentState["next"] == nil)
        let startsAt = shown.contentState["current"]?["startsAt"]?.numberValue
        #expect(startsAt == Date(timeIntervalSince1970: Double(now + 120)).timeIntervalSinceReferenceDate)
        #expect(stack.server.apns.emulator.records(forToken: shown.updateToken).map(\.event) == ["update", "update"])
        #expect(stack.phone.drops.isEmpty, "\(stack.phone.drops)")

        // A direct update takes over from the computed schedule until the next event.
        let direct = try stack.server.call(
            "PATCH", "/v1/activities/gym", #"{"contentState":{"gym":"Riverside (closing early)"}}"#)
        #expect(direct.status == 200, "\(direct.text)")
        clock.advance(by: 60)
        #expect(stack.server.registry.runScheduled().recomputed == 0)
        _ = try stack.post("/v1/activities/gym/events", #"{"type":"classes.closed"}"#)
        #expect(stack.shown("gym")?.endedAt != nil)
    }
}
