import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Testing

@Suite("A stored token is a secret")
struct TokenRecordRedactionTests {
    /// A record that reaches a log line, an error or a test failure must name its token by fingerprint.
    @Test("printing, reflecting or dumping a token record never shows the token")
    func recordRedacts() {
        let record = sampleToken()
        let raw = record.token.wireValue
        var dumped = ""
        dump(record, to: &dumped)
        for text in ["\(record)", String(reflecting: record), dumped] {
            #expect(!text.contains(raw), "\(text)")
            #expect(text.contains("token:"))
        }
    }
}
