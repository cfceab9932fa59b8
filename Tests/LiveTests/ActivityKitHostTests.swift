// Runs only against the look-alike, whose package hooks play the system (tokens, remote starts,
// phases); on Apple platforms ActivityKit itself is there and has no such hooks.
#if !canImport(ActivityKit)
    import ActivityKitShim
    import DropTrackLive
    import DropTrackTesting
    import Foundation
    import Testing

    /// An attributes type of its own: ActivityKit's registry is per type and process-wide, so no
    /// other suite's activities show up here.
    struct ParcelAttributes: ActivityAttributes, DropTrackIdentifiedAttributes, Sendable {
        struct ContentState: Codable, Hashable, Sendable { var status: String }
        var parcelID: String
        var dropTrackActivityID: String { parcelID }
    }

    @Suite("ActivityKitHost over ActivityKit (the look-alike) drives the sync", .serialized)
    struct ActivityKitHostTests {
        func rig() -> (LiveActivitySync, InMemoryDeviceAPI) {
            let api = InMemoryDeviceAPI()
            let sync = LiveActivitySync(
                host: ActivityKitHost<ParcelAttributes>(appBuild: "42"), api: api,
                ledger: InMemoryRegistrationLedger(),
                configuration: LiveActivitySyncConfiguration(deviceID: "iphone-ak", environment: .production))
            return (sync, api)
        }

        func content(_ status: String) -> ActivityContent<ParcelAttributes.ContentState> {
            ActivityContent(state: ParcelAttributes.ContentState(status: status), staleDate: nil)
        }

        @Test("push-to-start and update tokens, a rotation and a dismissal reach the server; reconcile ends locally")
        func wholeLife() async throws {
            let (sync, api) = rig()
            Activity<ParcelAttributes>.simulatePushToStartToken(token(9))
            await sync.start()
            #expect(await waitFor { await api.registrations.count == 1 })
            guard case .pushToStart(let type, let fingerprint, .production, let facts)? = await api.registrations.first
            else {
                Issue.record("no push-to-start registration: \(await api.calls)")
                return
            }
            #expect(type == "ParcelAttributes" && fingerprint == TokenFingerprint(token: token(9)))
            #expect(facts.appBuild == "42" && facts.areActivitiesEnabled)

            let activity = Activity<ParcelAttributes>.simulateRemoteStart(
                attributes: ParcelAttributes(parcelID: "parcel-1"), content: content("Packed"))
            activity.simulatePushToken(token(10))
            #expect(await waitFor { await api.registrations.count == 2 })
            activity.simulatePushToken(token(11))
            #expect(await waitFor { await api.registrations.count == 3 })
            #expect(
                await api.registrations.last
                    == .activityToken(activityID: "parcel-1", token: .init(token: token(11)), facts: facts))

            activity.simulateState(.dismissed)
            #expect(await waitFor { await api.reports.map(\.state) == [.dismissed] })

            let other = Activity<ParcelAttributes>.simulateRemoteStart(
                attributes: ParcelAttributes(parcelID: "parcel-2"), content: content("Packed"))
            await api.setServerActivities([
                ServerDeviceActivity(
                    activityId: "parcel-2", attributesType: "ParcelAttributes", state: "ended", version: 3,
                    tokenFingerprint: nil, tokenValid: true)
            ])
            let outcome = await sync.reconcile()
            #expect(outcome.endedLocally == ["parcel-2"])
            #expect(other.activityState == .dismissed)
            await sync.stop()
        }

        @Test(
            "a scheduled start (iOS 26's .pending) is pending to the sync, not active: it reports nothing, goes active when it starts, and reconcile ends it when the server ended its activity"
        )
        func scheduledStart() async throws {
            let scheduled = try Activity<ParcelAttributes>.request(
                attributes: ParcelAttributes(parcelID: "parcel-scheduled"), content: content("Packed"),
                pushType: .token, style: .standard,
                alertConfiguration: AlertConfiguration(title: "On its way", body: "Parcel", sound: .default),
                start: Date().addingTimeInterval(3600))
            #expect(scheduled.activityState == .pending)
            let host = ActivityKitHost<ParcelAttributes>(appBuild: "42")
            #expect(await host.runningActivities().first { $0.localID == scheduled.id }?.phase == .pending)
            var phases = host.phases(localID: scheduled.id).makeAsyncIterator()
            #expect(await phases.next() == .pending)
            scheduled.simulateState(.active)
            #expect(await phases.next() == .active)

            let later = try Activity<ParcelAttributes>.request(
                attributes: ParcelAttributes(parcelID: "parcel-later"), content: content("Packed"), pushType: .token,
                style: .standard,
                alertConfiguration: AlertConfiguration(title: "On its way", body: "Parcel", sound: .default),
                start: Date().addingTimeInterval(3600))
            let (sync, api) = rig()
            await api.setServerActivities([
                ServerDeviceActivity(
                    activityId: "parcel-later", attributesType: "ParcelAttributes", state: "ended", version: 2,
                    tokenFingerprint: nil, tokenValid: true)
            ])
            #expect(await sync.reconcile().endedLocally == ["parcel-later"])
            #expect(later.activityState == .dismissed)
            let reports = await api.reports
            #expect(reports.isEmpty, "a pending activity is not over: \(reports)")
            await scheduled.end(nil, dismissalPolicy: .immediate)
        }
    }
#endif
