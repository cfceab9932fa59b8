import DropTrackModel
import Foundation
import Testing

@Suite("A device token shows only its fingerprint")
struct DeviceTokenTests {
    static let raw = "80a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f"
    let token = DeviceToken(raw)

    @Test("interpolating, describing, reflecting, printing and dumping never show the raw token")
    func redacted() {
        let fingerprint = Fingerprint(of: Self.raw).value
        var printed = ""
        print(token, to: &printed)
        var dumped = ""
        dump(token, to: &dumped)
        var dumpedInside = ""
        dump(["push": [token]], to: &dumpedInside)
        let shown = [
            "\(token)", String(describing: token), String(reflecting: token), token.description,
            token.debugDescription, printed, dumped, dumpedInside, "\(Optional(token) as Any)",
            "\(Mirror(reflecting: token).children.map { "\($0.label ?? ""): \($0.value)" })",
        ]
        for text in shown {
            #expect(!text.contains(Self.raw), "the raw token leaked: \(text)")
            // No piece long enough to be mistaken for a token either: only the fingerprint's 16 digits.
            #expect(!text.contains(String(Self.raw.prefix(17))), "\(text)")
            #expect(text.contains(fingerprint), "\(text)")
        }
        #expect("\(token)" == "token:\(fingerprint)")
    }

    @Test("the raw token is there for the wire, and equal tokens are equal")
    func wireValue() {
        #expect(token.wireValue == Self.raw)
        #expect(token == DeviceToken(Self.raw))
        #expect(token != DeviceToken(Self.raw + "00"))
        #expect(token.fingerprint == Fingerprint(of: Self.raw))
    }
}
