import DropTrackCore
import Foundation
import Testing

@Suite("Log lines written without ICU (LogLine)")
struct LogLineTests {
    @Test(
        "the timestamp is what Foundation's ISO 8601 style writes, to the millisecond",
        arguments: [
            0, 0.001, 951_782_399.999, 951_782_400.5, 1_709_164_800.25, 1_796_182_789.117, 4_102_444_800.042, -1.5,
        ])
    func timestampMatchesFoundation(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let foundation = date.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        #expect(LogLine.timestamp(date) == foundation)
    }

    @Test("a line is one JSON object that JSONSerialization reads back to the same strings")
    func roundTrip() throws {
        let object = [
            "msg": "server.started", "request.id": "r-1", "path": "/v1/activities/a b",
            "quote": "say \"hi\"\\", "control": "line\nbreak\ttab\r\u{01}\u{1f}", "unicode": "Zürich 🚚",
        ]
        let line = LogLine.encode(object)
        #expect(!line.contains(0x0a))
        let parsed = try JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
        #expect(parsed == object)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains("\"path\":\"/v1/activities/a b\""), "slashes are not escaped")
        #expect(text.contains("\\u0001"))
    }

    @Test("keys are sorted, so the same entry always makes the same line")
    func sortedKeys() {
        let line = String(
            decoding: LogLine.encode(["time": "t", "level": "info", "msg": "m", "app.id": "a"]), as: UTF8.self)
        #expect(line == #"{"app.id":"a","level":"info","msg":"m","time":"t"}"#)
    }
}
