import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The machine's clock set off by a fixed amount, as on a replica whose NTP is broken.
struct ShiftedWallClock: WallClock {
    let seconds: TimeInterval
    func now() -> Date { Date().addingTimeInterval(seconds) }
}

@Suite("The store's clock: replicas agree on time through the database")
struct StoreClockTests {
    @Test(
        "a replica whose clock runs an hour ahead reads the database's time, so it cannot take over a lease another replica holds",
        arguments: StoreEngine.allCases)
    func skewedReplicaKeepsLeases(engine: StoreEngine) throws {
        let store = try engine.make()
        let honest = StoreClock(base: SystemWallClock(), store: store)
        let ahead = StoreClock(base: ShiftedWallClock(seconds: 3600), store: store)
        let honestOffset = try honest.synchronize()
        let aheadOffset = try ahead.synchronize()
        if engine == .postgres {
            #expect(abs(try #require(honestOffset)) < 5)
            #expect(abs(try #require(aheadOffset) + 3600) < 5)
            #expect(abs(ahead.now().timeIntervalSince(honest.now())) < 5)
        } else {
            #expect(honestOffset == nil && aheadOffset == nil, "one process: its own clock is the authority")
            #expect(ahead.offsetSeconds == 0)
        }
        let now = honest.now()
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now, now: now)
        }
        let held = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "honest", until: now + 30, now: now)
        }
        #expect(held.count == 1)
        let aheadNow = ahead.now()
        let taken = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "ahead", until: aheadNow + 30, now: aheadNow)
        }
        if engine == .postgres {
            #expect(taken.isEmpty, "the lease runs out in 30 s by the database's clock")
        } else {
            // What the skew does without a shared clock: the lease looks an hour old and is taken.
            #expect(taken.count == 1)
        }
    }

    @Test(
        "an offset beyond a second is logged once with the fix, and its recovery once",
        .enabled(if: PostgresTestServer.enabled, "needs a store with its own clock"))
    func offsetWarning() throws {
        let store = try StoreEngine.postgres.make()
        let logs = InMemoryLogHandler()
        let base = ManualWallClock(Date().addingTimeInterval(-120))
        let clock = StoreClock(base: base, store: store, logger: Logger(handler: logs, minimumLevel: .debug))
        try clock.synchronize()
        try clock.synchronize()
        let warnings = logs.entries.filter { $0.message == "clock.offset" }
        #expect(warnings.count == 1)
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["fix"]?.contains("NTP") == true)
        #expect(abs(clock.offsetSeconds - 120) < 5)
        base.set(Date())
        try clock.synchronize()
        #expect(logs.entries.filter { $0.message == "clock.offset_recovered" }.count == 1)
        #expect(abs(clock.offsetSeconds) < 5)
    }

    @Test(
        "reading the clock keeps it fresh: a stale offset is measured again on a thread of its own; a store without a clock keeps the machine's time",
        arguments: StoreEngine.allCases)
    func staysFresh(engine: StoreEngine) throws {
        let store = try engine.make()
        let base = ManualWallClock(Date())
        let clock = StoreClock(base: base, store: store, resynchronizeInterval: .milliseconds(100))
        try clock.synchronize()
        // The machine's clock steps back two minutes (a bad NTP step).
        base.set(Date().addingTimeInterval(-120))
        let deadline = ContinuousClock.now + .seconds(5)
        while engine == .postgres && ContinuousClock.now < deadline && abs(clock.now().timeIntervalSince(Date())) > 5 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        if engine == .postgres {
            #expect(abs(clock.now().timeIntervalSince(Date())) < 5, "back on the database's time")
            #expect(abs(clock.offsetSeconds - 120) < 5)
        } else {
            #expect(clock.offsetSeconds == 0)
            #expect(abs(clock.now().timeIntervalSince(Date()) + 120) < 5, "one process: its own clock is the authority")
        }
    }

    @Test(
        "the server reads the store's clock unless a test injects one, and publishes the offset",
        arguments: StoreEngine.allCases)
    func serverPublishesOffset(engine: StoreEngine) throws {
        let server = try DropTrackServer(
            configuration: ServerConfiguration(
                listen: "127.0.0.1:0", store: "memory",
                apps: [AppConfiguration(id: "app1", bundleId: APNsHarness.bundleID)]),
            logger: Logger(handler: InMemoryLogHandler()), store: try engine.make())
        let line = try #require(
            server.metrics.render().split(separator: "\n").first { $0.hasPrefix("droptrack_clock_offset_seconds ") })
        let offset = try #require(Double(line.split(separator: " ")[1]))
        if engine == .postgres {
            #expect(offset != 0 && abs(offset) < 5, "measured against PostgreSQL at start-up")
        } else {
            #expect(offset == 0)
        }
    }

    @Test("POST /v1/doctor fills the clock skew the providers' Date headers showed, and names DT-064")
    func doctorSeesProviderClock() throws {
        let key = AppConfiguration.newAPIKey(app: "app1")
        let server = try DropTrackServer(
            configuration: ServerConfiguration(
                listen: "127.0.0.1:0", store: "memory",
                apps: [AppConfiguration(id: "app1", bundleId: APNsHarness.bundleID, apiKeyHashes: [key.hash])]),
            logger: Logger(handler: InMemoryLogHandler()),
            transport: RecordingTransport(providerClockOffsets: ["apns": -900]), store: MemoryStore())
        func doctor() -> JSONValue {
            let curl =
                "curl -X POST https://api.sandbox.push.apple.com/3/device/\(APNsHarness.randomToken()) -H 'apns-topic: \(APNsHarness.bundleID).push-type.liveactivity' -H 'apns-push-type: liveactivity' -d '{\"aps\":{\"event\":\"update\",\"timestamp\":1796040000,\"content-state\":{\"status\":\"x\"}}}'"
            let request = HTTPRequest(
                method: "POST", path: "/v1/doctor",
                headers: ["authorization": "Bearer \(key.key)", "content-type": "application/json"],
                body: JSONValue.object(["request": .string(curl)]).serialized())
            guard case .response(let response) = server.router.handle(request) else { return .null }
            return (try? JSONValue.parse(bytes: response.body)) ?? .null
        }
        let findings = doctor()["findings"]?.arrayValue ?? []
        #expect(
            findings.contains { $0["id"] == .string("DT-064") && $0["field"] == .string("config.clockSkewSeconds") },
            "\(findings)")
    }
}
