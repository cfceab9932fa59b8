/// The two valid ECDSA signatures of one message: whoever holds a signature (r, s) can make its twin
/// (r, n−s), which verifies as well, without the key. Accepting both lets a token be re-encoded into
/// another string that still passes, so whatever is keyed by the token's bytes can be dodged. The low
/// form (s ≤ n/2, as BIP 62 and libsecp256k1 define it) is the one kept: every ES256 signature made
/// here is normalized to it, and device credentials accept it only.
extension ECDSASignature {
    /// The order n of P-256's group, big-endian.
    static let order: [UInt8] = bytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
    /// n/2 rounded down: the largest low s.
    static let halfOrder: [UInt8] = bytes("7FFFFFFF800000007FFFFFFFFFFFFFFFDE737D56D38BCF4279DCE5617E3192A8")

    /// True when `raw` is a 64-byte r‖s whose s is at most n/2.
    public static func isLowS(_ raw: [UInt8]) -> Bool {
        guard raw.count == 64 else { return false }
        for (byte, limit) in zip(raw[32...], halfOrder) where byte != limit { return byte < limit }
        return true
    }

    /// The twin (r, n−s) of a 64-byte r‖s: it verifies for the same message and key. `raw` must have
    /// 0 < s < n, which every valid signature has.
    public static func twin(_ raw: [UInt8]) -> [UInt8] {
        precondition(raw.count == 64, "a raw ES256 signature is 64 bytes")
        var result = raw
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(order[index]) - Int(raw[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            result[32 + index] = UInt8(difference + borrow * 256)
        }
        return result
    }

    /// `raw` with its s made low: unchanged when it is, else its twin.
    public static func lowS(_ raw: [UInt8]) -> [UInt8] { isLowS(raw) ? raw : twin(raw) }

    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
        }
    }
}
