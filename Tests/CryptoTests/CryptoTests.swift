import DropTrackCore
import DropTrackCrypto
import DropTrackModel
import DropTrackProviders
import DropTrackSHA256
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@Suite("Keys, signatures and JWTs")
struct CryptoTests {
    @Test("SHA-256 in plain Swift matches the FIPS test vectors")
    func sha256() {
        #expect(
            String(hexEncoding: SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            String(hexEncoding: SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(
            String(hexEncoding: SHA256.hash(long)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(Fingerprint(of: "abc").value == "ba7816bf8f01cfea")
    }

    @Test("ES256 signatures are raw 64-byte r‖s and verify; 300 of them exercise the zero-padding path")
    func es256() throws {
        let key = try PrivateKey.generate(.es256)
        let publicKey = key.publicKey
        for index in 0..<300 {
            let message = Array("message \(index)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(publicKey.verify(signature: signature, for: message))
            let der = try ECDSASignature.derFromRaw(signature)
            #expect(try ECDSASignature.rawFromDER(der) == signature)
            #expect(publicKey.verify(signature: der, for: message))
        }
        var tampered = try key.sign([1, 2, 3])
        tampered[10] ^= 0xff
        #expect(!publicKey.verify(signature: tampered, for: [1, 2, 3]))
    }

    @Test("the provider token has header {alg, kid}, claims {iss, iat as a number}, and verifies")
    func providerToken() throws {
        let key = try PrivateKey.generate(.es256)
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let tokens = try APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "TEAM123456", clock: clock)
        let jwt = try tokens.current()
        let parts = try #require(JWS.parse(jwt))
        #expect(String(decoding: parts.header, as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(String(decoding: parts.claims, as: UTF8.self) == #"{"iat":1796000000,"iss":"TEAM123456"}"#)
        #expect(parts.signature.count == 64)
        #expect(parts.verify(with: key.publicKey))
        #expect(!parts.verify(with: try PrivateKey.generate(.es256).publicKey))
    }

    @Test("the provider token is renewed at 50 minutes of monotonic age, whatever the wall clock does")
    func providerTokenTiming() throws {
        let wall = ManualWallClock(unixSeconds: 1_796_000_000)
        let monotonic = ManualMonotonicClock()
        let tokens = try APNsProviderToken(
            key: try PrivateKey.generate(.es256), keyID: "K", teamID: "T", clock: wall, monotonic: monotonic.now)
        let first = try tokens.current()
        // The wall clock stepped an hour forward, then two back: the token stays (aged by the wall clock,
        // each step made a new one, which APNs refused on connections that had just had one).
        wall.advance(by: 3600)
        #expect(try tokens.current() == first)
        wall.advance(by: -7200)
        #expect(try tokens.current() == first)
        monotonic.advance(by: .seconds(49 * 60))
        #expect(try tokens.current() == first)
        monotonic.advance(by: .seconds(60))
        let second = try tokens.current()
        #expect(second != first)
        #expect(tokens.tokensMinted == 2)
        // Its iat is the wall clock's, the only thing the wall clock is read for.
        let claims = try #require(JWS.parse(second)).claims
        #expect(String(decoding: claims, as: UTF8.self) == #"{"iat":1795996400,"iss":"T"}"#)
    }

    @Test("each wall-clock jump is logged once, naming the jump and what the server does about it")
    func providerTokenClockJump() throws {
        let wall = ManualWallClock(unixSeconds: 1_796_000_000)
        let monotonic = ManualMonotonicClock()
        let logs = InMemoryLogHandler()
        let tokens = try APNsProviderToken(
            key: try PrivateKey.generate(.es256), keyID: "K", teamID: "T", clock: wall, monotonic: monotonic.now,
            logger: Logger(handler: logs, minimumLevel: .info))
        _ = try tokens.current()
        // Both clocks moving together, and a step under a minute, are no jump.
        wall.advance(by: 600)
        monotonic.advance(by: .seconds(600))
        wall.advance(by: 59)
        _ = try tokens.current()
        #expect(logs.entries.isEmpty)
        wall.advance(by: 3600)
        for _ in 0..<3 { _ = try tokens.current() }
        wall.advance(by: -3600)
        _ = try tokens.current()
        let jumps = logs.entries.filter { $0.message == "apns.clock_jump" }
        #expect(jumps.map(\.level) == [.warning, .warning])
        #expect(jumps.map { $0.metadata["jump_seconds"] } == ["3659", "-3600"])
        #expect(jumps.first?.metadata["effect"]?.contains("monotonic clock") == true)
        #expect(jumps.first?.metadata["fix"]?.contains("chrony") == true)
    }

    @Test("after ExpiredProviderToken a token at least 10 s old is renewed once, however many sends saw it refused")
    func providerTokenRenewal() throws {
        let monotonic = ManualMonotonicClock()
        let tokens = try APNsProviderToken(
            key: try PrivateKey.generate(.es256), keyID: "K", teamID: "T", monotonic: monotonic.now)
        let first = try tokens.current()
        #expect(!tokens.renew(rejected: first), "a token 0 s old: a new one would carry the same iat")
        monotonic.advance(by: .seconds(10))
        #expect(tokens.renew(rejected: first))
        let second = try tokens.current()
        #expect(second != first)
        #expect(tokens.renew(rejected: first), "another send refused with the old token: already renewed")
        #expect(try tokens.current() == second)
        #expect(tokens.tokensMinted == 2)
    }

    @Test("two callers at start-up get one token: the one that waited does not take the other's as from the future")
    func providerTokenRace() throws {
        // The first caller reads the clock (an instant before the second's) and is held there; the second
        // makes the token meanwhile. Read outside the lock, the first's instant predated that token and it
        // made a second one: APNs answers two on one connection with TooManyProviderTokenUpdates.
        let clock = HeldFirstReadClock(base: Date(timeIntervalSince1970: 1_796_000_000))
        let tokens = try APNsProviderToken(key: try PrivateKey.generate(.es256), keyID: "K", teamID: "T", clock: clock)
        let first = onThread { try tokens.current() }
        #expect(clock.firstReadStarted.wait(timeout: .seconds(5)) != nil)
        // With the clock read under the lock, this caller waits for the first: give it a moment, then let go.
        let second = onThread { try tokens.current() }
        _ = second.wait(timeout: .milliseconds(300))
        clock.releaseFirstRead.resolve(())
        let tokenOfFirst = try #require(first.wait(timeout: .seconds(5))).get()
        let tokenOfSecond = try #require(second.wait(timeout: .seconds(5))).get()
        #expect(Fingerprint(of: tokenOfFirst) == Fingerprint(of: tokenOfSecond), "one token for both callers")
        #expect(tokens.tokensMinted == 1)
    }

    @Test("refresh intervals outside 20–59 minutes are clamped")
    func clamp() throws {
        let key = try PrivateKey.generate(.es256)
        #expect(
            try APNsProviderToken(key: key, keyID: "K", teamID: "T", refreshInterval: 60).refreshInterval == 20 * 60)
        #expect(
            try APNsProviderToken(key: key, keyID: "K", teamID: "T", refreshInterval: 7200).refreshInterval == 59 * 60)
    }

    @Test("key files: unreadable or not P-256 gives an error naming the file")
    func keyErrors() throws {
        let directory = makeTemporaryDirectory("keys")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = directory + "/AuthKey_NOPE.p8"
        #expect {
            _ = try PrivateKey(pemFile: missing, expected: .es256)
        } throws: { error in
            (error as? CryptoError)?.code == .unreadableFile && "\(error)".contains(missing)
        }
        let rsaFile = directory + "/rsa.p8"
        try PrivateKey.generate(.rs256).pkcs8PEM.write(toFile: rsaFile, atomically: true, encoding: .utf8)
        #expect {
            _ = try PrivateKey(pemFile: rsaFile, expected: .es256)
        } throws: { error in
            (error as? CryptoError)?.code == .wrongKeyType && "\(error)".contains(rsaFile)
                && "\(error)".contains("P-256")
        }
        let garbage = directory + "/garbage.p8"
        try "not a key".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect {
            _ = try PrivateKey(pemFile: garbage, expected: .es256)
        } throws: { error in
            (error as? CryptoError)?.code == .malformedPEM && "\(error)".contains(garbage)
        }
    }

    @Test("RS256 signs with PKCS#1 v1.5 and verifies")
    func rs256() throws {
        let key = try PrivateKey.generate(.rs256)
        let signature = try key.sign(Array("x".utf8))
        #expect(signature.count == 256)
        #expect(key.publicKey.verify(signature: signature, for: Array("x".utf8)))
    }

    @Test("PEM round trip: the written key reads back and signs the same way")
    func pemRoundTrip() throws {
        let key = try PrivateKey.generate(.es256)
        let reread = try PrivateKey(pem: Data(key.pkcs8PEM.utf8), expected: .es256)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let signature = try reread.sign([9])
        #expect(key.publicKey.verify(signature: signature, for: [9]))
    }
}

/// Runs `body` on a thread of its own; the latch holds what it returned or threw.
private func onThread(_ body: @escaping @Sendable () throws -> String) -> Latch<Result<String, any Error>> {
    let done = Latch<Result<String, any Error>>()
    Thread { done.resolve(Result { try body() }) }.start()
    return done
}

/// A clock whose first reading waits until the test lets it go and returns an earlier instant than
/// every later reading, as a thread descheduled between reading the clock and taking a lock would.
private final class HeldFirstReadClock: WallClock {
    let firstReadStarted = Latch<Void>()
    let releaseFirstRead = Latch<Void>()
    private let base: Date
    private let reads = Atomic<Int>(0)

    init(base: Date) { self.base = base }

    func now() -> Date {
        guard reads.add(1, ordering: .relaxed).oldValue == 0 else { return base + 0.001 }
        firstReadStarted.resolve(())
        _ = releaseFirstRead.wait(timeout: .seconds(5))
        return base
    }
}
