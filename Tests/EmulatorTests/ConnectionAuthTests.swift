import DropTrackWire
import Foundation
import Testing

@testable import DropTrackEmulators

/// `ConnectionAuth` event by event: APNs' provider-token rules for one connection, with no socket.
@Suite("The APNs emulator's per-connection provider-token state")
struct ConnectionAuthTests {
    static let start = Date(timeIntervalSince1970: 1_796_000_000)
    static let issued = Int64(start.timeIntervalSince1970)

    static func jwt(_ name: String, issuedAt: Int64 = issued) -> ConnectionAuth.Event {
        .verified(header: "bearer \(name)", jwt: name, issuedAt: issuedAt)
    }

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test("no header and an unverifiable one are refused, and change nothing")
    func missingAndInvalid() {
        var auth = ConnectionAuth()
        #expect(auth.handle(.missing, now: Self.start) == .reject(.missingProviderToken))
        #expect(auth.handle(.unverifiable, now: Self.start) == .reject(.invalidProviderToken))
        #expect(auth == ConnectionAuth())
    }

    @Test("the first good token is accepted, says it is the first, and is remembered by its header")
    func firstToken() {
        var auth = ConnectionAuth()
        #expect(auth.handle(Self.jwt("A"), now: Self.start) == .accept(firstValidToken: true))
        #expect(auth.token == "A")
        #expect(auth.tokenSince == Self.start)
        let reused = auth.reusable(header: "bearer A")
        #expect(reused?.jwt == "A" && reused?.issuedAt == Self.issued)
        #expect(auth.reusable(header: "bearer B") == nil)
    }

    @Test("the same token again is accepted, not as the first, and does not restart the change timer")
    func reuse() {
        var auth = ConnectionAuth()
        _ = auth.handle(Self.jwt("A"), now: Self.start)
        #expect(auth.handle(Self.jwt("A"), now: Self.at(600)) == .accept(firstValidToken: false))
        #expect(auth.tokenSince == Self.start)
    }

    @Test("a changed token within 20 minutes is TooManyProviderTokenUpdates and leaves the old one in force")
    func changeTooSoon() {
        var auth = ConnectionAuth()
        _ = auth.handle(Self.jwt("A"), now: Self.start)
        let before = auth
        #expect(auth.handle(Self.jwt("B"), now: Self.at(20 * 60 - 1)) == .reject(.tooManyProviderTokenUpdates))
        #expect(auth == before)
        #expect(auth.handle(Self.jwt("A"), now: Self.at(20 * 60 - 1)) == .accept(firstValidToken: false))
    }

    @Test("a changed token after 20 minutes replaces the old one, and the next change waits 20 minutes from then")
    func changeAfterTwentyMinutes() {
        var auth = ConnectionAuth()
        _ = auth.handle(Self.jwt("A"), now: Self.start)
        #expect(
            auth.handle(Self.jwt("B", issuedAt: Self.issued + 1200), now: Self.at(1200))
                == .accept(firstValidToken: false))
        #expect(auth.token == "B" && auth.tokenSince == Self.at(1200))
        #expect(auth.reusable(header: "bearer A") == nil)
        #expect(
            auth.handle(Self.jwt("C", issuedAt: Self.issued + 1300), now: Self.at(1300))
                == .reject(.tooManyProviderTokenUpdates))
    }

    @Test("a token issued over an hour ago is ExpiredProviderToken, reused or new")
    func expiry() {
        var auth = ConnectionAuth()
        #expect(auth.handle(Self.jwt("A"), now: Self.at(3600)) == .accept(firstValidToken: true))
        let before = auth
        #expect(auth.handle(Self.jwt("A"), now: Self.at(3601)) == .reject(.expiredProviderToken))
        #expect(auth == before)
        var fresh = ConnectionAuth()
        #expect(
            fresh.handle(Self.jwt("old", issuedAt: Self.issued - 3601), now: Self.start)
                == .reject(.expiredProviderToken))
        #expect(fresh == ConnectionAuth())
    }

    @Test("an expired token does not count as the connection's first good one")
    func expiredIsNotFirst() {
        var auth = ConnectionAuth()
        _ = auth.handle(Self.jwt("old", issuedAt: Self.issued - 4000), now: Self.start)
        #expect(auth.handle(Self.jwt("A"), now: Self.start) == .accept(firstValidToken: true))
    }

    @Test("a token issued more than 5 minutes ahead of the emulator's clock is InvalidProviderToken; 5 minutes is skew")
    func futureIssuedAt() {
        var auth = ConnectionAuth()
        #expect(
            auth.handle(Self.jwt("ahead", issuedAt: Self.issued + 301), now: Self.start)
                == .reject(.invalidProviderToken))
        #expect(auth == ConnectionAuth())
        #expect(
            auth.handle(Self.jwt("skewed", issuedAt: Self.issued + 300), now: Self.start)
                == .accept(firstValidToken: true))
    }
}
