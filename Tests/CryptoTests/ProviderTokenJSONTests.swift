import DropTrackCore
import DropTrackCrypto
import Foundation
import Testing

@testable import DropTrackProviders

/// The provider token's header and claims are written by hand (JSONSerialization loads ICU at the first
/// push): the bytes must stay those JSONSerialization with `.sortedKeys` wrote, which APNs and the
/// emulator accept.
@Suite("The provider token's JSON is byte for byte what JSONSerialization wrote")
struct ProviderTokenJSONTests {
    static func serialized(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test(
        "a minted token's header and claims, for a few ids and times",
        arguments: [
            ("ABC123DEFG", "TEAM123456", 1_796_000_000.9), ("K", "T", 0), ("Ünïcødé9", "٣٤٥TEAM", 4_102_444_800),
            ("0000000000", "ZZZZZZZZZZ", 1_000_000_000),
        ] as [(String, String, Double)])
    func minted(keyID: String, teamID: String, seconds: Double) throws {
        let tokens = try APNsProviderToken(
            key: try PrivateKey.generate(.es256), keyID: keyID, teamID: teamID,
            clock: ManualWallClock(Date(timeIntervalSince1970: seconds)))
        let parts = try #require(JWS.parse(try tokens.current()))
        #expect(
            String(decoding: parts.header, as: UTF8.self) == (try Self.serialized(["alg": "ES256", "kid": keyID])))
        #expect(
            String(decoding: parts.claims, as: UTF8.self)
                == (try Self.serialized(["iss": teamID, "iat": Int64(seconds.rounded(.down))])))
    }

    @Test("strings the id checks refuse today are still escaped as JSONSerialization escapes them")
    func escaping() throws {
        for text in [
            #"quote""#, #"back\slash"#, "a/b", "\u{01}\u{08}\t\n\u{0C}\r\u{1F}", "é😀", "\u{7F}", "",
        ] {
            let ours = String(decoding: APNsProviderToken.headerJSON(keyID: text), as: UTF8.self)
            #expect(ours == (try Self.serialized(["alg": "ES256", "kid": text])), "\(text.debugDescription)")
        }
        #expect(
            String(decoding: APNsProviderToken.claimsJSON(teamID: "T", issuedAt: -5), as: UTF8.self)
                == (try Self.serialized(["iss": "T", "iat": Int64(-5)])))
    }
}
