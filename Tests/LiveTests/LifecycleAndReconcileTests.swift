import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

@Suite("LiveActivitySync reports lifecycle changes and reconciles, over in-memory seams")
struct LifecycleAndReconcileTests {
    func serverActivity(_ id: String, _ state: String, tokenValid: Bool = true) -> ServerDeviceActivity {
        ServerDeviceActivity(
            activityId: id, attributesType: "DeliveryAttributes", state: state, version: 1, tokenFingerprint: nil,
            tokenValid: tokenValid)
    }

    @Test("an activity that ends and is dismissed on the phone is reported ended, then dismissed, once each")
    func reportsEndAndDismissal() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        rig.host.setPhase(localID: "local-1", .ended)
        rig.host.setPhase(localID: "local-1", .dismissed)
        #expect(await waitFor { await rig.api.reports.count == 2 })
        #expect(await rig.api.reports.map(\.state) == [.ended, .dismissed])
        #expect(await rig.api.reports.allSatisfy { $0.activityID == "order-1" && $0.deviceID == "iphone-1" })
        #expect(try await rig.ledger.load().pendingReports.isEmpty)
    }

    @Test("a report made while the server is down is kept in the ledger, survives a relaunch, and lands once it is up")
    func reportSurvivesOutage() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        await rig.api.setDown(.unavailable)
        rig.host.setPhase(localID: "local-1", .dismissed)
        #expect(await waitFor { rig.sleeps.all.count >= 3 })
        #expect(try await rig.ledger.load().pendingReports.map(\.state) == [.dismissed])
        await rig.sync.stop()
        await rig.api.setDown(nil)
        let second = rig.relaunched()
        await second.start()
        #expect(await waitFor { await rig.api.reports.count == 1 })
        #expect(await rig.settled(second))
        #expect(try await rig.ledger.load().pendingReports.isEmpty)
        #expect(await rig.api.reports.map(\.state) == [.dismissed])
    }

    @Test("reconcile ends on the phone what the server says is over and reports lost what the phone lacks")
    func reconcile() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        rig.host.start(localID: "local-2", serverID: "order-2", token: token(3))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 2 })
        await rig.api.setServerActivities([
            serverActivity("order-1", "ended"), serverActivity("order-2", "active"),
            serverActivity("order-3", "active"), serverActivity("order-4", "active", tokenValid: false),
            serverActivity("order-5", "dismissed"),
        ])
        let outcome = await rig.sync.reconcile()
        #expect(outcome.endedLocally == ["order-1"])
        #expect(outcome.reportedLost == ["order-3"])
        #expect(rig.host.endedLocally == ["local-1"])
        #expect(await waitFor { await rig.api.reports.count == 1 })
        #expect(await rig.api.reports == [LifecycleReport(activityID: "order-3", deviceID: "iphone-1", state: .lost)])
        // The activity the server ended is not reported back as dismissed by the phone.
        #expect(await rig.settled())
        #expect(await rig.api.reports.count == 1)
    }

    @Test("reconcile against a server without the route says so and changes nothing")
    func reconcileWithoutRoute() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: "order-1", token: token(2))
        await rig.sync.start()
        #expect(await waitFor { await rig.api.registrations.count == 1 })
        await rig.api.fail(.noRoute)
        let outcome = await rig.sync.reconcile()
        #expect(outcome.failure?.isMissingRoute == true)
        #expect(outcome.endedLocally.isEmpty && outcome.reportedLost.isEmpty)
        #expect(rig.host.endedLocally.isEmpty)
    }

    @Test("an activity whose attributes name no server activity is surfaced, not registered")
    func unidentified() async throws {
        let rig = SyncRig()
        rig.host.start(localID: "local-1", serverID: nil, token: token(2))
        await rig.sync.start()
        #expect(
            await waitFor {
                await rig.sync.history.contains(.unidentified(localID: "local-1", attributesType: "DeliveryAttributes"))
            })
        #expect(await rig.api.registrations.isEmpty)
    }
}
