import DropTrackConsole
import DropTrackCore
import DropTrackTesting
import Foundation
import Testing

/// Sign-in under attack, over real HTTP: junk costs nothing, each address has its own attempts.
extension ConsoleTests {
    @Test("junk posts without the CSRF pair spend no sign-in attempt: after 60 of them the real sign-in gets in")
    func junkSpendsNothing() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let harness = try ServerHarness(clock: clock)
        defer { harness.stop() }
        for index in 0..<60 {
            let junk = try post(harness, "/console/login", "key=guess-\(index)", cookie: "")
            #expect(junk.status == 403, "\(index): \(junk.status)")
        }
        let (cookie, _) = try signIn(harness)
        #expect(try get(harness, "/console/", cookie: cookie).status == 200)
    }

    @Test("sign-in attempts are counted per client address, under a ceiling for every address together")
    func attemptsPerAddress() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let harness = try ServerHarness(clock: clock)
        defer { harness.stop() }
        let token = try loginToken(harness)
        func attempt(_ key: String, from address: String) throws -> APIAnswer {
            try harness.call(
                "POST", "/console/login", "key=\(key)&csrf=\(token)", key: nil,
                headers: [
                    "Content-Type": "application/x-www-form-urlencoded", "Cookie": "dt_console_login=\(token)",
                    "Origin": Self.origin,
                ], from: address)
        }
        for _ in 0..<20 { #expect(try attempt("guess", from: "127.0.0.2").status == 401) }
        let held = try attempt("key-app1", from: "127.0.0.2")
        #expect(held.status == 429 && held.headers["retry-after"] == "1")
        #expect(try attempt("key-app1", from: "127.0.0.1").status == 303, "another address is not held back")
        // 21 attempts taken in all; the ceiling is 100 until the clock moves.
        var taken = 21
        for host in 3..<9 {
            for _ in 0..<20 where try attempt("guess", from: "127.0.0.\(host)").status == 401 { taken += 1 }
        }
        #expect(taken == 100)
        let ceiling = try attempt("key-app1", from: "127.0.0.9")
        #expect(ceiling.status == 429 && ceiling.headers["retry-after"] == "1", "a fresh address, over the ceiling")
        clock.advance(by: 1)
        #expect(try attempt("key-app1", from: "127.0.0.9").status == 303)
    }
}
