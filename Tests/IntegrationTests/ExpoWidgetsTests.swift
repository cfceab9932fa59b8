import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// An expo-widgets app's iPhone: it holds one push-to-start token, for `LiveActivityAttributes`, and
/// registers the update token of the activity it is started with as `activityId`.
final class ExpoWidgetsPhone: Sendable {
    let server: ServerHarness
    let phone: IPhoneSimulator

    /// The server with app1's `TimerAttributes` (widget TimerWidget) and `Scores`, which registers the
    /// widgets ScoreSmall and ScoreLarge.
    init(activityId: String) throws {
        let server = try ServerHarness {
            $0.apps[0].schemas?["Scores"] = AttributesSchema(
                contentState: ["home": .init(type: "integer"), "away": .init(type: "integer")],
                output: "expo-widgets", widgetNames: ["ScoreSmall", "ScoreLarge"])
        }
        self.server = server
        phone = IPhoneSimulator(deviceID: "expo-phone", attributesTypes: [ExpoWidgetsAttributes.typeName]) { event in
            let body: JSONValue
            let kind: TokenKind
            switch event {
            case .pushToStart(let type, let token):
                kind = .pushToStart
                body = .object([
                    "userId": .string("fan"), "deviceId": .string("expo-phone"), "token": .string(token.wireValue),
                    "environment": .string("sandbox"), "attributesType": .string(type),
                ])
            case .activity(_, _, _, let token):
                kind = .activity
                body = .object([
                    "activityId": .string(activityId), "deviceId": .string("expo-phone"),
                    "token": .string(token.wireValue),
                    "environment": .string("sandbox"),
                ])
            }
            _ = try? server.registry.registerToken(app: "app1", kind: kind, body: body)
        }
        let phone = self.phone
        server.apns.emulator.addDeliveryListener { delivery in
            if let token = delivery.token, phone.tokens.contains(token) {
                phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
            }
        }
        phone.registerPushToStartTokens()
    }

    /// Starts `id` for user `fan` with the given start fields (attributesType, attributes, contentState, …).
    @discardableResult
    func start(_ id: String, _ fields: String) throws -> JSONValue {
        try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"\#(id)","userId":"fan","alert":{"title":"Go"},"idempotencyKey":"\#(id)",\#(fields)}"#)
        ).response
    }

    /// The refusal a start gets, as (HTTP-independent) code and field.
    func refusal(_ fields: String) -> Refusal? {
        do {
            try start("refused", fields)
            return nil
        } catch {
            return error as? Refusal
        }
    }
}

@Suite("expo-widgets: LiveActivityAttributes on the wire, the widget chosen by the start, droppable starts refused")
struct ExpoWidgetsTests {
    @Test(
        "a start of an expo-widgets schema shows on the phone as LiveActivityAttributes {name, props}, and updates follow"
    )
    func reachesThePhone() throws {
        let expo = try ExpoWidgetsPhone(activityId: "tea")
        defer { expo.server.stop() }
        let started = try expo.start(
            "tea",
            #""attributesType":"TimerAttributes","attributes":{"url":"myapp://tea"},"contentState":{"label":"Tea"}"#)
        #expect(started["destinations"]?.numberValue == 1, "the LiveActivityAttributes token starts TimerAttributes")
        try expo.server.drain()
        let shown = try #require(expo.phone.activities.first, "drops: \(expo.phone.drops)")
        #expect(shown.attributesType == "LiveActivityAttributes")
        #expect(shown.attributes == .object(["url": .string("myapp://tea")]))
        #expect(shown.contentState == .object(["name": .string("TimerWidget"), "props": .string(#"{"label":"Tea"}"#)]))

        _ = try expo.server.registry.updateActivity(
            app: "app1", activityId: "tea", body: expo.server.json(#"{"contentState":{"label":"Coffee"}}"#))
        try expo.server.drain()
        #expect(
            expo.phone.activities.first?.contentState
                == .object(["name": .string("TimerWidget"), "props": .string(#"{"label":"Coffee"}"#)]))
        #expect(expo.phone.drops.isEmpty, "\(expo.phone.drops)")
    }

    @Test("a start names one of several widgets, by the schema's name or by LiveActivityAttributes")
    func severalWidgets() throws {
        let expo = try ExpoWidgetsPhone(activityId: "m1")
        defer { expo.server.stop() }
        try expo.start(
            "m1",
            #""attributesType":"LiveActivityAttributes","widget":"ScoreLarge","attributes":{},"contentState":{"home":1,"away":0}"#
        )
        try expo.server.drain()
        let shown = try #require(expo.phone.activities.first, "drops: \(expo.phone.drops)")
        #expect(
            shown.contentState == .object(["name": .string("ScoreLarge"), "props": .string(#"{"away":0,"home":1}"#)]))
        let activity = try #require(try expo.server.store.transaction { try $0.activity(app: "app1", id: "m1") })
        #expect(activity.attributesType == "Scores", "the schema checks the props")

        try expo.start(
            "m2", #""attributesType":"Scores","widget":"ScoreSmall","attributes":{},"contentState":{"home":2,"away":2}"#
        )
        try expo.server.drain()
        #expect(expo.phone.activities.map { $0.contentState["name"]?.stringValue } == ["ScoreLarge", "ScoreSmall"])
    }

    @Test(
        "starts the phone would drop are refused with the field and the fix",
        arguments: [
            (
                #""attributesType":"Scores","widget":"ScoreHuge","attributes":{},"contentState":{"home":1,"away":0}"#,
                "widget", "ScoreSmall or ScoreLarge"
            ),
            (
                #""attributesType":"Scores","attributes":{},"contentState":{"home":1,"away":0}"#, "widget",
                "ScoreSmall, ScoreLarge"
            ),
            (
                #""attributesType":"LiveActivityAttributes","widget":"Nope","attributes":{},"contentState":{"label":"x"}"#,
                "widget", "ScoreLarge, ScoreSmall, TimerWidget"
            ),
            (
                #""attributesType":"ScoreAttributes","widget":"TimerWidget","attributes":{},"contentState":{"home":1,"away":0,"period":"first"}"#,
                "widget", "drop 'widget'"
            ),
            (
                #""attributesType":"TimerAttributes","attributes":{"matchId":"m"},"contentState":{"label":"x"}"#,
                "attributes.matchId", "move it into contentState"
            ),
            (
                #""attributesType":"TimerAttributes","attributes":{"url":7},"contentState":{"label":"x"}"#,
                "attributes.url", "is a string"
            ),
            (
                #""attributesType":"TimerAttributes","attributes":{},"contentState":{"label":5}"#,
                "contentState.label", "string"
            ),
            (
                #""attributesType":"TimerAttributes","widget":"ScoreLarge","attributes":{},"contentState":{"label":"x"}"#,
                "widget", "use TimerWidget"
            ),
        ])
    func refused(fields: String, field: String, fix: String) throws {
        let expo = try ExpoWidgetsPhone(activityId: "refused")
        defer { expo.server.stop() }
        let error = try #require(expo.refusal(fields), "accepted: \(fields)")
        #expect(error.field == field, "\(error)")
        #expect(error.message.contains(fix), "\(error)")
        #expect(error.code == .invalidContent, "a 422: well-formed, but the phone would drop it")
        try expo.server.drain()
        #expect(expo.phone.activities.isEmpty && expo.server.apns.emulator.records(after: 0).isEmpty)
    }
}
