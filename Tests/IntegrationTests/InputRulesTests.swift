import DropTrackAPI
import DropTrackContract
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

extension ServerHarness {
    /// A POST whose head is exactly `headers` (plus Host, Authorization and Content-Length): no
    /// Content-Type unless given.
    func post(_ path: String, raw: [UInt8], headers: [String] = []) throws -> APIAnswer {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer key-app1\r\n"
        for header in headers { head += header + "\r\n" }
        head += "Content-Length: \(raw.count)\r\n\r\n"
        try connection.send(Array(head.utf8) + raw)
        let response = try connection.readResponse(timeout: .seconds(30))
        let parsed = (try? JSONValue.parse(bytes: response.body)) ?? .null
        return APIAnswer(status: response.status, headers: response.headers, body: parsed, text: response.text)
    }
}

@Suite("Input rules: media type, strict JSON, ids")
struct InputRulesTests {
    static func fcmRegistration(userId: String, deviceId: String = "d1") -> String {
        #"{"userId":"\#(userId)","deviceId":"\#(deviceId)","token":"fcm-\#(UUID().uuidString)"}"#
    }

    @Test("a body must be application/json (charset utf-8 at most); anything else, or no type, is 415")
    func mediaType() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let body = Array(deliveryStart.utf8)
        for type in [
            nil, "text/plain", "text/json", "application/jsonx", "application/json; charset=utf-16",
            "application/x-www-form-urlencoded", "application/json-patch+json", "application/json; charset",
            "multipart/form-data; boundary=x",
        ] {
            let answer = try server.post(
                "/v1/activities", raw: body, headers: type.map { ["Content-Type: \($0)"] } ?? [])
            #expect(answer.status == 415, "\(type ?? "no type"): \(answer.text)")
            #expect(answer.errorCode == "unsupported_media_type", "\(type ?? "no type")")
            let message = answer.body["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("application/json"), "\(message)")
            if let type { #expect(message.contains(type.prefix(10)), "\(message) names what was sent") }
        }
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "order-9") } == nil)
        for (index, type) in [
            "application/json", "Application/JSON; Charset=UTF-8", #"application/json;charset="utf-8""#,
            "application/json; foo=bar",
        ].enumerated() {
            let start = deliveryStart.replacingOccurrences(of: "order-9", with: "order-\(index)")
            let answer = try server.post("/v1/activities", raw: Array(start.utf8), headers: ["Content-Type: \(type)"])
            #expect(answer.status == 201, "\(type): \(answer.text)")
        }
    }

    @Test("invalid UTF-8 and duplicate keys are 400 malformed_json with the byte offset or the key's path")
    func strictJSON() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        // "bad\xff" used to become "bad\u{FFFD}": two different byte strings, one user.
        let badUTF8 = Array(#"{"userId":"bad"#.utf8) + [0xFF] + Array(#"","deviceId":"d1","token":"fcm-1"}"#.utf8)
        let invalid = try server.call("POST", "/v1/tokens/fcm", raw: badUTF8)
        #expect(invalid.status == 400 && invalid.errorCode == "malformed_json", "\(invalid.text)")
        #expect(invalid.body["error"]?["message"]?.stringValue?.contains("at byte 14: invalid UTF-8") == true)

        let twice = try server.call(
            "POST", "/v1/tokens/fcm", #"{"userId":"u1","deviceId":"d1","userId":"u2","token":"fcm-2"}"#)
        #expect(twice.status == 400 && twice.errorCode == "malformed_json" && twice.errorField == "userId")
        #expect(twice.body["error"]?["message"]?.stringValue?.contains(#"duplicate key "userId""#) == true)
        let nested = try server.call(
            "POST", "/v1/tokens/fcm",
            #"{"userId":"u1","deviceId":"d1","token":"fcm-3","device":{"osVersion":"16","osVersion":"15"}}"#)
        #expect(nested.status == 400 && nested.errorField == "device.osVersion", "\(nested.text)")
        #expect(try server.store.transaction { try $0.tokens(app: "app1", deviceIds: ["d1"]) }.isEmpty)
    }

    @Test("ids outside [A-Za-z0-9._:-]{1,128} are refused with the field and the rule; the rest still work")
    func identifiers() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let long = String(repeating: "x", count: 129)
        for id in ["a/b", #"a\u0000b"#, "a b", "a%2Fb", "é", "..", ".", "a?b", long] {
            let start = deliveryStart.replacingOccurrences(
                of: #""activityId":"order-9""#, with: #""activityId":"\#(id)""#)
            let answer = try server.call("POST", "/v1/activities", start)
            #expect(answer.status == 400 && answer.errorField == "activityId", "\(id): \(answer.text)")
            #expect(answer.body["error"]?["message"]?.stringValue?.contains(Identifier.rule) == true, "\(id)")
        }
        for (path, body, field) in [
            ("/v1/tokens/fcm", Self.fcmRegistration(userId: "u/1"), "userId"),
            ("/v1/tokens/fcm", Self.fcmRegistration(userId: "u1", deviceId: "d\\u0000"), "deviceId"),
            (
                "/v1/tokens/push-to-start",
                #"{"userId":"u 1","deviceId":"d","token":"abcd","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                "userId"
            ),
            (
                "/v1/tokens/activity", #"{"activityId":"a/b","deviceId":"d","token":"abcd","environment":"sandbox"}"#,
                "activityId"
            ),
            ("/v1/tokens/channel-subscription", #"{"activityId":"order-9","deviceId":"d:é"}"#, "deviceId"),
        ] {
            let answer = try server.call("POST", path, body)
            #expect(answer.status == 400 && answer.errorField == field, "\(body): \(answer.text)")
        }
        let longest = String(repeating: "y", count: 128)
        let edge = "Aa0._:-" + String(repeating: "z", count: 10)
        for id in [longest, edge] {
            let start = deliveryStart.replacingOccurrences(of: "order-9", with: id)
            #expect(try server.call("POST", "/v1/activities", start).status == 201, "\(id)")
            #expect(try server.call("GET", "/v1/activities/\(id)").body["activityId"]?.stringValue == id)
        }
        #expect(try server.call("POST", "/v1/tokens/fcm", Self.fcmRegistration(userId: "user:42.a_b-c")).status == 201)
    }

    @Test("a path id holding NUL or a decoded '/' does not reach another activity")
    func pathIdentifiers() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let start = deliveryStart.replacingOccurrences(of: "order-9", with: "a")
        #expect(try server.call("POST", "/v1/activities", start).status == 201)
        // As the router sees a decoded path: NUL kept.
        let request = HTTPRequest(
            method: "GET", path: "/v1/activities/a\u{0}b", headers: ["authorization": "Bearer key-app1"])
        guard case .response(let response) = server.server.router.handle(request) else {
            Issue.record("no response")
            return
        }
        let body = try JSONValue.parse(bytes: response.body)
        #expect(response.status == 400 && body["error"]?["field"]?.stringValue == "id", "\(body)")
        // Over the wire: libmicrohttpd would decode %00 and cut the path there, reaching "a".
        let nul = try server.call("GET", "/v1/activities/a%00b")
        #expect(nul.status == 400 && nul.body["activityId"] == nil, "\(nul.text)")
        let slash = try server.call("GET", "/v1/activities/a%2Fb")
        #expect(slash.status == 404 && slash.body["activityId"] == nil, "\(slash.text)")
        let slashEnd = try server.call("GET", "/v1/activities/a%2F")
        #expect(slashEnd.body["activityId"] == nil, "\(slashEnd.text)")
    }

    @Test("a config file with a key given twice is refused, naming the key")
    func configDuplicates() throws {
        let directory = makeTemporaryDirectory("config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/droptrack.json"
        try #"{"listen":"127.0.0.1:1","apps":[{"id":"a","bundleId":"x","bundleId":"y"}]}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == "apps[0].bundleId" && error.description.contains(#"duplicate key "bundleId""#)
        }
    }
}
