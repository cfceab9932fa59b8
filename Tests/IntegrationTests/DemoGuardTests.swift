import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDemo
import DropTrackEmulators
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

/// One request to the demo with exactly these headers (besides Connection and Content-Length).
func demoRequest(
    _ demo: DemoStack, _ method: String, _ path: String, headers: [String], body: String? = nil
) throws -> (status: Int, code: String?) {
    let connection = try RawConnection(port: demo.server.port)
    defer { connection.close() }
    var head = "\(method) \(path) HTTP/1.1\r\nConnection: close\r\n"
    for header in headers { head += header + "\r\n" }
    if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
    try connection.send(Array((head + "\r\n" + (body ?? "")).utf8))
    let response = try connection.readResponse(timeout: .seconds(30))
    let json = try? JSONValue.parse(bytes: response.body)
    return (response.status, json?["error"]?["code"]?.stringValue)
}

@Suite("The demo serves only its own origin")
struct DemoGuardTests {
    @Test("another Host is 403 on every route; cross-site, foreign-origin and non-JSON POSTs are refused")
    func origins() throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        let port = demo.server.port
        let own = "Host: 127.0.0.1:\(port)"
        let json = "Content-Type: application/json"
        // DNS rebinding: the page's own name (and any other) is refused, on reads too.
        for host in ["evil.example:\(port)", "127.0.0.1:1", "localhost", "127.0.0.1.evil.example:\(port)"] {
            for path in ["/", "/demo/state", "/demo/events", "/v1/events"] {
                let answer = try demoRequest(demo, "GET", path, headers: ["Host: \(host)"])
                #expect(answer.status == 403 && answer.code == "host_not_allowed", "\(host) \(path)")
            }
        }
        // HTTP/1.1 without Host never reaches the demo: the server's strict framing refuses it first.
        #expect(try demoRequest(demo, "GET", "/demo/state", headers: []).status == 400)
        #expect(try demoRequest(demo, "GET", "/demo/state", headers: [own]).status == 200)
        #expect(try demoRequest(demo, "GET", "/", headers: ["Host: LOCALHOST:\(port)"]).status == 200)

        // Cross-site writes: a text/plain form, another origin, a cross-site fetch.
        let refused: [([String], Int, String)] = [
            ([own, "Content-Type: text/plain"], 415, "unsupported_media_type"),
            ([own], 415, "unsupported_media_type"),
            ([own, json, "Origin: http://evil.example"], 403, "origin_not_allowed"),
            ([own, json, "Origin: http://localhost:\(port)"], 403, "origin_not_allowed"),
            ([own, json, "Origin: null"], 403, "origin_not_allowed"),
            ([own, json, "Sec-Fetch-Site: cross-site"], 403, "cross_site_request"),
            ([own, json, "Sec-Fetch-Site: same-site"], 403, "cross_site_request"),
        ]
        for path in ["/demo/settings", "/demo/actions/place"] {
            for (headers, status, code) in refused {
                let answer = try demoRequest(demo, "POST", path, headers: headers, body: #"{"androidOnline":false}"#)
                #expect(answer.status == status && answer.code == code, "\(path) \(headers)")
            }
        }
        #expect(demo.iphone.activities.isEmpty, "a refused place sent nothing")
        // The dashboard's own requests still work.
        let dashboard = [own, json, "Origin: http://127.0.0.1:\(port)", "Sec-Fetch-Site: same-origin"]
        #expect(try demoRequest(demo, "POST", "/demo/settings", headers: dashboard, body: "{}").status == 200)
        #expect(try demoRequest(demo, "POST", "/demo/settings", headers: [own, json], body: "{}").status == 200)
    }
}
