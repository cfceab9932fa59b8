import DropTrackModel
import Foundation

/// Tags and shared activities' members in memory, with the SQL engines' semantics.
extension MemoryTransaction {
    private static func tagKey(_ app: String, _ subject: TagSubject) -> String {
        [app, subject.kind, subject.id].joined(separator: "\u{1F}")
    }

    func tags(app: String, subject: TagSubject) throws -> [String] {
        (data.tags[Self.tagKey(app, subject)] ?? []).sorted()
    }

    func setTags(app: String, subject: TagSubject, tags: [String]) throws {
        setTags(Self.tagKey(app, subject), tags.isEmpty ? nil : Set(tags))
    }

    func subjects(app: String, taggedWithAny tags: [String]) throws -> [SubjectTag] {
        let wanted = Set(tags)
        let prefix = app + "\u{1F}"
        var found: [SubjectTag] = []
        for (key, held) in data.tags where key.hasPrefix(prefix) {
            let parts = key.dropFirst(prefix.count).split(separator: "\u{1F}", maxSplits: 1).map(String.init)
            guard parts.count == 2, let subject = TagSubject(kind: parts[0], id: parts[1]) else { continue }
            for tag in held.intersection(wanted) { found.append(SubjectTag(subject: subject, tag: tag)) }
        }
        return found
    }

    func userIds(app: String, after: String?, limit: Int) throws -> [String] {
        Array(
            Set(
                data.tokens.values.compactMap { token in
                    token.app == app && token.isValid && (token.kind == .pushToStart || token.kind == .fcm)
                        && after.map { token.userId ?? "" > $0 } ?? true
                        ? token.userId : nil
                }
            ).sorted().prefix(max(0, limit)))
    }

    func tokens(app: String, userIds: [String], kinds: [TokenKind]) throws -> [TokenRecord] {
        let users = Set(userIds)
        return data.tokens.values.filter {
            $0.app == app && $0.userId.map(users.contains) == true && kinds.contains($0.kind)
        }.sorted { $0.createdAt < $1.createdAt }
    }

    func addMembers(app: String, activityId: String, userIds: [String]) throws {
        guard !userIds.isEmpty else { return }
        let key = Self.key(app, activityId)
        setMembers(key, (data.members[key] ?? []).union(userIds))
    }

    func members(app: String, activityId: String) throws -> [String] {
        (data.members[Self.key(app, activityId)] ?? []).sorted()
    }

    func isMember(app: String, activityId: String, userId: String) throws -> Bool {
        data.members[Self.key(app, activityId)]?.contains(userId) == true
    }

    func members(app: String, activityId: String, among userIds: [String]) throws -> Set<String> {
        (data.members[Self.key(app, activityId)] ?? []).intersection(userIds)
    }

    func memberCount(app: String, activityId: String) throws -> Int {
        data.members[Self.key(app, activityId)]?.count ?? 0
    }

    func startOutcomes(app: String, activityId: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (key, count) in data.startOutcomes where key.app == app && key.activityId == activityId {
            counts[key.outcome] = count
        }
        return counts
    }

    func members(app: String, activityId: String, after: String?, limit: Int) throws -> [String] {
        Array(
            (data.members[Self.key(app, activityId)] ?? []).filter { user in after.map { user > $0 } ?? true }
                .sorted().prefix(max(0, limit)))
    }

    func timeline(app: String, activityId: String, event: String) throws -> [TimelineEntry] {
        (data.timeline[Self.key(app, activityId)] ?? []).filter { $0.event == event }
    }
}
