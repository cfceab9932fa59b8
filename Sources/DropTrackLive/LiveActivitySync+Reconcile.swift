import Foundation

@available(iOS 16.0, *)
extension LiveActivitySync {
    /// Makes the phone and the server agree, at launch and whenever the app becomes active:
    /// activities the phone still shows that the server says ended or were dismissed are ended on the
    /// phone; activities the server lists for this device that the phone does not have are reported
    /// `lost`, so the server stops sending to their tokens. Facts that changed are reported too.
    ///
    /// Needs `GET /v1/devices/{deviceId}/activities`; against a server without it, `failure` says so
    /// (`isMissingRoute`) and nothing else happens.
    @discardableResult
    public func reconcile() async -> ReconcileOutcome {
        refreshFacts()
        var outcome = ReconcileOutcome()
        let deviceID = configuration.deviceID
        let serverActivities: [ServerDeviceActivity]
        do throws(DeviceAPIError) {
            serverActivities = try await call("reconcile") { () async throws(DeviceAPIError) in
                try await self.api.deviceActivities(deviceID: deviceID)
            }
        } catch {
            emit(error.isMissingRoute ? .serverLacksRoute(work: "reconcile") : .gaveUp(work: "reconcile", error: error))
            outcome.failure = error
            return outcome
        }
        let running = await host.runningActivities()
        let serverByID = Dictionary(
            serverActivities.map { ($0.activityId, $0) }, uniquingKeysWith: { first, _ in first })
        // A scheduled one too: it would appear later showing a delivery the server already ended.
        for activity in running where activity.phase.isRunning {
            guard let serverID = activity.serverActivityID, serverByID[serverID]?.isOver == true else { continue }
            endedForServer.insert(serverID)
            await host.endLocally(localID: activity.localID)
            outcome.endedLocally.append(serverID)
            emit(.endedLocally(activityID: serverID))
        }
        let onPhone = Set(running.compactMap(\.serverActivityID))
        for entry in serverActivities where !entry.isOver && entry.tokenValid && !onPhone.contains(entry.activityId) {
            await report(LifecycleReport(activityID: entry.activityId, deviceID: deviceID, state: .lost))
            outcome.reportedLost.append(entry.activityId)
        }
        return outcome
    }
}
