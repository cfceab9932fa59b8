import DropTrackContract
import DropTrackCore
import DropTrackTesting
import Foundation
import Testing

@Suite("A {fingerprint} path segment is checked before any lookup: malformed is 400 naming the field")
struct FingerprintPathTests {
    @Test("DELETE /v1/tokens/{fingerprint}: a raw token or uppercase hex is 400, unknown hex is 404, the real one 204")
    func backend() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        let registered = try server.registerPushToStart(token)
        let fingerprint = try #require(registered.body["fingerprint"]?.stringValue)

        // The token itself where its fingerprint belongs: refused, and not repeated in the answer.
        let pasted = try server.call("DELETE", "/v1/tokens/\(token)")
        #expect(pasted.status == 400 && pasted.errorCode == "invalid_field", "\(pasted.text)")
        #expect(pasted.body["error"]?["field"] == .string("fingerprint"))
        #expect(!pasted.text.contains(token), "\(pasted.text)")
        #expect(pasted.text.contains("16 lowercase hex digits"), "\(pasted.text)")
        #expect(try server.call("DELETE", "/v1/tokens/\(fingerprint.uppercased())").status == 400)
        #expect(try server.call("DELETE", "/v1/tokens/0000000000000000").status == 404)
        // Nothing was unregistered by the refused calls.
        #expect(try server.call("DELETE", "/v1/tokens/\(fingerprint)").status == 204)
    }

    @Test("with a device credential: a malformed fingerprint is 400 too, before the ownership check")
    func device() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let credential = try server.credential()
        let refused = try server.call("DELETE", "/v1/tokens/not-a-fingerprint", key: credential)
        #expect(refused.status == 400 && refused.body["error"]?["field"] == .string("fingerprint"), "\(refused.text)")
        #expect(!refused.text.contains("not-a-fingerprint"))
        #expect(try server.call("DELETE", "/v1/tokens/0000000000000000", key: credential).status == 404)
    }
}
