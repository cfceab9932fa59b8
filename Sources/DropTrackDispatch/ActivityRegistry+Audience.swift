import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

// Shared activities: tags on users and devices, an audience resolved into members at the start, and
// what members may see and what reaches their devices afterwards.
extension ActivityRegistry {
    /// The key of the audience's description in the activity's server memory.
    static let audienceMemoryKey = "audience"

    // MARK: Tags

    /// The tags of a user or device, sorted.
    public func tags(app appID: String, of subject: TagSubject) throws(Refusal) -> [String] {
        _ = try app(appID)
        return try transact { tx in try tx.tags(app: appID, subject: subject) }
    }

    /// Replaces the tags of a user or device (checked by `Tag.check`); an empty list clears them.
    /// Answers the tags as stored.
    public func setTags(app appID: String, of subject: TagSubject, _ tags: [String]) throws(Refusal)
        -> [String]
    {
        _ = try app(appID)
        let checked = try Tag.check(tags, field: "tags")
        return try transact { tx in
            try tx.setTags(app: appID, subject: subject, tags: checked)
            return checked
        }
    }

    /// Whether a device is this user's: it holds a valid push-to-start or FCM token of the user and
    /// none of another user. A device the server has no user for is no one's yet.
    public func device(app appID: String, id deviceId: String, belongsTo user: String) throws(Refusal) -> Bool {
        try transact { tx in try deviceOwned(deviceId, by: user, app: appID, tx: tx) }
    }

    func deviceOwned(_ deviceId: String, by user: String, app appID: String, tx: any StoreTransaction) throws -> Bool {
        Set(try tx.validTokens(app: appID, deviceIds: [deviceId]).compactMap(\.userId)) == [user]
    }

    // MARK: The start

    /// The start's destinations and, for an audience, its members: the user's push-to-start tokens
    /// (for the attributes type) and FCM tokens, or those of every member the audience resolves to.
    func startDestinations(
        _ start: StartActivity, type: String, contracts: ContractBook, app appID: String, tx: any StoreTransaction
    ) throws -> (tokens: [TokenRecord], members: [String]?) {
        let members = try start.audience.map { audience in try resolve(audience, app: appID, tx: tx) }
        let tokens =
            try members.map { try tx.tokens(app: appID, userIds: $0, kinds: [.pushToStart, .fcm]) }
            ?? tx.tokens(app: appID, userId: start.userId, kinds: [.pushToStart, .fcm])
        return (
            tokens.filter {
                $0.isValid
                    && ($0.kind == .fcm || contracts.pushToStartMatches(tokenType: $0.attributesType, type: type))
            }, members
        )
    }

    /// The users an audience matches now, sorted; refused when none or more than the configured cap.
    func resolve(_ audience: Audience, app appID: String, tx: any StoreTransaction) throws -> [String] {
        let members = try matching(audience, app: appID, tx: tx)
        try checkCap(members.count)
        guard !members.isEmpty else {
            throw Refusal.unprocessable(
                code: .audienceEmpty,
                message:
                    "the audience matches no user; tag users or devices first (PUT /v1/users/{userId}/tags), or list 'audience.userIds'",
                field: "audience")
        }
        return members
    }

    func checkCap(_ count: Int) throws(Refusal) {
        let cap = configuration.maxAudienceMembers
        guard count <= cap else {
            throw Refusal.unprocessable(
                code: .audienceTooLarge,
                message:
                    "the audience matches more than \(cap) users, the most one start reaches (maxAudienceMembers). Start a broadcast activity (\"broadcast\": {}) that the app's devices subscribe to, or narrow the audience",
                field: "audience")
        }
    }

    /// The users an audience matches now, sorted.
    func matching(_ audience: Audience, app appID: String, tx: any StoreTransaction) throws -> [String] {
        let members: [String]
        switch audience {
        case .users(let ids): members = Array(Set(ids)).sorted()
        case .everyone:
            // One past the cap is enough to refuse: an app with millions of users is not read whole for it.
            members = try tx.userIds(app: appID, after: nil, limit: configuration.maxAudienceMembers + 1)
        case .tags(let all, let any):
            var byUser: [String: Set<String>] = [:]
            var byDevice: [String: Set<String>] = [:]
            for row in try tx.subjects(app: appID, taggedWithAny: Array(Set(all + any))) {
                switch row.subject {
                case .user(let id): byUser[id, default: []].insert(row.tag)
                case .device(let id): byDevice[id, default: []].insert(row.tag)
                }
            }
            // A device's tags count for the user whose tokens it holds, and only when it holds one user's:
            // a device id another user registered tokens under must not hand that user the owner's tags.
            if !byDevice.isEmpty {
                var owners: [String: Set<String>] = [:]
                for token in try tx.validTokens(app: appID, deviceIds: Array(byDevice.keys)) {
                    guard let user = token.userId else { continue }
                    owners[token.deviceId, default: []].insert(user)
                }
                for (device, users) in owners where users.count == 1 {
                    guard let user = users.first, let tags = byDevice[device] else { continue }
                    byUser[user, default: []].formUnion(tags)
                }
            }
            let required = Set(all)
            let someOf = Set(any)
            members = byUser.filter { _, tags in
                required.isSubset(of: tags) && (someOf.isEmpty || !someOf.isDisjoint(with: tags))
            }.keys.sorted()
        }
        return members
    }

    // MARK: After the start

    /// The FCM tokens an update of a shared activity reaches besides its update tokens and channel:
    /// those of its members' Android devices, registered before or after the start. None for a
    /// single-user activity, whose user's FCM tokens the caller reads itself.
    func audienceFCMTokens(_ activity: ActivityRecord, tx: any StoreTransaction) throws -> [TokenRecord] {
        guard activity.isShared else { return [] }
        let members = try tx.members(app: activity.app, activityId: activity.id)
        return try tx.tokens(app: activity.app, userIds: members, kinds: [.fcm]).filter(\.isValid)
    }

    /// The tokens of kinds `kinds` of the activity's user, or of every member of a shared activity.
    func ownerTokens(_ activity: ActivityRecord, kinds: [TokenKind], tx: any StoreTransaction) throws -> [TokenRecord] {
        guard activity.isShared else { return try tx.tokens(app: activity.app, userId: activity.userId, kinds: kinds) }
        let members = try tx.members(app: activity.app, activityId: activity.id)
        return try tx.tokens(app: activity.app, userIds: members, kinds: kinds)
    }

    /// Whether a user may see the activity: it is theirs, or a shared one they are a member of.
    func visible(_ activity: ActivityRecord?, to user: String, tx: any StoreTransaction) throws -> Bool {
        guard let activity else { return false }
        if activity.userId == user { return true }
        guard activity.isShared else { return false }
        return try tx.isMember(app: activity.app, activityId: activity.id, userId: user)
    }

    /// How far a shared activity's start has got: each start destination's newest outcome in the
    /// timeline (one read of the start's entries, however many updates followed).
    func audienceProgress(_ activity: ActivityRecord, tx: any StoreTransaction) throws -> AudienceProgress? {
        guard activity.isShared else { return nil }
        let members = try tx.memberCount(app: activity.app, activityId: activity.id)
        let targeted = Int(saturating: activity.startResponse?["destinations"]?.numberValue ?? 0)
        var failed = try tx.startOutcomes(app: activity.app, activityId: activity.id)
        let started = failed.removeValue(forKey: "started") ?? 0
        let settled = started + failed.values.reduce(0, +)
        return AudienceProgress(
            members: members, devicesTargeted: targeted, started: started, failedByReason: failed,
            pending: max(0, targeted - settled))
    }
}
