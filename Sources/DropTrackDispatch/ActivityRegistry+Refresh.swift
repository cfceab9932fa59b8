import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation
import Synchronization

// Refreshing a shared activity's audience: the users who match now and are not members join, and their
// devices get the current version. A refresh reads and writes in short transactions of one page of
// candidates each, so an audience of 100,000 never holds the store (and every other tenant's requests)
// for the length of the whole match; and one refresh of an activity runs at a time in a process, so a
// backend that refreshes in a loop cannot stack them up.
extension ActivityRegistry {
    /// Candidates matched per transaction.
    static let refreshPage = 2000

    /// Matches a shared activity's audience again and makes the users who match now and were not
    /// members members, queueing the current version for their devices (a start for iPhones). Asked
    /// for explicitly, so an activity never grows behind its caller's back.
    public func refreshAudience(app appID: String, activityId: String) throws(Refusal) -> AudienceRefreshed {
        let contracts = contracts(try app(appID))
        let key = "\(appID)\u{1F}\(activityId)"
        guard refreshing.withLock({ $0.insert(key).inserted }) else {
            throw Refusal.conflict(
                code: .refreshRunning,
                message:
                    "a refresh of activity '\(activityId)' is running; its answer counts every user who matches, so wait for it rather than asking again",
                field: "activityId")
        }
        defer { _ = refreshing.withLock { $0.remove(key) } }
        let (audience, count) = try transact { tx -> (Audience?, Int) in
            guard let activity = try tx.activity(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            try self.requireShared(activity)
            // A list of users matches no one new: its members are the list.
            return (
                activity.audienceSummary.flatMap(Audience.init(summary:)),
                try tx.memberCount(app: appID, activityId: activityId)
            )
        }
        var result = AudienceRefreshed(activityId: activityId, joined: 0, members: count, destinations: 0)
        guard let audience else { return result }
        var pages = try candidatePages(audience, app: appID)
        while let page = try pages.next(self) {
            do {
                try join(page, app: appID, activityId: activityId, contracts: contracts, into: &result)
            } catch Refusal.unprocessable(.audienceTooLarge, let message, let field) where result.joined > 0 {
                // Pages are committed as they go: say who got in before the cap.
                throw Refusal.unprocessable(
                    code: .audienceTooLarge,
                    message: "\(message). This refresh added \(result.joined) users before reaching it", field: field)
            }
            if result.destinations > 0 { wake() }
        }
        return result
    }

    /// One page of candidates: those not yet members join, and their devices get the current version.
    private func join(
        _ page: [String], app appID: String, activityId: String, contracts: ContractBook,
        into result: inout AudienceRefreshed
    ) throws(Refusal) {
        try transact { tx in
            guard let activity = try tx.activityForUpdate(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            try self.requireShared(activity)
            let known = try tx.members(app: appID, activityId: activityId, among: page)
            let joiners = page.filter { !known.contains($0) }
            guard !joiners.isEmpty else { return }
            try self.checkCap(result.members + joiners.count)
            try tx.addMembers(app: appID, activityId: activityId, userIds: joiners)
            let destinations = try tx.tokens(app: appID, userIds: joiners, kinds: [.pushToStart, .fcm]).filter {
                $0.isValid
                    && ($0.kind == .fcm
                        || contracts.pushToStartMatches(tokenType: $0.attributesType, type: activity.attributesType))
            }
            let now = clock.now()
            try tx.enqueue(
                app: appID, activityId: activityId, fingerprints: destinations.map(\.fingerprint),
                version: activity.version, availableAt: max(activity.startAt ?? now, now), now: now)
            result.joined += joiners.count
            result.members += joiners.count
            result.destinations += destinations.count
        }
    }

    private func requireShared(_ activity: ActivityRecord) throws(Refusal) {
        try requireOpen(activity)
        guard activity.isShared else {
            throw Refusal.conflict(
                code: .notShared, message: "activity '\(activity.id)' is one user's; only audience starts refresh",
                field: "activityId")
        }
    }

    /// The users an audience matches, a page at a time: `everyone` read page by page from the store, a
    /// tag audience matched in one read of its tags (those rows only) and then handed out in pages.
    private func candidatePages(_ audience: Audience, app appID: String) throws(Refusal) -> CandidatePages {
        switch audience {
        case .everyone: return CandidatePages(app: appID, matched: nil)
        case .users, .tags:
            let matched = try transact { tx in try self.matching(audience, app: appID, tx: tx) }
            return CandidatePages(app: appID, matched: matched)
        }
    }
}

/// The pages `refreshAudience` works through.
private struct CandidatePages {
    let app: String
    /// Every candidate, when the audience was matched at once; nil for `everyone`, read page by page.
    let matched: [String]?
    var offset = 0
    var cursor: String? = nil
    var done = false

    init(app: String, matched: [String]?) {
        self.app = app
        self.matched = matched
    }

    mutating func next(_ registry: ActivityRegistry) throws(Refusal) -> [String]? {
        guard !done else { return nil }
        let size = ActivityRegistry.refreshPage
        if let matched {
            let page = Array(matched[offset..<min(matched.count, offset + size)])
            offset += page.count
            done = offset >= matched.count
            return page.isEmpty ? nil : page
        }
        let after = cursor
        let page = try registry.transact { tx in try tx.userIds(app: app, after: after, limit: size) }
        cursor = page.last
        done = page.count < size
        return page.isEmpty ? nil : page
    }
}
