import Foundation

/// Something the sync did, for the app's logs and for tests. Names tokens by fingerprint only.
@available(iOS 16.0, *)
public enum LiveActivitySyncEvent: Sendable, Equatable {
    /// The server accepted a token with these facts.
    case registered(Registration)
    /// The ledger says the server already has exactly this; nothing was sent.
    case unchanged(key: String)
    /// The server acknowledged a lifecycle report.
    case reported(LifecycleReport)
    /// A call failed in a way that can pass; it is tried again after `delay`.
    case retrying(work: String, attempt: Int, delay: Duration, error: DeviceAPIError)
    /// The server refused the credential; a fresh one was asked for once.
    case refreshedCredential(work: String)
    /// A call failed in a way retrying cannot fix; the work was dropped. The app should look.
    case gaveUp(work: String, error: DeviceAPIError)
    /// An activity the server says is over was ended on the phone.
    case endedLocally(activityID: String)
    /// The server has no route for this yet (an older server).
    case serverLacksRoute(work: String)
    /// The activity's attributes name no server activity, so its token cannot be registered.
    case unidentified(localID: String, attributesType: String)
    /// The ledger could not be read or written; the sync goes on in memory.
    case ledgerFailed(String)
    /// The server recorded a press of the Live Activity's button (its event is on the way to the card).
    case actionPressed(ActionPress)
    /// iOS 17.x withholds the push-to-start token until the app starts an activity itself, and the
    /// placeholder is off: said once per launch, with the fix (`pushToStartWithheldExplanation`).
    case pushToStartWithheld(osVersion: String)
    /// The hidden placeholder was requested and ended at once, so iOS 17.x hands out the push-to-start token.
    case placeholderStarted
    /// The hidden placeholder could not be started; the push-to-start token may not come.
    case placeholderFailed(PlaceholderError)
}

@available(iOS 16.0, *)
extension LiveActivitySyncEvent {
    /// Why a 17.x phone has no push-to-start token yet, and what turns the workaround on.
    public static func pushToStartWithheldExplanation(osVersion: String) -> String {
        "iOS \(osVersion) gives the push-to-start token only after the app has started a Live Activity itself, "
            + "so the server cannot start one on this phone yet: set LiveActivitySyncConfiguration."
            + "pushToStartPlaceholder (Expo: configure({ pushToStartPlaceholder: true })) to start a hidden "
            + "placeholder at launch"
    }
}

/// The outcome of `LiveActivitySync.reconcile()`.
public struct ReconcileOutcome: Sendable, Equatable {
    /// Server activity ids ended on the phone because the server says they are over.
    public var endedLocally: [String] = []
    /// Server activity ids reported `lost`: the server lists them for this device, the phone does not have them.
    public var reportedLost: [String] = []
    /// Why the server could not be asked, when it could not.
    public var failure: DeviceAPIError?

    public init() {}
}

/// One piece of work for the server, kept until it succeeds or cannot.
enum SyncWork: Sendable, Equatable, CustomStringConvertible {
    case pushToStart(PushToStartToken)
    /// `attributes`: what the token is matched by at the server instead of the id, when the activity says so.
    case activityToken(serverActivityID: String, token: Data, attributes: [String: String]? = nil)
    case report(LifecycleReport)

    /// The ledger key of a registration; one piece of work per key is enough (the newest token wins).
    var registrationKey: String? {
        switch self {
        case .pushToStart(let token): "\(Registration.Kind.pushToStart.rawValue):\(token.attributesType)"
        case .activityToken(let id, _, _): "\(Registration.Kind.activity.rawValue):\(id)"
        case .report: nil
        }
    }

    var description: String {
        switch self {
        case .pushToStart(let token):
            "push-to-start token \(TokenFingerprint(token: token.token)) for \(token.attributesType)"
        case .activityToken(let id, let token, _): "update token \(TokenFingerprint(token: token)) for activity \(id)"
        case .report(let report): "lifecycle report '\(report.state.rawValue)' for activity \(report.activityID)"
        }
    }
}
