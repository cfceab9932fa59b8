import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

/// A sync over the in-memory host, server and ledger, with retries that record their delays and do not wait.
final class SyncRig: Sendable {
    let host = InMemoryHost()
    let api = InMemoryDeviceAPI()
    let ledger: InMemoryRegistrationLedger
    let sleeps = Collector<Duration>()
    let sync: LiveActivitySync

    init(ledger: InMemoryRegistrationLedger = InMemoryRegistrationLedger(), jitter: Double = 1) {
        self.ledger = ledger
        let sleeps = self.sleeps
        sync = LiveActivitySync(
            host: host, api: api, ledger: ledger,
            configuration: LiveActivitySyncConfiguration(
                deviceID: "iphone-1", environment: .sandbox,
                retry: RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8)),
                sleep: { delay in
                    sleeps.append(delay)
                    await Task.yield()
                },
                jitter: { jitter }))
    }

    /// A second launch: a new sync over the same host and ledger.
    func relaunched() -> LiveActivitySync {
        LiveActivitySync(
            host: host, api: api, ledger: ledger,
            configuration: LiveActivitySyncConfiguration(deviceID: "iphone-1", environment: .sandbox))
    }

    func settled(_ sync: LiveActivitySync? = nil) async -> Bool {
        let sync = sync ?? self.sync
        try? await Task.sleep(for: .milliseconds(30))
        return await waitFor { await sync.pendingWork == 0 }
    }
}

@Suite("LiveActivitySync, event by event, over in-memory seams")
struct LiveActivitySyncTests {
    @Test("a push-to-start token and a new activity's update token are registered with environment and facts")
    func registersTokens() async throws {
        let rig = SyncRig()
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        await rig.sync.start()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2, count: 80))
        #expect(await waitFor { await rig.api.registrations.count == 2 })
        let facts = await rig.host.deviceFacts()
        #expect(
            await rig.api.registrations == [
                .pushToStart(
                    type: "DeliveryAttributes", token: .init(token: token(1)), environment: .sandbox, facts: facts),
                .activityToken(activityID: "order-1", token: .init(token: token(2, count: 80)), facts: facts),
            ])
        let saved = try await rig.ledger.load()
        #expect(saved.registrations["activity:order-1"]?.token == TokenFingerprint(token: token(2, count: 80)))
    }

    @Test(
        "while the server is down the work waits with exponential backoff (1, 2, 4, 8, 8 s at full jitter), then lands")
    func backoffSchedule() async throws {
        let rig = SyncRig()
        await rig.api.fail(.unavailable, .unavailable, .unavailable, .unavailable, .unavailable)
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        #expect(rig.sleeps.all == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }

    @Test("jitter shortens each delay by up to half; Retry-After lengthens it")
    func jitter() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(300))
        #expect(policy.delay(attempt: 3, jitter: 0) == .seconds(4))
        #expect(policy.delay(attempt: 3, jitter: 0.5) == .seconds(6))
        #expect(policy.delay(attempt: 20, jitter: 1) == .seconds(300))
        #expect(policy.delay(attempt: 0, jitter: 1, retryAfter: 30) == .seconds(30))
    }

    @Test("a relaunch with the same ledger sends nothing again")
    func relaunchSendsNothing() async throws {
        let rig = SyncRig()
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 2 })
        await rig.sync.stop()
        let second = rig.relaunched()
        await second.start()
        #expect(
            await waitFor { await second.history.filter { if case .unchanged = $0 { true } else { false } }.count == 2 }
        )
        #expect(await rig.api.registrations.count == 2)
    }

    @Test("a rotated update token is registered again; the ledger keeps the newest fingerprint")
    func rotation() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        rig.host.rotate(localID: "local-1", to: token(3))
        #expect(await waitFor { await rig.api.registrations.count == 2 })
        #expect(
            await rig.api.registrations.last
                == .activityToken(
                    activityID: "order-1", token: .init(token: token(3)), facts: await rig.host.deviceFacts()))
        #expect(
            try await rig.ledger.load().registrations["activity:order-1"]?.token == TokenFingerprint(token: token(3)))
    }

    @Test("changed facts (Live Activities switched off) register every token again; unchanged facts send nothing")
    func factsChange() async throws {
        let rig = SyncRig()
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 2 })
        await rig.sync.refreshFacts()
        #expect(await rig.settled())
        #expect(await rig.api.registrations.count == 2)
        rig.host.setFacts { $0.areActivitiesEnabled = false }
        await rig.sync.refreshFacts()
        #expect(await waitFor { await rig.api.registrations.count == 4 })
        #expect(
            await rig.api.registrations.suffix(2).allSatisfy { call in
                switch call {
                case .pushToStart(_, _, _, let facts), .activityToken(_, _, let facts): !facts.areActivitiesEnabled
                default: false
                }
            })
    }

    @Test("a 401 asks for a fresh credential once and succeeds with it")
    func unauthorizedRefreshesOnce() async throws {
        let rig = SyncRig()
        await rig.api.fail(.unauthorized)
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        #expect(await rig.api.credentialRefreshes == 1)
        #expect(rig.sleeps.all.isEmpty)
    }

    @Test("a second 401 after the fresh credential surfaces; no third try, no backoff")
    func unauthorizedTwiceSurfaces() async throws {
        let rig = SyncRig()
        await rig.api.fail(.unauthorized, .unauthorized)
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        await rig.sync.start()
        #expect(await rig.settled())
        #expect(await rig.api.credentialRefreshes == 1)
        #expect(await rig.api.registrations.isEmpty)
        let gaveUp = await rig.sync.history.contains {
            if case .gaveUp(_, let error) = $0 { error.status == 401 } else { false }
        }
        #expect(gaveUp)
        #expect(rig.sleeps.all.isEmpty)
    }

    @Test("another 4xx surfaces at once, naming the token by fingerprint only, and the queue goes on")
    func refusalSurfaces() async throws {
        let rig = SyncRig()
        await rig.api.fail(.refused)
        rig.host.issuePushToStart("DeliveryAttributes", token(1))
        await rig.sync.start()
        // The refusal first: the sync reads the push-to-start and activity streams side by side, so an
        // activity started now could take the one refusal queued in the fake API.
        #expect(
            await waitFor {
                await rig.sync.history.contains { if case .gaveUp = $0 { true } else { false } }
            })
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        let history = await rig.sync.history
        let surfaced = history.compactMap { event -> String? in
            if case .gaveUp(let work, let error) = event, error.code == "unknown_attributes_type" { return work }
            return nil
        }
        #expect(surfaced.count == 1)
        #expect(!"\(history)".contains(token(1).map { String(format: "%02x", $0) }.joined()))
        #expect(surfaced.first?.contains(TokenFingerprint(token: token(1)).server) == true)
        #expect(rig.sleeps.all.isEmpty)
    }
}
