import Foundation

/// Console sessions and device-credential revocations in memory, with the SQL engines' semantics.
extension MemoryTransaction {
    func saveConsoleSession(_ session: ConsoleSessionRecord) throws {
        var saved = data.consoleSessions[session.idDigest] ?? session
        saved.lastSeenAt = session.lastSeenAt
        setConsoleSession(session.idDigest, saved)
    }

    func consoleSession(idDigest: String) throws -> ConsoleSessionRecord? { data.consoleSessions[idDigest] }

    func deleteConsoleSession(idDigest: String) throws { setConsoleSession(idDigest, nil) }

    func trimConsoleSessions(app: String, createdBefore: Date, lastSeenBefore: Date, keeping: Int) throws {
        for (digest, session) in data.consoleSessions
        where session.createdAt < createdBefore || session.lastSeenAt < lastSeenBefore {
            setConsoleSession(digest, nil)
        }
        let apps = data.consoleSessions.values.filter { $0.app == app }
        // Most recently seen first, ties by digest: the order the SQL engines keep.
        let newestFirst = apps.sorted { ($0.lastSeenAt, $1.idDigest) > ($1.lastSeenAt, $0.idDigest) }
        for session in newestFirst.dropFirst(max(0, keeping)) { setConsoleSession(session.idDigest, nil) }
    }

    func consoleSessionCount() throws -> Int { data.consoleSessions.count }
}

extension MemoryTransaction {
    func revokeDeviceCredentials(app: String, userId: String, notBefore: Int64) throws {
        let key = app + "\u{0}" + userId
        setCredentialRevocation(key, max(notBefore, data.credentialRevocations[key] ?? notBefore))
    }

    func deviceCredentialsNotBefore(app: String, userId: String) throws -> Int64? {
        data.credentialRevocations[app + "\u{0}" + userId]
    }
}
