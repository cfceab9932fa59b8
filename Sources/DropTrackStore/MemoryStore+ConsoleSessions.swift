import Foundation

/// Console sessions in memory, with the SQL engines' semantics.
extension MemoryTransaction {
    func saveConsoleSession(_ session: ConsoleSessionRecord) throws {
        var saved = data.consoleSessions[session.idDigest] ?? session
        saved.lastSeenAt = session.lastSeenAt
        setConsoleSession(session.idDigest, saved)
    }

    func consoleSession(idDigest: String) throws -> ConsoleSessionRecord? { data.consoleSessions[idDigest] }

    func deleteConsoleSession(idDigest: String) throws { setConsoleSession(idDigest, nil) }

    func trimConsoleSessions(createdBefore: Date, lastSeenBefore: Date, keeping: Int) throws {
        let live = data.consoleSessions.values.filter {
            $0.createdAt >= createdBefore && $0.lastSeenAt >= lastSeenBefore
        }
        // Most recently seen first, ties by digest: the order the SQL engines keep.
        let newestFirst = live.sorted { ($0.lastSeenAt, $1.idDigest) > ($1.lastSeenAt, $0.idDigest) }
        let kept = Set(newestFirst.prefix(max(0, keeping)).map(\.idDigest))
        for digest in data.consoleSessions.keys where !kept.contains(digest) { setConsoleSession(digest, nil) }
    }

    func consoleSessionCount() throws -> Int { data.consoleSessions.count }
}
