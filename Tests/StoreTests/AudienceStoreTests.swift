import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Tags and shared activities' members, run against every engine")
struct AudienceStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(
        "tags: set replaces, empty clears, per app and per subject kind; found by any tag",
        arguments: StoreEngine.allCases)
    func tags(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { (tx) throws in
            try tx.setTags(app: "app", subject: .user("u1"), tags: ["gold", "city:paris"])
            try tx.setTags(app: "app", subject: .device("u1"), tags: ["beta"])
            try tx.setTags(app: "other", subject: .user("u1"), tags: ["gold"])
            try tx.setTags(app: "app", subject: .user("u2"), tags: ["silver", "city:paris"])
        }
        try store.transaction { (tx) throws in
            #expect(try tx.tags(app: "app", subject: .user("u1")) == ["city:paris", "gold"])
            #expect(try tx.tags(app: "app", subject: .device("u1")) == ["beta"], "a device id may equal a user id")
            #expect(try tx.tags(app: "app", subject: .user("nobody")) == [])
            let found = Set(try tx.subjects(app: "app", taggedWithAny: ["gold", "beta", "unknown"]))
            #expect(
                found == [
                    SubjectTag(subject: .user("u1"), tag: "gold"), SubjectTag(subject: .device("u1"), tag: "beta"),
                ])
        }
        try store.transaction { try $0.setTags(app: "app", subject: .user("u1"), tags: ["silver"]) }
        #expect(try store.transaction { try $0.tags(app: "app", subject: .user("u1")) } == ["silver"])
        try store.transaction { try $0.setTags(app: "app", subject: .user("u1"), tags: []) }
        #expect(try store.transaction { try $0.tags(app: "app", subject: .user("u1")) } == [])
        #expect(try store.transaction { try $0.tags(app: "other", subject: .user("u1")) } == ["gold"])
        // A failed transaction leaves the tags as they were.
        #expect(throws: ThrownOnPurpose.self) {
            try store.transaction { tx in
                try tx.setTags(app: "app", subject: .user("u2"), tags: ["gone"])
                throw ThrownOnPurpose()
            }
        }
        #expect(try store.transaction { try $0.tags(app: "app", subject: .user("u2")) } == ["city:paris", "silver"])
    }

    @Test(
        "members: 1,000 added in one call, once each, read back and checked one by one", arguments: StoreEngine.allCases
    )
    func members(engine: StoreEngine) throws {
        let store = try engine.make()
        let users = (0..<1000).map { "user-\($0)" }
        try store.transaction { (tx) throws in
            try tx.addMembers(app: "app", activityId: "shared", userIds: users + ["user-1", "user-2"])
            try tx.addMembers(app: "app", activityId: "shared", userIds: ["user-3"])
        }
        try store.transaction { (tx) throws in
            #expect(try tx.members(app: "app", activityId: "shared") == users.sorted())
            #expect(try tx.isMember(app: "app", activityId: "shared", userId: "user-999"))
            #expect(try !tx.isMember(app: "app", activityId: "shared", userId: "user-1000"))
            #expect(try !tx.isMember(app: "other", activityId: "shared", userId: "user-1"))
            #expect(try tx.members(app: "app", activityId: "another") == [])
        }
    }

    @Test(
        "users with devices (everyone), tokens of many users, and a start's timeline entries",
        arguments: StoreEngine.allCases)
    func usersAndTokens(engine: StoreEngine) throws {
        let store = try engine.make()
        var tokens = (0..<300).map {
            sampleToken(kind: $0 % 2 == 0 ? .pushToStart : .fcm, user: "u\($0)", device: "d\($0)", activity: nil)
        }
        tokens.append(sampleToken(kind: .activity, user: nil, device: "d0", activity: "a1"))
        var gone = sampleToken(kind: .fcm, user: "left", device: "old", activity: nil)
        gone.invalidatedAt = now
        tokens.append(gone)
        try store.transaction { try $0.saveTokens(tokens) }
        try store.transaction { (tx) throws in
            let everyone = try tx.userIds(app: "app", after: nil, limit: 1000)
            #expect(everyone.count == 300 && !everyone.contains("left"), "valid start tokens only")
            #expect(
                try tx.userIds(app: "app", after: nil, limit: 7) == Array(everyone.prefix(7)), "the first 7, in order")
            #expect(try tx.userIds(app: "other", after: nil, limit: 1000).isEmpty)
            // Page by page, every user once, in order.
            var paged: [String] = []
            while let page = Optional(try tx.userIds(app: "app", after: paged.last, limit: 64)), !page.isEmpty {
                paged += page
            }
            #expect(paged == everyone)
            let some = try tx.tokens(app: "app", userIds: (0..<290).map { "u\($0)" } + ["left"], kinds: [.fcm])
            #expect(some.count == 145 + 1 && some.allSatisfy { $0.kind == .fcm })
        }
        let entry = { (event: String, destination: TimelineDestination) in
            TimelineEntry(
                app: "app", activityId: "a1", at: self.now, destination: destination, provider: .apns, event: event,
                version: 1, status: 200, reason: "ok", remedy: .none, latencyMs: 1, priority: 10, attempt: 1)
        }
        try store.transaction {
            let (f1, f2) = (TimelineDestination.token(fingerprint("f1")), TimelineDestination.token(fingerprint("f2")))
            try $0.appendTimeline([entry("start", f1), entry("update", f1), entry("start", f2)])
        }
        let starts = try store.transaction { try $0.timeline(app: "app", activityId: "a1", event: "start") }
        #expect(starts.map(\.destination) == [.token(fingerprint("f1")), .token(fingerprint("f2"))])
        // One member's entries, through its own destinations, oldest first and the newest `limit`.
        let own = try store.transaction {
            try $0.timeline(app: "app", activityId: "a1", destinations: [.token(fingerprint("f1"))], limit: 10)
        }
        #expect(
            own.map(\.event) == ["start", "update"] && own.allSatisfy { $0.destination == .token(fingerprint("f1")) })
        let newest = try store.transaction {
            try $0.timeline(
                app: "app", activityId: "a1", destinations: [.token(fingerprint("f1")), .token(fingerprint("f2"))],
                limit: 2)
        }
        #expect(newest.map(\.event) == ["update", "start"] && newest.last?.destination == .token(fingerprint("f2")))
    }

    @Test("which of some users are members, and how many there are", arguments: StoreEngine.allCases)
    func membersAmong(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { (tx) throws in
            try tx.addMembers(app: "app", activityId: "shared", userIds: (0..<600).map { "user-\($0)" })
            try tx.addMembers(app: "app", activityId: "other", userIds: ["user-700"])
            let asked = (590..<710).map { "user-\($0)" }
            #expect(
                try tx.members(app: "app", activityId: "shared", among: asked) == Set((590..<600).map { "user-\($0)" }))
            #expect(try tx.memberCount(app: "app", activityId: "shared") == 600)
            #expect(try tx.memberCount(app: "app", activityId: "none") == 0)
        }
    }
}

@Suite("Corrupt tag and member rows throw corruptRow")
struct AudienceCorruptRowTests {
    @Test("a tag on a subject kind that is neither user nor device; a NULL member", arguments: CorruptibleStore.engines)
    func corruptTags(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction { (tx) throws in
            try tx.setTags(app: "app", subject: .user("u1"), tags: ["gold"])
            try tx.addMembers(app: "app", activityId: "a1", userIds: ["u1"])
        }
        try corruptible.run("UPDATE tags SET subject_kind = 'robot'")
        let error = expectCorrupt("tags", "subject_kind") {
            _ = try store.transaction { try $0.subjects(app: "app", taggedWithAny: ["gold"]) }
        }
        #expect(error?.corruptRow?.key.contains("u1") == true)
        // PostgreSQL keeps a primary key's columns NOT NULL: the key goes first.
        if engine == .postgres {
            try corruptible.run("ALTER TABLE activity_members DROP CONSTRAINT activity_members_pkey")
        }
        try corruptible.allowNull(table: "activity_members", column: "user_id")
        try corruptible.run("UPDATE activity_members SET user_id = NULL")
        expectCorrupt("activity_members", "user_id") {
            _ = try store.transaction { try $0.members(app: "app", activityId: "a1") }
        }
    }
}
