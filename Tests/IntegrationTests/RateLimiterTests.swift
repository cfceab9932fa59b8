import DropTrackAPI
import DropTrackCore
import Testing

/// The rate limiter's buckets (per API key, per user of an app, per signing-in address) are pruned:
/// the keys come from callers, and a map that only grew was a slow leak a busy server never recovered.
@Suite("Rate limiter")
struct RateLimiterTests {
    @Test("buckets idle long enough to refill are dropped when new keys arrive: the map shrinks")
    func idleBucketsDropped() {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        // 5 a second, bursts of 20: an idle bucket is full again after 4 s.
        let limiter = RateLimiter(rate: 5, burst: 20, capacity: 64, clock: clock)
        for user in 0..<64 { #expect(limiter.take("app1\u{0}u\(user)") == nil) }
        #expect(limiter.count == 64)
        clock.advance(by: 4)
        #expect(limiter.take("app1\u{0}newcomer") == nil)
        #expect(limiter.count == 1, "the 64 refilled buckets are gone; only the newcomer's is kept")
    }

    @Test("pruning changes no answer: a bucket still spent is kept, so its user stays held back")
    func pruningKeepsSpentBuckets() {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let limiter = RateLimiter(rate: 1, burst: 4, capacity: 16, clock: clock)
        for _ in 0..<4 { #expect(limiter.take("busy") == nil) }
        #expect(limiter.take("busy") != nil)
        for user in 0..<15 { #expect(limiter.take("idle-\(user)") == nil) }
        clock.advance(by: 2)
        #expect(limiter.take("newcomer") == nil)
        #expect(limiter.count == 2, "the 15 idle buckets were full again and dropped; busy's was not")
        // Two tokens back in two seconds, not a fresh burst of four.
        #expect(limiter.take("busy") == nil && limiter.take("busy") == nil)
        #expect(limiter.take("busy") != nil)
    }

    @Test("the map stays bounded by its capacity when every request brings a new key and none refills")
    func bounded() {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let limiter = RateLimiter(rate: 1, burst: 20, capacity: 64, clock: clock)
        var largest = 0
        for address in 0..<5_000 {
            _ = limiter.take("10.0.\(address / 256).\(address % 256)")
            largest = max(largest, limiter.count)
        }
        #expect(largest == 64)
        #expect(limiter.count <= 64)
    }
}
