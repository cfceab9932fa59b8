import DropTrackModel
import Foundation

/// Tags and shared activities' members in SQL, shared by SQLite and PostgreSQL.
extension SQLTransaction {
    static let tagColumns = ["app", "subject_kind", "subject_id", "tag"]
    static let memberColumns = ["app", "activity_id", "user_id"]

    @discardableResult
    private func run(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        try connection.query(connection.dialect.render(sql), parameters)
    }

    /// `values` without duplicates, cut into runs (see `runs`), with each run's `?, ?, …`.
    private func runs(of values: [String], limit: Int = 256) -> [(marks: String, values: [SQLValue])] {
        var seen = Set<String>()
        let unique = values.filter { seen.insert($0).inserted }
        return Self.runs(unique.count, limit: limit).map { run in
            (Array(repeating: "?", count: run.count).joined(separator: ", "), unique[run].map { .text($0) })
        }
    }

    /// A tag row as a record: an unknown subject kind or a NULL is a corrupt row, named as such.
    static func subjectTag(_ row: SQLRow) throws(StoreError) -> SubjectTag {
        let r = RowReader(row: row, table: "tags", columns: tagColumns, keyColumns: [0, 1, 2, 3])
        let kind = try r.text(1)
        guard let subject = TagSubject(kind: kind, id: try r.text(2)) else {
            throw r.corrupt(1, "is \(RowReader.quoted(kind)), which is neither 'user' nor 'device'")
        }
        return SubjectTag(subject: subject, tag: try r.text(3))
    }

    func tags(app: String, subject: TagSubject) throws -> [String] {
        try run(
            "SELECT \(Self.tagColumns.joined(separator: ", ")) FROM tags WHERE app = ? AND subject_kind = ? AND subject_id = ? ORDER BY tag",
            [.text(app), .text(subject.kind), .text(subject.id)]
        ).map { row throws(StoreError) in try Self.subjectTag(row).tag }
    }

    func setTags(app: String, subject: TagSubject, tags: [String]) throws {
        try run(
            "DELETE FROM tags WHERE app = ? AND subject_kind = ? AND subject_id = ?",
            [.text(app), .text(subject.kind), .text(subject.id)])
        for (marks, values) in runs(of: tags, limit: 128) {
            let rows = marks.split(separator: ",").map { _ in "(?, ?, ?, ?)" }.joined(separator: ", ")
            let parameters = values.flatMap { [.text(app), .text(subject.kind), .text(subject.id), $0] }
            try run("INSERT INTO tags (app, subject_kind, subject_id, tag) VALUES \(rows)", parameters)
        }
    }

    func subjects(app: String, taggedWithAny tags: [String]) throws -> [SubjectTag] {
        var found: [SubjectTag] = []
        for (marks, values) in runs(of: tags) {
            found += try run(
                "SELECT \(Self.tagColumns.joined(separator: ", ")) FROM tags WHERE app = ? AND tag IN (\(marks))",
                [.text(app)] + values
            ).map(Self.subjectTag)
        }
        return found
    }

    func userIds(app: String, after: String?, limit: Int) throws -> [String] {
        try run(
            """
            SELECT DISTINCT user_id FROM tokens WHERE app = ? AND user_id IS NOT NULL AND user_id > ?
              AND invalidated_at IS NULL AND kind IN ('push_to_start', 'fcm') ORDER BY user_id LIMIT ?
            """, [.text(app), .text(after ?? ""), .int(Int64(max(0, limit)))]
        ).map { row throws(StoreError) in
            try RowReader(row: row, table: "tokens", columns: ["user_id"], keyColumns: [0]).text(0)
        }
    }

    func tokens(app: String, userIds: [String], kinds: [TokenKind]) throws -> [TokenRecord] {
        guard !kinds.isEmpty else { return [] }
        let kindMarks = kinds.map { _ in "?" }.joined(separator: ", ")
        var found: [TokenRecord] = []
        for (marks, values) in runs(of: userIds) {
            found += try run(
                "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND user_id IN (\(marks)) AND kind IN (\(kindMarks))",
                [.text(app)] + values + kinds.map { .text($0.rawValue) }
            ).map(Self.token)
        }
        return found.sorted { $0.createdAt < $1.createdAt }
    }

    func addMembers(app: String, activityId: String, userIds: [String]) throws {
        // Many rows per statement: a start of 10,000 members is 40 statements, inside the start's transaction.
        for (marks, values) in runs(of: userIds) {
            let rows = marks.split(separator: ",").map { _ in "(?, ?, ?)" }.joined(separator: ", ")
            let parameters = values.flatMap { [.text(app), .text(activityId), $0] }
            try run(
                "INSERT INTO activity_members (app, activity_id, user_id) VALUES \(rows) ON CONFLICT DO NOTHING",
                parameters)
        }
    }

    func members(app: String, activityId: String) throws -> [String] {
        try run(
            "SELECT \(Self.memberColumns.joined(separator: ", ")) FROM activity_members WHERE app = ? AND activity_id = ? ORDER BY user_id",
            [.text(app), .text(activityId)]
        ).map { row throws(StoreError) in
            try RowReader(row: row, table: "activity_members", columns: Self.memberColumns, keyColumns: [0, 1, 2])
                .text(2)
        }
    }

    func isMember(app: String, activityId: String, userId: String) throws -> Bool {
        !(try run(
            "SELECT 1 FROM activity_members WHERE app = ? AND activity_id = ? AND user_id = ?",
            [.text(app), .text(activityId), .text(userId)])).isEmpty
    }

    func members(app: String, activityId: String, among userIds: [String]) throws -> Set<String> {
        var found = Set<String>()
        for (marks, values) in runs(of: userIds) {
            for row in try run(
                "SELECT \(Self.memberColumns.joined(separator: ", ")) FROM activity_members WHERE app = ? AND activity_id = ? AND user_id IN (\(marks))",
                [.text(app), .text(activityId)] + values)
            {
                found.insert(
                    try RowReader(
                        row: row, table: "activity_members", columns: Self.memberColumns, keyColumns: [0, 1, 2]
                    )
                    .text(2))
            }
        }
        return found
    }

    func memberCount(app: String, activityId: String) throws -> Int {
        let row = try run(
            "SELECT COUNT(*) FROM activity_members WHERE app = ? AND activity_id = ?", [.text(app), .text(activityId)])
        return try Int(RowReader(row: row[0], table: "activity_members", columns: ["count"], keyColumns: []).int(0))
    }

    func startOutcomes(app: String, activityId: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try run(
            "SELECT outcome, total FROM start_outcomes WHERE app = ? AND activity_id = ?",
            [.text(app), .text(activityId)])
        {
            let r = RowReader(row: row, table: "start_outcomes", columns: ["outcome", "total"], keyColumns: [0])
            counts[try r.text(0)] = Int(try r.int(1))
        }
        return counts
    }

    func members(app: String, activityId: String, after: String?, limit: Int) throws -> [String] {
        try run(
            """
            SELECT \(Self.memberColumns.joined(separator: ", ")) FROM activity_members
              WHERE app = ? AND activity_id = ? AND user_id > ? ORDER BY user_id LIMIT ?
            """, [.text(app), .text(activityId), .text(after ?? ""), .int(Int64(max(0, limit)))]
        ).map { row throws(StoreError) in
            try RowReader(row: row, table: "activity_members", columns: Self.memberColumns, keyColumns: [0, 1, 2])
                .text(2)
        }
    }

    func timeline(app: String, activityId: String, event: String) throws -> [TimelineEntry] {
        try run(
            "SELECT \(Self.timelineColumnList) FROM timeline WHERE app = ? AND activity_id = ? AND event = ? ORDER BY id",
            [.text(app), .text(activityId), .text(event)]
        ).map(Self.timelineEntry)
    }
}
