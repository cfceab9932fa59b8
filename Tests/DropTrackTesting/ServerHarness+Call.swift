import DropTrackContract
import Foundation

/// One API answer.
package struct APIAnswer {
    package var status: Int
    package var headers: [String: String]
    package var body: JSONValue
    package var text: String
    package var errorCode: String? { body["error"]?["code"]?.stringValue }
    package var errorField: String? { body["error"]?["field"]?.stringValue }

    package init(status: Int, headers: [String: String], body: JSONValue, text: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.text = text
    }
}

extension ServerHarness {
    /// Registers `token` as user u1's push-to-start token for `DeliveryAttributes` on device d1 (sandbox), the
    /// registration most API tests start from.
    package func registerPushToStart(_ token: String, headers: [String: String] = [:]) throws -> APIAnswer {
        try call(
            "POST", "/v1/tokens/push-to-start",
            #"{"userId":"u1","deviceId":"d1","token":"\#(token)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
            headers: headers)
    }

    /// One request over a fresh HTTP/1.1 connection, from `source` (a loopback address) when given. `key`
    /// nil sends no Authorization header.
    package func call(
        _ method: String, _ path: String, _ body: String? = nil, key: String? = "key-app1",
        headers: [String: String] = [:], from source: String? = nil
    ) throws -> APIAnswer {
        try call(method, path, raw: body.map { Array($0.utf8) }, key: key, headers: headers, from: source)
    }

    package func call(
        _ method: String, _ path: String, raw: [UInt8]?, key: String? = "key-app1", headers: [String: String] = [:],
        from source: String? = nil
    ) throws -> APIAnswer {
        let connection = try RawConnection(port: port, from: source)
        defer { connection.close() }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        if let raw {
            if headers["Content-Type"] == nil { head += "Content-Type: application/json\r\n" }
            head += "Content-Length: \(raw.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(Array((head + "\r\n").utf8) + (raw ?? []))
        let response = try connection.readResponse(timeout: .seconds(30))
        let parsed = (try? JSONValue.parse(bytes: response.body)) ?? .null
        return APIAnswer(status: response.status, headers: response.headers, body: parsed, text: response.text)
    }
}
