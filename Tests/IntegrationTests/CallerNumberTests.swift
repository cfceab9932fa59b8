import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackTesting
import Foundation
import Testing

/// Each place the hardening review crashed the whole server with one number (Swift traps converting
/// a `Double` beyond ±9.22e18 to an integer), now a refusal that names the field, with the server
/// still answering afterwards. These ran in-process: before the fix each one took the test run down.
@Suite("Caller numbers past what an integer holds: refused by field, never a crash")
struct CallerNumberTests {
    func harness() throws -> ServerHarness {
        try ServerHarness { configuration in
            configuration.apps[0].schemas?.merge(MapperExamples.schemas) { old, _ in old }
        }
    }

    func expectRefused(
        _ answer: APIAnswer, field: String, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 422 || answer.status == 400, comment, sourceLocation: sourceLocation)
        #expect(answer.body["error"]?["field"]?.stringValue == field, "\(answer.body)", sourceLocation: sourceLocation)
    }

    func start(_ id: String, type: String, state: String) -> String {
        #"{"activityId":"\#(id)","userId":"u1","attributesType":"\#(type)","attributes":{},"contentState":\#(state),"alert":{"title":"t"},"idempotencyKey":"\#(id)"}"#
    }

    @Test("a delivery step of 1e19, through an event and through a start's event")
    func deliveryStep() throws {
        let server = try harness()
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        let event = try server.call(
            "POST", "/v1/activities/order-9/events", #"{"type":"delivery.step","data":{"step":1e19}}"#)
        expectRefused(event, field: "data.step", "a step beyond Int64")
        let fraction = try server.call(
            "POST", "/v1/activities/order-9/events", #"{"type":"delivery.step","data":{"step":2.5}}"#)
        expectRefused(fraction, field: "data.step", "2.5 is no step (it used to be read as 2)")
        let started = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(of: #""step":"placed""#, with: #""step":-1e300"#)
                .replacingOccurrences(of: "order-9", with: "order-10"))
        expectRefused(started, field: "event.data.step", "a start's event names its field under event")
        let eta = try server.call(
            "POST", "/v1/activities/order-9/events", #"{"type":"delivery.eta","data":{"etaEpochMillis":1e22}}"#)
        expectRefused(eta, field: "data.etaEpochMillis", "an ETA in the year 300 million")
        #expect(try server.call("GET", "/healthz", key: nil).status == 200)
    }

    @Test("a schema date of 1e300 or -1e300, an ISO date past the window or not in the calendar, an integer of 1e19")
    func schemaFields() throws {
        let server = try harness()
        defer { server.stop() }
        let cases: [(String, String, String)] = [
            (#"{"home":1,"away":0,"period":"first","kickoff":1e300}"#, "contentState.kickoff", "1e300 seconds"),
            (#"{"home":1,"away":0,"period":"first","kickoff":-1e300}"#, "contentState.kickoff", "before 1970"),
            (#"{"home":1,"away":0,"period":"first","kickoff":9.3e18}"#, "contentState.kickoff", "just past Int64"),
            (
                #"{"home":1,"away":0,"period":"first","kickoff":"9999-12-31T00:00:00Z"}"#, "contentState.kickoff",
                "an ISO date gets the bound numbers get"
            ),
            (
                #"{"home":1,"away":0,"period":"first","kickoff":"2026-02-30T10:00:00Z"}"#, "contentState.kickoff",
                "30 February does not exist"
            ),
            (#"{"home":1e19,"away":0,"period":"first"}"#, "contentState.home", "an integer beyond Int64"),
            (#"{"home":9007199254740993,"away":0,"period":"first"}"#, "contentState.home", "past 2^53"),
        ]
        for (index, (state, field, why)) in cases.enumerated() {
            let answer = try server.call(
                "POST", "/v1/activities", start("score-\(index)", type: "ScoreAttributes", state: state))
            expectRefused(answer, field: field, "\(why)")
            let patch = try server.call("PATCH", "/v1/activities/score-\(index)", #"{"contentState":\#(state)}"#)
            #expect(patch.status == 404, "the refused start left nothing behind")
        }
        let good = try server.call(
            "POST", "/v1/activities",
            start(
                "score-ok", type: "ScoreAttributes",
                state: #"{"home":1,"away":0,"period":"first","kickoff":"2028-02-29T20:00:00+01:00"}"#))
        #expect(good.status == 201, "\(good.body)")
        let shown = try server.call("GET", "/v1/activities/score-ok")
        let kickoff = try #require(ContentDates.parseISO8601("2028-02-29T19:00:00Z"))
        #expect(shown.body["contentState"]?["kickoff"]?.numberValue == kickoff.timeIntervalSinceReferenceDate)
        #expect(try server.call("GET", "/healthz", key: nil).status == 200)
    }

    @Test("a declarative mapper's record: a date of 1e300, an entry time of 1e22")
    func declarativeRecord() throws {
        let server = try harness()
        defer { server.stop() }
        let receipt = #"""
            {"activityId":"r1","userId":"u1","attributesType":"ReceiptAttributes","attributes":{},
             "event":{"type":"receipt.accepted","data":{"orderNumber":"R-1","readyBy":1e300}},
             "alert":{"title":"t"},"idempotencyKey":"r1"}
            """#
        let refused = try server.call("POST", "/v1/activities", receipt)
        #expect(refused.status == 422, "\(refused.body)")
        #expect(refused.body["error"]?["field"]?.stringValue?.hasPrefix("contentState") == true, "\(refused.body)")
        let classes = #"""
            {"activityId":"gym","userId":"u1","attributesType":"ClassScheduleAttributes","attributes":{},
             "event":{"type":"classes.set","data":{"gym":"G","classes":[{"name":"Spin","room":"A","at":1e22}]}},
             "alert":{"title":"t"},"idempotencyKey":"gym"}
            """#
        let entry = try server.call("POST", "/v1/activities", classes)
        #expect(entry.status == 422, "\(entry.body)")
        #expect(entry.body["error"]?["field"]?.stringValue?.hasPrefix("contentState") == true, "\(entry.body)")
        #expect(try server.call("GET", "/healthz", key: nil).status == 200)
    }

    @Test("/v1/push and /v1/doctor with content-state.eta, aps.timestamp or android.ttl beyond Int64")
    func pushAndDoctor() throws {
        let server = try harness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        for aps in [
            #"{"event":"update","timestamp":1796040000,"content-state":{"eta":1e300}}"#,
            #"{"event":"update","timestamp":1e300,"content-state":{"status":"x"}}"#,
            #"{"event":"update","timestamp":9.3e18,"content-state":{"status":"x"}}"#,
        ] {
            let push = try server.call(
                "POST", "/v1/push", #"{"provider":"apns","token":"\#(token)","payload":{"aps":\#(aps)}}"#)
            #expect(push.status < 500, "\(push.body)")
            let doctor = try server.call(
                "POST", "/v1/doctor",
                #"{"apns":{"path":"/3/device/\#(token)","headers":{"apns-push-type":"liveactivity"},"payload":{"aps":\#(aps)}}}"#
            )
            #expect(doctor.status == 200, "\(doctor.body)")
        }
        for ttl in [#""1e19s""#, "1e19", #""NaNs""#, #""infs""#] {
            let doctor = try server.call(
                "POST", "/v1/doctor", #"{"fcm":{"message":{"token":"t","android":{"ttl":\#(ttl)},"data":{"a":"b"}}}}"#)
            #expect(doctor.status == 200, "\(doctor.body)")
            let findings = doctor.body["findings"]?.arrayValue ?? []
            #expect(findings.contains { $0["field"]?.stringValue == "message.android.ttl" }, "\(doctor.body)")
        }
        let ttl = try server.call(
            "POST", "/v1/push", #"{"provider":"fcm","token":"t","data":{"a":"b"},"ttlSeconds":1e19}"#)
        expectRefused(ttl, field: "ttlSeconds", "a raw FCM ttl beyond 28 days")
        #expect(try server.call("GET", "/healthz", key: nil).status == 200)
    }

    @Test("droptrack doctor on a file whose aps.timestamp, eta or android.ttl is beyond Int64 answers, exit 0 or 1")
    func doctorCommand() throws {
        let directory = makeTemporaryDirectory("doctor-numbers")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, body) in [
            ("timestamp.json", #"{"aps":{"event":"update","timestamp":1e300,"content-state":{"eta":1e300}}}"#),
            ("ttl.json", #"{"message":{"token":"t","android":{"ttl":"1e19s"},"data":{"a":"b"}}}"#),
        ] {
            let path = directory + "/" + name
            try body.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try runDropTrack(["doctor", path, "--contract", "DeliveryAttributes"])
            #expect(result.status == 0 || result.status == 1, "\(name): \(result.status) \(result.err)")
            #expect(result.out.contains("DT-"), "\(name): \(result.out)")
        }
    }
}
