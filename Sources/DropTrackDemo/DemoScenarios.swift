import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackRuntime
import Foundation

/// The dashboard's buttons that span the server and both phones: Reset, and the burst that takes FCM
/// past what it stores for an offline phone.
extension DemoStack {
    /// How many updates the offline burst sends: past FCM's 100 stored messages, so it discards them (DT-114).
    public static let offlineBurstUpdates = 120

    /// Ends the running order through the API (at once, so both phones take it off), waits until the
    /// server sent that end, then clears both phones' cards and drops and tells every open dashboard to
    /// clear its log. The switches stay as they are.
    @discardableResult
    public func reset() -> (status: Int, body: JSONValue) {
        var ended: String?
        if let running = driver.runningActivity {
            let answer = driver.end(dismissal: "immediate")
            if answer.status == 200 {
                ended = running
                // The end reaches the phones before they are cleared, so no late push puts a card back.
                _ = driver.waitUntilSent(activityID: running, timeout: .seconds(5))
            } else if driver.runningActivity != nil {
                return answer  // the server may still run it: nothing is cleared
            }
        }
        iphone.reset()
        android.reset()
        server.events.publish(app: Self.appID, event: "reset", payload: .object([:]))
        return (200, .object(["ended": ended.map { .string($0) } ?? .null]))
    }

    /// The Android phone goes offline, the running order gets `offlineBurstUpdates` ETA updates (FCM
    /// stores up to 100, then discards them all), and the phone comes back: the app hears
    /// `onDeletedMessages`, and the phone shows the DT-114 drop. One click instead of over a hundred.
    public func queueUpdatesWhileOffline() -> (status: Int, body: JSONValue) {
        guard driver.runningActivity != nil else {
            return (409, DemoDriver.message("place an order first: the updates go to the running order"))
        }
        android.goOffline()
        server.events.publish(app: Self.appID, event: "device", payload: .object(["device": .string("android")]))
        let burst = driver.sendETAUpdates(count: Self.offlineBurstUpdates, timeout: .seconds(5))
        reconnectAndroid()
        var body = burst.body.objectValue ?? [:]
        body["dropped"] = .array(
            android.drops.filter { $0.trap == "DT-114" }.map { .string($0.reason) })
        return (burst.status, .object(body))
    }

    /// The Android phone reconnects: FCM hands over what it stored, and what it discarded meanwhile
    /// (DT-114) reaches the live log as drops, as the phone's own drops do.
    func reconnectAndroid() {
        let before = android.drops.count
        android.goOnline()
        for drop in android.drops.dropFirst(before) {
            server.events.publish(app: Self.appID, event: "drop", payload: Self.dropJSON(drop))
        }
        server.events.publish(app: Self.appID, event: "device", payload: .object(["device": .string("android")]))
    }
}
