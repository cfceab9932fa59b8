import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// `count` stores on one fresh schema: DropTrack replicas sharing one database.
private func replicas(_ count: Int = 2) throws -> (stores: [PostgresStore], url: String, schema: String) {
    let (url, schema) = try PostgresTestServer.freshSchema()
    return (try (0..<count).map { _ in try PostgresStore(url: url) }, url, schema)
}

/// Two replicas' registries on one fresh schema, with activity `o-1` of app `app1` started.
private func registriesWithOneActivity() throws -> (stores: [PostgresStore], registries: [ActivityRegistry]) {
    let (stores, _, _) = try replicas()
    let configuration = ServerConfiguration(
        listen: "127.0.0.1:0", store: "memory", apps: [AppConfiguration(id: "app1", bundleId: APNsHarness.bundleID)])
    let registries = stores.map {
        ActivityRegistry(
            store: $0, configuration: configuration, clock: SystemWallClock(), examiner: DoctorDeviceExaminer())
    }
    _ = try registries[0].startActivity(
        app: "app1",
        body: try JSONValue.parse(
            #"{"activityId":"o-1","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"1"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"k-1"}"#
        ))
    return (stores, registries)
}

/// Runs `body` on a thread of its own; `wait` returns its error, if any, once it has finished. Not a GCD
/// queue: on two cores the global pool may run blocked or racing work one piece after another, and a
/// test of what happens at the same time would pass without anything happening at the same time.
private final class Background: Sendable {
    private let group = DispatchGroup()
    private let failure = Mutex<String?>(nil)

    init(_ body: @escaping @Sendable () throws -> Void) {
        group.enter()
        Thread { [self] in
            do { try body() } catch { failure.withLock { $0 = "\(error)" } }
            group.leave()
        }.start()
    }

    var isFinished: Bool { group.wait(timeout: .now()) == .success }

    /// The thread's error, or "still running" if it did not finish within 30 s.
    func wait() -> String? {
        guard group.wait(timeout: .now() + 30) == .success else { return "still running after 30 s" }
        return failure.withLock { $0 }
    }
}

/// Runs `body(0)` … `body(count - 1)` at once, each on a thread of its own, and returns their errors.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
    let workers = (0..<count).map { index in Background { try body(index) } }
    return workers.compactMap { $0.wait() }
}

@Suite("PostgreSQL: replicas sharing one database", .enabled(if: PostgresTestServer.enabled))
struct PostgresStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    func enqueue(_ store: any DeliveryStore, _ count: Int) throws {
        let now = self.now
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: (0..<count).map { Fingerprint(of: "f\($0)") }, version: 1,
                availableAt: now,
                now: now)
        }
    }

    @Test("a claim skips the rows another replica holds instead of waiting for them")
    func claimSkipsLockedRows() throws {
        let (stores, _, _) = try replicas()
        try enqueue(stores[0], 20)
        let now = self.now
        let firstClaimed = DispatchSemaphore(value: 0)
        let secondClaimed = DispatchSemaphore(value: 0)
        let first = Mutex<[Int64]>([])
        let holder = Background {
            try stores[0].transaction { tx in
                let rows = try tx.claim(app: "app", limit: 10, owner: "r1", until: now + 30, now: now)
                first.withLock { $0 = rows.map(\.id) }
                firstClaimed.signal()
                // Keep the rows locked until the other replica has claimed: it must not wait for them.
                _ = secondClaimed.wait(timeout: .now() + 10)
            }
        }
        #expect(firstClaimed.wait(timeout: .now() + 10) == .success)
        let second = try stores[1].transaction {
            try $0.claim(app: "app", limit: 10, owner: "r2", until: now + 30, now: now)
        }
        secondClaimed.signal()
        #expect(holder.wait() == nil)
        #expect(first.withLock { $0.count } == 10 && second.count == 10)
        #expect(Set(first.withLock { $0 }).isDisjoint(with: second.map(\.id)))
    }

    @Test("two replicas claiming one app's rows at once never lease the same row")
    func concurrentClaimsAreDisjoint() throws {
        let (stores, _, _) = try replicas()
        let count = 2000
        try enqueue(stores[0], count)
        let now = self.now
        let claimed = Mutex<[[Int64]]>([[], []])
        let failures = onThreads(2) { replica in
            while true {
                let rows = try stores[replica].transaction {
                    try $0.claim(app: "app", limit: 25, owner: "r\(replica)", until: now + 300, now: now)
                }
                if rows.isEmpty { break }
                claimed.withLock { $0[replica] += rows.map(\.id) }
            }
        }
        #expect(failures.isEmpty)
        let (mine, theirs) = claimed.withLock { ($0[0], $0[1]) }
        #expect(mine.count + theirs.count == count)
        #expect(Set(mine + theirs).count == count)
        #expect(Set(mine).isDisjoint(with: theirs))
    }

    @Test("rows whose lease ran out are taken over by another replica, in doubt")
    func expiredLeaseTakeover() throws {
        let (stores, _, _) = try replicas()
        try enqueue(stores[0], 3)
        let now = self.now
        let first = try stores[0].transaction {
            try $0.claim(app: "app", limit: 10, owner: "r1", until: now + 30, now: now)
        }
        #expect(first.count == 3 && first.allSatisfy { !$0.inDoubt })
        #expect(
            try stores[1].transaction {
                try $0.claim(app: "app", limit: 10, owner: "r2", until: now + 60, now: now + 29)
            }
            .isEmpty)
        let taken = try stores[1].transaction {
            try $0.claim(app: "app", limit: 10, owner: "r2", until: now + 90, now: now + 31)
        }
        #expect(taken.map(\.id).sorted() == first.map(\.id).sorted())
        #expect(taken.allSatisfy { $0.inDoubt && $0.claimedBy == "r2" && $0.attempts == 2 })
    }

    @Test("inserts of one idempotency key from two replicas at once: exactly one wins, the rest get a conflict")
    func idempotencyKeyRace() throws {
        let (stores, _, _) = try replicas()
        let outcomes = Mutex<[String]>([])
        _ = onThreads(8) { attempt in
            do {
                try stores[attempt % 2].transaction {
                    try $0.insertActivity(sampleActivity(id: "a\(attempt)", key: "k"))
                }
                outcomes.withLock { $0.append("inserted") }
            } catch let error as StoreError where error.code == .conflict {
                outcomes.withLock { $0.append("conflict") }
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        #expect(outcomes.withLock { $0 }.sorted() == Array(repeating: "conflict", count: 7) + ["inserted"])
        #expect(try stores[1].transaction { try $0.activity(app: "app", idempotencyKey: "k") } != nil)
    }

    @Test("concurrent upserts of one token from two replicas all succeed and leave one row")
    func concurrentTokenUpserts() throws {
        let (stores, _, _) = try replicas()
        let token = sampleToken()
        let now = self.now
        let failures = onThreads(2) { replica in
            for second in 0..<50 {
                var seen = token
                seen.lastSeenAt = now + Double(second)
                try stores[replica].transaction { try $0.saveToken(seen) }
            }
        }
        #expect(failures.isEmpty)
        let stored = try stores[0].transaction { try $0.tokens(app: "app", fingerprints: [token.fingerprint]) }
        #expect(stored.count == 1 && stored.first?.lastSeenAt == now + 49)
    }

    @Test("an activity read for update holds off another replica's writer; plain reads never wait")
    func activityRowLock() throws {
        let (stores, _, _) = try replicas()
        try stores[0].transaction { try $0.insertActivity(sampleActivity()) }
        let locked = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let writer = Background {
            try stores[0].transaction { tx in
                guard var activity = try tx.activityForUpdate(app: "app", id: "a1") else { return }
                locked.signal()
                _ = proceed.wait(timeout: .now() + 10)
                activity.version = 2
                try tx.updateActivity(activity)
            }
        }
        #expect(locked.wait(timeout: .now() + 10) == .success)
        #expect(try stores[1].transaction { try $0.activity(app: "app", id: "a1") }?.version == 1)
        let secondVersion = Mutex<Int64?>(nil)
        let secondWriter = Background {
            let read = try stores[1].transaction { try $0.activityForUpdate(app: "app", id: "a1") }
            secondVersion.withLock { $0 = read?.version }
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!secondWriter.isFinished, "the second writer must wait for the first one's commit")
        proceed.signal()
        #expect(writer.wait() == nil && secondWriter.wait() == nil)
        #expect(secondVersion.withLock { $0 } == 2, "the second writer reads what the first one committed")
    }

    @Test("a statement that waits past the statement timeout fails as unavailable, naming the timeout")
    func statementTimeout() throws {
        let (url, _) = try PostgresTestServer.freshSchema()
        let holder = try PostgresStore(url: url)
        let impatient = try PostgresStore(url: url, statementTimeout: .milliseconds(500))
        try holder.transaction { try $0.insertActivity(sampleActivity()) }
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Background {
            try holder.transaction { tx in
                _ = try tx.activityForUpdate(app: "app", id: "a1")
                locked.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        #expect(locked.wait(timeout: .now() + 10) == .success)
        let started = Date()
        let error = #expect(throws: StoreError.self) {
            try impatient.transaction { try $0.activityForUpdate(app: "app", id: "a1") }
        }
        release.signal()
        #expect(holding.wait() == nil)
        #expect(
            error?.code == .unavailable && error?.message.contains("500 ms statement timeout") == true,
            "\(String(describing: error))")
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(
            try impatient.transaction { try $0.activityForUpdate(app: "app", id: "a1") }?.id == "a1",
            "the same store works once the lock is gone")
    }

    @Test("two replicas updating one activity at once: every version is distinct and timestamps only go up")
    func registryVersionsAcrossReplicas() throws {
        let (_, registries) = try registriesWithOneActivity()
        let answers = Mutex<[(version: Int64, timestamp: Int64)]>([])
        let failures = onThreads(2) { replica in
            for minutes in 5..<15 {
                let event = try JSONValue.parse(#"{"type":"delivery.eta","data":{"minutes":\#(minutes)}}"#)
                let answer = try registries[replica].applyEvent(app: "app1", activityId: "o-1", body: event)
                let version = Int64(answer["version"]?.numberValue ?? 0)
                let timestamp = Int64(answer["timestamp"]?.numberValue ?? 0)
                answers.withLock { $0.append((version, timestamp)) }
            }
        }
        #expect(failures.isEmpty)
        let ordered = answers.withLock { $0 }.sorted { $0.version < $1.version }
        #expect(ordered.map(\.version) == Array(2...21))
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test(
        "a token registered on one replica while another commits an event is queued for that event's version (DT-041)")
    func registrationRacesEvents() throws {
        let (stores, registries) = try registriesWithOneActivity()
        // Each round one replica commits an event while the other registers a token. Without the
        // activity's row lock, a registration that read the version before the event committed, and
        // committed after the event read the tokens, would leave its token a version behind.
        var behind: [Int] = []
        for round in 0..<30 {
            let token = APNsHarness.randomToken()
            let failures = onThreads(2) { replica in
                if replica == 0 {
                    let event = try JSONValue.parse(#"{"type":"delivery.eta","data":{"minutes":\#(round + 5)}}"#)
                    _ = try registries[0].applyEvent(app: "app1", activityId: "o-1", body: event)
                } else {
                    let body = try JSONValue.parse(
                        #"{"activityId":"o-1","deviceId":"d\#(round)","token":"\#(token)","environment":"sandbox"}"#)
                    _ = try registries[1].registerToken(app: "app1", kind: .activity, body: body)
                }
            }
            #expect(failures.isEmpty)
            let version = try #require(try stores[0].transaction { try $0.activity(app: "app1", id: "o-1") }).version
            // Claimed far enough ahead that the previous round's lease has run out.
            let at = Date().addingTimeInterval(Double(round + 1) * 100_000)
            let queued = try stores[0].transaction {
                try $0.claim(app: "app1", limit: 1000, owner: "check", until: at + 1, now: at)
            }
            let mine = queued.filter { $0.destination.tokenFingerprint == Fingerprint(of: token) }
            // A token registered before the event is reached through the activity's fan-out ranges, which
            // read the tokens when they send (none has started here: no dispatcher runs): covered when a
            // range job asks for the version and the token is valid. Its late-token row may then ask for the
            // version before (a send reads the newest version anyway).
            let ranges = try stores[0].transaction { try $0.fanoutJobs(app: "app1", activityId: "o-1") }
            let valid =
                try stores[0].transaction {
                    try $0.token(app: "app1", fingerprint: Fingerprint(of: token))
                }?.isValid == true
            let inRange =
                valid && ranges.count == FanoutJob.rangeCount && ranges.allSatisfy { $0.requestedVersion == version }
            if mine.map(\.requestedVersion) != [version] && !inRange { behind.append(round) }
        }
        #expect(behind.isEmpty, "rounds whose new token was not queued for the version committed beside it: \(behind)")
    }

    @Test("a connection the server drops is reopened: the transaction it broke fails as unavailable, the next works")
    func droppedConnection() throws {
        let (url, schema) = try PostgresTestServer.freshSchema()
        let store = try PostgresStore(url: url, poolSize: 2)
        try store.transaction { try $0.insertActivity(sampleActivity()) }
        // Dropped while idle: found at BEGIN, reopened, and the transaction goes through.
        #expect(try PostgresTestServer.terminateConnections(of: schema) == 1)
        #expect(try store.transaction { try $0.activity(app: "app", id: "a1") } != nil)
        // Dropped in the middle of a transaction: it fails (retryable) and writes nothing.
        #expect(throws: StoreError(.unavailable, "")) {
            try store.transaction { tx in
                guard var activity = try tx.activityForUpdate(app: "app", id: "a1") else { return }
                activity.version = 2
                try tx.updateActivity(activity)
                _ = try PostgresTestServer.terminateConnections(of: schema)
                try tx.saveToken(sampleToken())
            }
        }
        #expect(try store.transaction { try $0.activity(app: "app", id: "a1") }?.version == 1)
        #expect(try store.transaction { try $0.tokens(app: "app", activityId: "a1") }.isEmpty)
    }

    @Test("a replica opens at most poolSize connections; when all are busy a transaction waits, then gives up")
    func boundedPool() throws {
        let (url, schema) = try PostgresTestServer.freshSchema()
        let store = try PostgresStore(url: url, poolSize: 2)
        let failures = onThreads(8) { _ in
            for _ in 0..<25 { _ = try store.transaction { try $0.outboxStats() } }
        }
        #expect(failures.isEmpty)
        #expect((1...2).contains(try PostgresTestServer.connectionCount(of: schema)))

        /// Holds the store's only connection for a second, on another thread.
        func holdOnlyConnection(of store: PostgresStore) -> Background {
            let holding = DispatchSemaphore(value: 0)
            let holder = Background {
                try store.transaction { _ in
                    holding.signal()
                    Thread.sleep(forTimeInterval: 1)
                }
            }
            #expect(holding.wait(timeout: .now() + 10) == .success)
            return holder
        }
        let patient = try PostgresStore(url: url, poolSize: 1, acquireTimeout: .seconds(5))
        var holder = holdOnlyConnection(of: patient)
        var started = ContinuousClock.now
        #expect(try patient.transaction { try $0.outboxStats().depth } == 0)
        #expect(ContinuousClock.now - started > .milliseconds(500), "it waited for the holder to finish")
        #expect(holder.wait() == nil)

        let impatient = try PostgresStore(url: url, poolSize: 1, acquireTimeout: .milliseconds(300))
        holder = holdOnlyConnection(of: impatient)
        started = ContinuousClock.now
        #expect(throws: StoreError(.unavailable, "")) { try impatient.transaction { try $0.outboxStats() } }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(holder.wait() == nil)
    }

    @Test("a version-4 database gets the tokens' device column when a replica opens it, and keeps its rows")
    func upgradeFromVersion4() throws {
        let (url, schema) = try PostgresTestServer.freshSchema()
        var token = sampleToken()
        try PostgresStore(url: url, poolSize: 1).transaction { try $0.saveToken(token) }
        let database = try PostgresTestServer.databaseURL()
        try PostgresTestServer.psql(
            database,
            "ALTER TABLE \(schema).tokens DROP COLUMN device; UPDATE \(schema).schema_version SET version = 4")
        let upgraded = try PostgresStore(url: url, poolSize: 1)
        #expect(try Int(PostgresTestServer.psql(database, "SELECT version FROM \(schema).schema_version")) ?? 0 >= 5)
        #expect(try upgraded.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } == token)
        token.device = .object(["osVersion": .string("17.4"), "areActivitiesEnabled": .bool(true)])
        try upgraded.transaction { try $0.saveToken(token) }
        #expect(try upgraded.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } == token)
    }

    @Test("replicas starting at once migrate one database without racing; a newer schema is refused")
    func migrations() throws {
        // Without the migration lock, CREATE TABLE IF NOT EXISTS from two sessions at once fails about half
        // the time on this machine (a unique violation in PostgreSQL's catalog): a few rounds make it show.
        for _ in 0..<4 {
            let (url, _) = try PostgresTestServer.freshSchema()
            #expect(onThreads(6) { _ in _ = try PostgresStore(url: url, poolSize: 1) }.isEmpty)
        }
        let (url, schema) = try PostgresTestServer.freshSchema()
        _ = try PostgresStore(url: url, poolSize: 1)
        let database = try PostgresTestServer.databaseURL()
        let version = try #require(
            Int(try PostgresTestServer.psql(database, "SELECT version FROM \(schema).schema_version")))
        try PostgresTestServer.psql(database, "UPDATE \(schema).schema_version SET version = \(version + 1)")
        #expect(throws: StoreError(.schemaTooNew, "")) { _ = try PostgresStore(url: url) }
    }

    @Test("a connection with a full prepared-statement cache still runs new statements (IN lists of every length)")
    func statementsBeyondTheCache() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshSchema().url, poolSize: 1)
        let tokens = (0..<80).map { _ in sampleToken() }
        try store.transaction { tx in try tokens.forEach(tx.saveToken) }
        for length in 1...tokens.count {
            let found = try store.transaction {
                try $0.tokens(app: "app", fingerprints: tokens.prefix(length).map(\.fingerprint))
            }
            #expect(found.count == length)
        }
    }

    @Test("the password stays out of the store's description and its connection errors")
    func passwordNeverShown() throws {
        let (url, _) = try PostgresTestServer.freshSchema()
        let password = try #require(URLComponents(string: url)?.password)
        let store = try PostgresStore(url: url)
        #expect(!store.description.contains(password) && store.description.contains(":***@"))
        var wrong = try #require(URLComponents(string: url))
        wrong.password = "not-the-password-\(UInt32.random(in: 0...UInt32.max))"
        let wrongURL = try #require(wrong.string)
        do {
            _ = try PostgresStore(url: wrongURL)
            Issue.record("a wrong password was accepted")
        } catch let error as StoreError {
            #expect(error.code == .unavailable)
            #expect(!error.message.contains(wrong.password ?? "") && error.message.contains("***"))
        }
    }
}

@Suite("PostgreSQL URLs are printed without their password")
struct PostgresURLTests {
    @Test("the password in the user part or a password= parameter becomes ***")
    func redaction() {
        #expect(
            PostgresStore.redactingPassword(in: "postgres://dt:s3cr%40t@127.0.0.1:5432/db")
                == "postgres://dt:***@127.0.0.1:5432/db")
        #expect(PostgresStore.redactingPassword(in: "postgres://dt:p@ss@h/db") == "postgres://dt:***@h/db")
        #expect(
            PostgresStore.redactingPassword(in: "postgresql://dt@h/db?sslmode=disable&password=hunter2&x=1")
                == "postgresql://dt@h/db?sslmode=disable&password=***&x=1")
        #expect(PostgresStore.redactingPassword(in: "postgres://h:5432/db") == "postgres://h:5432/db")
        #expect(PostgresStore.redactingPassword(in: "sqlite:/tmp/x.sqlite") == "sqlite:/tmp/x.sqlite")
    }

    @Test("errors about a URL libpq refuses, a server that is not there, or a mistyped scheme hide the password")
    func errorsHideThePassword() {
        let cases = [
            // libpq quotes the token it cannot decode, which here is the password.
            "postgres://dt:hunter2%zz@127.0.0.1:1/db",
            "postgres://dt:hunter2@127.0.0.1:1/db?no_such_option=1",
            // Nothing listens on port 1.
            "postgres://dt:hunter2@127.0.0.1:1/db",
        ]
        for url in cases {
            do {
                _ = try PostgresStore(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(!"\(error)".contains("hunter2"), "\(error)")
            }
        }
        #expect(throws: StoreError(.unavailable, "")) { _ = try PostgresStore(url: "postgres://dt:pw@127.0.0.1:1/db") }
        let mistyped = "postgress://dt:hunter2@127.0.0.1/db"
        do {
            _ = try DropTrackServer.openStore(mistyped)
            Issue.record("\(mistyped) was accepted")
        } catch {
            #expect(!"\(error)".contains("hunter2") && "\(error)".contains("postgress://dt:***@"), "\(error)")
        }
        do {
            try ServerConfiguration(store: mistyped).validate()
            Issue.record("\(mistyped) was accepted")
        } catch {
            #expect(error.key == "store" && !error.message.contains("hunter2"), "\(error)")
        }
    }
}

/// Needs `DROPTRACK_TEST_POSTGRES_RESTART_COMMAND` and a run of its own (scripts/test.sh runs it after the
/// main suite): the restart drops every connection to the server, other tests' too.
@Suite("PostgreSQL: a store outlives a server restart", .enabled(if: PostgresTestServer.restartCommand != nil))
struct PostgresRestartTests {
    @Test("after the server restarts, the same store works again; the transaction open across it fails as unavailable")
    func restart() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshSchema().url, poolSize: 4)
        // Fill the pool: four transactions at once, each holding its connection until all four are in. Each
        // saves a token of its own activity: tokens of one activity wait for each other on its kept count.
        let inside = Atomic<Int>(0)
        let filling = onThreads(4) { index in
            try store.transaction { tx in
                try tx.saveToken(sampleToken(device: "d\(index)", activity: "a\(index)"))
                inside.add(1, ordering: .relaxed)
                let deadline = Date() + 10
                while inside.load(ordering: .relaxed) < 4 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            }
        }
        #expect(filling.isEmpty && inside.load(ordering: .relaxed) == 4)

        let opened = DispatchSemaphore(value: 0)
        let restarted = DispatchSemaphore(value: 0)
        let acrossRestart = Background {
            try store.transaction { tx in
                try tx.insertActivity(sampleActivity(id: "lost"))
                opened.signal()
                _ = restarted.wait(timeout: .now() + 60)
                try tx.saveToken(sampleToken(device: "lost"))
            }
        }
        #expect(opened.wait(timeout: .now() + 10) == .success)
        try PostgresTestServer.restart()
        restarted.signal()
        let failure = acrossRestart.wait()
        #expect(failure?.hasPrefix("unavailable") == true, "\(failure ?? "it committed")")

        // Every pooled connection is stale now; each reconnects at its next BEGIN.
        let counts = Mutex<[Int]>([])
        let failures = onThreads(4) { _ in
            let tokens = try store.transaction { try $0.tokens(app: "app", userId: "u1", kinds: [.activity]) }
            counts.withLock { $0.append(tokens.count) }
        }
        #expect(failures.isEmpty)
        #expect(counts.withLock { $0 } == [4, 4, 4, 4])
        #expect(try store.transaction { try $0.activity(app: "app", id: "lost") } == nil)
    }
}
