import DropTrackModel
import Testing

@Suite("Fingerprint(validating:) takes 16 lowercase hex digits only, and never repeats what it refused")
struct FingerprintValidationTests {
    @Test("a computed fingerprint reads back; anything else throws")
    func validating() throws {
        let computed = Fingerprint(of: "a device token")
        #expect(try Fingerprint(validating: computed.value) == computed)
        #expect(throws: InvalidFingerprint(.length(15))) { try Fingerprint(validating: "0123456789abcde") }
        #expect(throws: InvalidFingerprint(.length(0))) { try Fingerprint(validating: "") }
        #expect(throws: InvalidFingerprint(.notLowercaseHex)) { try Fingerprint(validating: "0123456789ABCDEF") }
        #expect(throws: InvalidFingerprint(.notLowercaseHex)) { try Fingerprint(validating: "0123456789abcdeg") }
        // Hex is checked first, so the count in a length error is a count of digits.
        #expect(throws: InvalidFingerprint(.notLowercaseHex)) {
            try Fingerprint(validating: String(repeating: "é", count: 16))
        }
    }

    @Test("the error says what a fingerprint is, not what it was given")
    func errorText() {
        let token = String(repeating: "ab", count: 32)
        do {
            _ = try Fingerprint(validating: token)
            Issue.record("a 64-digit token was taken for a fingerprint")
        } catch {
            #expect(!"\(error)".contains(token))
            #expect("\(error)".contains("has 64 characters; a fingerprint is 16 lowercase hex digits"))
        }
    }

    @Test("fingerprints sort as their text")
    func order() throws {
        #expect(try Fingerprint(validating: "0fffffffffffffff") < Fingerprint(validating: "f000000000000000"))
    }
}
