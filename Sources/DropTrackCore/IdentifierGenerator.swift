import Synchronization

/// Makes lowercase UUID-shaped ids (`apns-id`, request ids) without a system call per id:
/// a random 64-bit prefix drawn once, then a counter. Unique within the process and unguessable
/// across processes, which is all these ids need; `Foundation.UUID()` read /dev/urandom each time
/// and showed up in the emulator's profile.
public final class IdentifierGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    /// Creates a generator with a fresh random prefix.
    public init() { prefix = UInt64.random(in: 0...UInt64.max) }

    /// Creates a generator that yields predictable ids (for tests).
    public init(prefix: UInt64) { self.prefix = prefix }

    /// The next id, e.g. `1b4e28ba-2fa1-41d2-883f-0016d3cca427`.
    public func next() -> String {
        let low = counter.add(1, ordering: .relaxed).newValue
        let prefix = self.prefix
        return String(unsafeUninitializedCapacity: 36) { out in
            let digits: StaticString = "0123456789abcdef"
            func put(_ value: UInt64, nibbles: Int, at position: Int) {
                for index in 0..<nibbles {
                    let nibble = Int((value >> UInt64(4 * (nibbles - 1 - index))) & 0xF)
                    out[position + index] = digits.utf8Start[nibble]
                }
            }
            for dash in [8, 13, 18, 23] { out[dash] = UInt8(ascii: "-") }
            put(prefix >> 32, nibbles: 8, at: 0)
            put((prefix >> 16) & 0xFFFF, nibbles: 4, at: 9)
            // Version 4 and the RFC 4122 variant, so strict UUID parsers accept the ids.
            put(0x4000 | ((prefix >> 4) & 0x0FFF), nibbles: 4, at: 14)
            put(0x8000 | ((low >> 48) & 0x3FFF), nibbles: 4, at: 19)
            put(low & 0xFFFF_FFFF_FFFF, nibbles: 12, at: 24)
            return 36
        }
    }
}
