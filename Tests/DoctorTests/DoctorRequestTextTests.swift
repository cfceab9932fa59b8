import DropTrackContract
import DropTrackDoctor
import DropTrackModel
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@Suite("Reading pushes as people paste them")
struct DoctorRequestTextTests {
    let token = DoctorFixtures.updateToken

    @Test("an HTTP-style dump: request line, headers, blank line, body")
    func httpDump() throws {
        let text = """
            POST /3/device/\(token) HTTP/2
            apns-topic: \(DoctorFixtures.topic)
            apns-push-type: liveactivity
            apns-priority: 5

            \(DoctorFixtures.updateJSON)

            """
        let push = try DoctorRequestText.parse(text)
        #expect(push.provider == .apns && push.method == "POST" && push.path == "/3/device/\(token)")
        #expect(push.headers.map(\.name) == ["apns-topic", "apns-push-type", "apns-priority"])
        #expect(push.body == Array(DoctorFixtures.updateJSON.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
    }

    @Test("headers and JSON without a request line; HTTP/2 pseudo-headers; a body alone")
    func variants() throws {
        let bare = try DoctorRequestText.parse("apns-push-type: liveactivity\r\n\r\n{\"aps\":{}}")
        #expect(bare.provider == .apns && bare.path.isEmpty && bare.header("apns-push-type") == "liveactivity")
        #expect(bare.body == Array(#"{"aps":{}}"#.utf8))
        let h2 = try DoctorRequestText.parse(
            ":method: POST\n:path: /3/device/\(token)\n:authority: api.push.apple.com\napns-topic: t\n\n{}")
        #expect(h2.path == "/3/device/\(token)" && h2.host == "api.push.apple.com" && h2.hostEnvironment == .production)
        #expect(h2.headers.map(\.name) == ["apns-topic"])
        let body = try DoctorRequestText.parse("  {\"message\": {\"token\": \"t\", \"data\": {}}}")
        #expect(body.provider == .fcm && body.path == "/v1/projects/-/messages:send")
        let url = try DoctorRequestText.parse("POST https://fcm.googleapis.com/v1/projects/p1/messages:send\n\n{}")
        #expect(url.provider == .fcm && url.path == "/v1/projects/p1/messages:send" && url.port == 443)
    }

    @Test("a curl command: quoting, continuations, attached flags, the URL, and data from a file")
    func curl() throws {
        let text = #"""
            curl -v --http2 -XPOST \
              -H "apns-topic: com.droptrack.demo.push-type.liveactivity" \
              -H'apns-push-type: liveactivity' --header "apns-priority: 10" \
              -H "authorization: bearer \"quoted\" \$HOME" \
              --data-binary @body.json \
              https://api.sandbox.push.apple.com/3/device/\#(token)
            """#
        var asked: [String] = []
        let push = try DoctorRequestText.parse(text) { path in
            asked.append(path)
            return Array("{\"aps\":{}}\n".utf8)
        }
        #expect(asked == ["body.json"])
        #expect(push.provider == .apns && push.method == "POST" && push.host == "api.sandbox.push.apple.com")
        #expect(push.path == "/3/device/\(token)" && push.hostEnvironment == .sandbox)
        #expect(push.headers.map(\.name) == ["apns-topic", "apns-push-type", "apns-priority", "authorization"])
        #expect(push.header("authorization") == #"bearer "quoted" $HOME"#)
        #expect(push.body == Array("{\"aps\":{}}\n".utf8), "--data-binary keeps the newline")
    }

    @Test("curl -d joins pieces with &, strips newlines from @files, --data-raw takes @ literally, $'…' escapes")
    func curlData() throws {
        let joined = try DoctorRequestText.parse("curl -d a=1 --data b=2 https://x/3/device/ab") { _ in [] }
        #expect(joined.body == Array("a=1&b=2".utf8))
        let file = try DoctorRequestText.parse("curl -d @f https://x/3/device/ab") { _ in Array("{\n\"a\":1}\r\n".utf8)
        }
        #expect(file.body == Array("{\"a\":1}".utf8))
        let raw = try DoctorRequestText.parse("curl --data-raw @literal https://x/3/device/ab")
        #expect(raw.body == Array("@literal".utf8))
        let ansi = try DoctorRequestText.parse(#"curl --json $'{"a":"b\'c\n"}' https://x/3/device/ab"#)
        #expect(ansi.body == Array("{\"a\":\"b'c\n\"}".utf8) && ansi.header("content-type") == "application/json")
        let fcm = try DoctorRequestText.parse(
            "curl -sS -H 'Authorization: Bearer ya29' -d '{\"message\":{}}' https://fcm.googleapis.com/v1/projects/demo/messages:send"
        )
        #expect(fcm.provider == .fcm && fcm.method == "POST")
        let certificate = try DoctorRequestText.parse(
            "curl --cert app.p12 -d '{}' https://api.push.apple.com/3/device/ab")
        #expect(certificate.usesClientCertificate)
        let get = try DoctorRequestText.parse(
            "curl https://api-manage-broadcast.push.apple.com:2196/1/apps/b/all-channels")
        #expect(get.method == "GET" && get.port == 2196)
    }

    @Test("unreadable curl input is a typed error naming the problem")
    func curlErrors() {
        #expect(throws: DoctorInputError("unterminated ' quote")) { try DoctorRequestText.parse("curl -d '{") }
        #expect(throws: DoctorInputError("unterminated \" quote")) { try DoctorRequestText.parse("curl -H \"a: b") }
        #expect(throws: DoctorInputError("curl option -H needs a value")) { try DoctorRequestText.parse("curl -H") }
        #expect(throws: DoctorInputError("cannot read missing.json for curl -d")) {
            try DoctorRequestText.parse("curl -d @missing.json https://x/3/device/ab")
        }
        #expect(throws: DoctorInputError("curl reads the body from stdin (@-); put it in a file")) {
            try DoctorRequestText.parse("curl -d @- https://x/3/device/ab")
        }
    }
}
