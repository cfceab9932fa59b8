import DropTrackCore
import DropTrackCrypto
import DropTrackProviders
import Testing

/// ECDSA's malleability: (r, s) and (r, n−s) both verify. Every ES256 signature made here is the low
/// one, so the strict verifiers (device credentials) never refuse the server's own.
@Suite("Low-s ES256 signatures")
struct LowSTests {
    @Test("every ES256 signature made here has s ≤ n/2; its twin (r, n−s) still verifies with OpenSSL and is high")
    func signaturesAreLowS() throws {
        let key = try PrivateKey.generate(.es256)
        for index in 0..<200 {
            let message = Array("message \(index)".utf8)
            let signature = try key.sign(message)
            #expect(ECDSASignature.isLowS(signature), "signature \(index)")
            let twin = ECDSASignature.twin(signature)
            #expect(twin != signature && ECDSASignature.twin(twin) == signature)
            #expect(key.publicKey.verify(signature: twin, for: message), "the twin is valid: refusing it is a choice")
            #expect(!ECDSASignature.isLowS(twin))
            #expect(ECDSASignature.lowS(twin) == signature)
        }
    }

    @Test("the twin is n − s, borrowing across bytes: s = 1 gives n − 1, and n/2 is the largest low s")
    func twinArithmetic() {
        let r = [UInt8](repeating: 0x11, count: 32)
        let one = r + [UInt8](repeating: 0, count: 31) + [1]
        let orderMinusOne: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x50,
        ]
        #expect(ECDSASignature.twin(one) == r + orderMinusOne)
        #expect(ECDSASignature.isLowS(one) && !ECDSASignature.isLowS(r + orderMinusOne))
        let half: [UInt8] = [
            0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8,
        ]
        var aboveHalf = half
        aboveHalf[31] += 1
        #expect(ECDSASignature.isLowS(r + half) && !ECDSASignature.isLowS(r + aboveHalf))
        #expect(!ECDSASignature.isLowS(Array(one.prefix(63))), "not 64 bytes: not a low-s signature either")
    }

    @Test("the APNs provider tokens the server mints are low-s too")
    func providerTokensLowS() throws {
        let key = try PrivateKey.generate(.es256)
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        for index in 0..<64 {
            // A new minter each time: each makes its first token, signed afresh (ECDSA's nonce is random).
            let tokens = try APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "TEAM123456", clock: clock)
            let parts = try #require(JWS.parse(try tokens.current()))
            #expect(ECDSASignature.isLowS(parts.signature), "token \(index)")
        }
    }
}
