import DropTrackConsole
import DropTrackCore
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

/// Console sessions end with the key they were opened with, over real HTTP, with the config file
/// edited by the real `droptrack apps` commands and servers restarted from it on a shared store.
extension ConsoleTests {
    @Test(
        "a session opened with key A ends after rotate-key, another after apps remove, and re-adding the app revives neither",
        arguments: StoreEngine.allCases)
    func sessionEndsWithItsKey(engine: StoreEngine) throws {
        let replicas = ConfigReplicas()
        defer { replicas.remove() }
        let store = try engine.make()
        let keyA = try replicas.apps(["add", "--id", "app1"])
        let first = try replicas.replica(store: store)
        defer { first.stop() }
        let (withA, _) = try signIn(first, key: keyA)
        #expect(try get(first, "/console/", cookie: withA).status == 200)

        let keyB = try replicas.apps(["rotate-key", "--id", "app1"])
        let rotated = try replicas.replica(store: store)
        defer { rotated.stop() }
        let afterRotation = try get(rotated, "/console/", cookie: withA)
        #expect(afterRotation.status == 303 && afterRotation.headers["location"] == "/console/login")
        #expect(try get(first, "/console/", cookie: withA).status == 303, "ended in the store, for every replica")
        #expect(
            rotated.logs.entries.contains {
                $0.message == "console.session_ended" && $0.metadata["reason"] == "key_revoked"
            })
        let (withB, _) = try signIn(rotated, key: keyB)
        let (alsoWithB, _) = try signIn(rotated, key: keyB)
        #expect(try get(rotated, "/console/", cookie: withB).status == 200)

        try replicas.apps(["remove", "--id", "app1"])
        let removed = try replicas.replica(store: store)
        defer { removed.stop() }
        #expect(try get(removed, "/console/", cookie: withB).status == 303, "its app is gone")

        let keyC = try replicas.apps(["add", "--id", "app1"])
        let readded = try replicas.replica(store: store)
        defer { readded.stop() }
        #expect(try get(readded, "/console/", cookie: alsoWithB).status == 303, "app1 again, but not key B")
        let (withC, _) = try signIn(readded, key: keyC)
        #expect(try get(readded, "/console/", cookie: withC).text.contains("app1"))
        let logged = [first, rotated, removed, readded].flatMap { $0.logs.entries }
        for key in [keyA, keyB, keyC] {
            #expect(!logged.contains { "\($0.message) \($0.metadata)".contains(key) }, "the key never reaches the log")
        }
    }

    @Test("another app's 260 sign-ins do not end this app's session: the 256 cap is per app")
    func capacityPerApp() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let harness = try ServerHarness(clock: clock)
        defer { harness.stop() }
        let (operatorOfApp2, _) = try signIn(harness, key: "key-app2")
        let token = try loginToken(harness)
        var firstOfApp1: String? = nil
        for _ in 0..<260 {
            clock.advance(by: 1)
            let answer = try post(
                harness, "/console/login", "key=key-app1&csrf=\(token)", cookie: "dt_console_login=\(token)")
            #expect(answer.status == 303)
            if firstOfApp1 == nil { firstOfApp1 = answer.headers["set-cookie"].map { String($0.prefix { $0 != ";" }) } }
        }
        let page = try get(harness, "/console/", cookie: operatorOfApp2)
        #expect(page.status == 200 && page.text.contains("app2"), "the oldest session of all, but app2's")
        let oldest = try #require(firstOfApp1)
        #expect(try get(harness, "/console/", cookie: oldest).status == 303, "app1's oldest went")
        #expect(try harness.server.console?.sessions.count() == 257)
    }
}
