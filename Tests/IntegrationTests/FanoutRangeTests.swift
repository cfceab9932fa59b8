import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@Suite("Fan-out range jobs through the dispatcher and the APNs emulator")
struct FanoutRangeTests {
    let orders = DispatchTests()

    private func registerUpdateTokens(_ server: ServerHarness, activity: String, count: Int) throws -> [String] {
        let tokens = (0..<count).map { _ in APNsHarness.randomToken() }
        for (index, token) in tokens.enumerated() {
            try orders.registerUpdateToken(server, activity: activity, device: "p\(index)", token: token)
        }
        return tokens
    }

    @Test("below fanoutRangeMinimum each update token gets a row and a timeline entry; from it, range passes")
    func minimumPicksThePath() throws {
        let server = try ServerHarness { $0.fanoutRangeMinimum = 5 }
        defer { server.stop() }
        let step = #"{"type":"delivery.step","data":{"step":"confirmed"}}"#
        for (id, count) in [("o-few", 4), ("o-many", 5)] {
            try orders.startOrder(server, id: id)
            _ = try registerUpdateTokens(server, activity: id, count: count)
            try server.drain()
            let answer = try server.registry.applyEvent(app: "app1", activityId: id, body: server.json(step))
            #expect(answer["destinations"]?.numberValue == Double(count))
            try server.drain()
            let version = try #require(try server.store.transaction { try $0.activity(app: "app1", id: id) }).version
            let timeline = try server.store.transaction { try $0.timeline(app: "app1", activityId: id, limit: 1000) }
                .filter { $0.version == version }
            let passes = timeline.filter { $0.reason == "fanout_pass" }.count
            let perToken = timeline.filter { $0.reason == "ok" && $0.destination.tokenFingerprint != nil }.count
            if count < 5 {
                #expect(passes == 0 && perToken == count, "\(id): \(timeline.map(\.reason))")
            } else {
                #expect(passes > 0 && perToken == 0, "\(id): \(timeline.map(\.reason))")
            }
        }
    }

    @Test(
        "an event reaches every update token through its ranges: one summary entry per range pass, per-token entries only for failures",
        arguments: StoreEngine.allCases)
    func summaries(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine) { $0.fanoutRangeMinimum = 0 }
        defer { server.stop() }
        try orders.startOrder(server, id: "o-r1")
        let tokens = try registerUpdateTokens(server, activity: "o-r1", count: 40)
        try server.drain()
        let (dead, flaky) = (tokens[0], tokens[1])
        server.apns.emulator.setFaults([
            APNsFault(kind: .unregistered, token: dead), APNsFault(kind: .serviceUnavailable, token: flaky, times: 1),
        ])
        let answer = try server.registry.applyEvent(
            app: "app1", activityId: "o-r1", body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#)
        )
        #expect(answer["destinations"]?.numberValue == 40)
        try server.drain()
        let activity = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "o-r1") })
        for token in tokens.dropFirst() {
            let last = server.apns.emulator.latestAccepted(forToken: token)
            #expect(last?.event == "update" && last?.timestamp == activity.timestamp)
        }
        #expect(server.apns.emulator.records(forToken: flaky).count == 2, "refused once, then sent as its own row")
        #expect(
            try server.store.transaction { try $0.token(app: "app1", fingerprint: Fingerprint(of: dead)) }?
                .isValid == false)
        #expect(try server.store.transaction { try $0.fanoutJobs(app: "app1", activityId: "o-r1") }.isEmpty)
        let timeline = try server.store.transaction { try $0.timeline(app: "app1", activityId: "o-r1", limit: 1000) }
            .filter { $0.version == activity.version }
        let passes = timeline.filter { $0.reason == "fanout_pass" }
        // Every token counted once across the passes (the flaky one's first send included).
        let counted = passes.compactMap { $0.note?.split(separator: " ").dropFirst(2).first.flatMap { Int($0) } }
        #expect(counted.reduce(0, +) == 40, "\(passes.map { $0.note ?? "" })")
        #expect(passes.allSatisfy { $0.destination.stored.hasPrefix("range:") && ($0.note ?? "").contains("p99") })
        let perToken = timeline.filter { $0.destination.tokenFingerprint != nil }
        #expect(Set(perToken.map(\.destination)) == [.token(Fingerprint(of: dead)), .token(Fingerprint(of: flaky))])
        #expect(perToken.filter { $0.reason == "ok" }.map(\.destination) == [.token(Fingerprint(of: flaky))])
        #expect(server.metrics.histogramTotals("droptrack_fanout_lag_seconds").count > 0)
    }

    @Test(
        "a worker that dies in the middle of a range: after its lease another resumes at the committed cursor",
        arguments: StoreEngine.allCases)
    func resumesAtCursor(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine) {
            $0.leaseSeconds = 0.3
            $0.fanoutRangeMinimum = 0
        }
        defer { server.stop() }
        try orders.startOrder(server, id: "o-r2")
        let tokens = try registerUpdateTokens(server, activity: "o-r2", count: 64)
        try server.drain()
        let byFingerprint = Dictionary(uniqueKeysWithValues: tokens.map { (Fingerprint(of: $0), $0) })
        // The range with the most tokens; the dead worker committed its first two.
        let ranges = Dictionary(grouping: byFingerprint.keys.sorted()) { fingerprint in
            (0..<FanoutJob.rangeCount).first { FanoutJob.contains($0, fingerprint) } ?? 0
        }
        let (range, inRange) = try #require(ranges.max { $0.value.count < $1.value.count })
        #expect(inRange.count >= 5)
        let before = server.apns.emulator.records(after: 0).count
        let now = Date()
        try server.store.transaction { tx in
            let activity = try #require(try tx.activity(app: "app1", id: "o-r2"))
            try tx.requestFanout(app: "app1", activityId: "o-r2", version: activity.version, availableAt: now, now: now)
            // All in one transaction, so the live dispatcher sees only the end: the dead worker holds every
            // range, and range `range` has a cursor after its second token.
            _ = try tx.claimFanout(app: "app1", limit: 16, owner: "dead-worker", until: now + 0.3, now: now)
            _ = try tx.advanceFanout(
                app: "app1", activityId: "o-r2", range: range, cursor: inRange[1], summary: nil, owner: "dead-worker",
                availableAt: now)
            _ = try tx.claimFanout(app: "app1", limit: 16, owner: "dead-worker", until: now + 0.3, now: now)
        }
        usleep(400_000)
        server.dispatcher.wake()
        try server.drain()
        let sent = Set(server.apns.emulator.records(after: 0).dropFirst(before).compactMap(\.tokenFingerprint))
        #expect(
            sent == Set(byFingerprint.keys.map(\.value)).subtracting(inRange[..<2].map(\.value)),
            "resent after the cursor, not before")
        let timeline = try server.store.transaction { try $0.timeline(app: "app1", activityId: "o-r2", limit: 1000) }
        // Every range the dead worker held was taken over after its lease; the one with a cursor sent only
        // what came after it.
        let passes = timeline.filter { $0.reason == "fanout_pass" }
        #expect(!passes.isEmpty && passes.allSatisfy { ($0.note ?? "").contains("resumed 1×") })
        let digit = String(Array("0123456789abcdef")[range])
        let note = try #require(passes.first { $0.destination.stored == "range:" + digit }?.note)
        #expect(note.hasPrefix("range:\(digit) sent \(inRange.count - 2) "), "\(note)")
    }

    @Test(
        "a range row that cannot be read goes to the dead letters; another activity's fan-out of the app still goes out",
        arguments: [StoreEngine.sqlite] + (PostgresTestServer.enabled ? [.postgres] : []))
    func corruptRangeSetAside(engine: StoreEngine) throws {
        // A store of our own, so its rows can be changed behind its back as a hand edit would.
        let (store, corrupt): (any DeliveryStore, (String) throws -> Void)
        if engine == .postgres {
            let url = try PostgresTestServer.freshSchema().url
            (store, corrupt) = (try PostgresStore(url: url), { _ = try PostgresTestServer.psql(url, $0) })
        } else {
            let path = makeTemporaryDirectory("corrupt-range") + "/droptrack.sqlite"
            (store, corrupt) = (try SQLiteStore(path: path), { try Self.sqlite3(path, $0) })
        }
        let server = try ServerHarness(engine: engine, store: store) { $0.fanoutRangeMinimum = 0 }
        defer { server.stop() }
        try orders.startOrder(server, id: "o-bad")
        try orders.startOrder(server, id: "o-good")
        let tokens = try registerUpdateTokens(server, activity: "o-good", count: 12)
        try server.drain()
        // Due since 1970, so it leads every claim of app1.
        try corrupt(
            """
            INSERT INTO fanout_jobs (app, activity_id, range_index, requested_version, pass_version, cursor_fingerprint,
              first_queued_at, available_at) VALUES ('app1', 'o-bad', 7, 1, 1, 'NOT-A-FINGERPRINT', 0, 0)
            """)
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-good",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        let drained = (try? server.drain(timeout: .seconds(5))) != nil
        #expect(drained, "a corrupt row used to fail every claim of the app")
        let activity = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "o-good") })
        for token in tokens {
            #expect(server.apns.emulator.latestAccepted(forToken: token)?.timestamp == activity.timestamp)
        }
        #expect(try server.store.transaction { try $0.outboxStats() }.deadLetters == 1)
    }

    static func sqlite3(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-cmd", ".timeout 5000", "-bail", path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sqlite3 \(path): \(sql)")
    }
}
