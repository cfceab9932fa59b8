import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackHTTP1
import DropTrackModel
import DropTrackRuntime
import Foundation
import Synchronization

/// The dashboard: its files at `/`, what the simulated phones show at `GET /demo/state`, the
/// buttons at `POST /demo/actions/{place,next,reassign,end,reset,offline-burst}` (place takes
/// `{"replace": true}` to end a running order first) and `POST /demo/broken/{kind}`, the
/// iPhone app's relaunch at `POST /demo/iphone/relaunch`,
/// switches at `POST /demo/settings`, and the live log at `GET /demo/events` (SSE). Demo only:
/// no key, because it runs on loopback for one person; `DemoGuard` keeps other sites' pages out.
struct DemoRoutes: RouteExtension {
    let control: DemoControl

    static let files: [String: (type: String, bytes: [UInt8])] = [
        "/": ("text/html; charset=utf-8", PackageResources.index_html),
        "/index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "/dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
        "/dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
        "/dashboard-live.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_live_js),
    ]

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        // Every request, the API's included: the demo prints its API key, and a rebound page could use it.
        if let demo = control.demo,
            let refusal = DemoGuard(listen: demo.server.configuration.listen, port: demo.server.port).refusal(request)
        {
            return ("/demo/refused", refusal)
        }
        if request.method == "GET", let file = Self.files[request.path] {
            return (
                "/dashboard",
                .response(
                    HTTPResponse(
                        status: 200, headers: [("Content-Type", file.type), ("Cache-Control", "no-store")],
                        body: file.bytes))
            )
        }
        guard request.path.hasPrefix("/demo/") else { return nil }
        guard let demo = control.demo else {
            return ("/demo", .response(.json(503, Array(#"{"error":{"message":"the demo is starting"}}"#.utf8))))
        }
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts.count > 1 ? parts[1] : "", parts.count > 2 ? parts[2] : nil) {
        case ("GET", "state", nil):
            return ("/demo/state", json(200, Self.state(demo)))
        case ("GET", "events", nil):
            return ("/demo/events", events(demo))
        case ("POST", "actions", let action?):
            let result: (status: Int, body: JSONValue)
            switch action {
            case "place":
                let body = (try? JSONValue.parse(bytes: request.body)) ?? .null
                result = demo.driver.place(replacing: body["replace"]?.boolValue == true)
            case "reset": result = demo.reset()
            case "offline-burst": result = demo.queueUpdatesWhileOffline()
            case "next": result = demo.driver.next()
            case "reassign": result = demo.driver.reassign()
            case "end": result = demo.driver.end()
            case "android-dismiss":
                // The user swipes the Live Update away (DT-115): the server is never told.
                let dismissed = demo.driver.currentActivity.map { demo.android.userDismiss(activityId: $0) } ?? false
                demo.server.events.publish(app: DemoStack.appID, event: "device", payload: .object([:]))
                result =
                    dismissed
                    ? (200, .object([:]))
                    : (409, DemoDriver.message("no Live Update to dismiss (place an order, or unlock the phone)"))
            case "android-demote":
                // The user long-presses the card and turns Live Updates off for it (DT-115): it stays
                // as a plain notification, later updates too, and the server is never told.
                let demoted = demo.driver.currentActivity.map { demo.android.userDemote(activityId: $0) } ?? false
                demo.server.events.publish(app: DemoStack.appID, event: "device", payload: .object([:]))
                result =
                    demoted
                    ? (200, .object([:])) : (409, DemoDriver.message("no Live Update to demote (place an order)"))
            default: return ("/demo/actions", json(404, DemoDriver.message("no action \(action)")))
            }
            return (
                "/demo/actions", json(200, .object(["status": .number(Double(result.status)), "body": result.body]))
            )
        case ("POST", "iphone", "relaunch"):
            // A relaunch waits for the server (over HTTP, through these same routes), so it runs on its
            // own; the dashboard hears how it went from the app's log (`app` events) and `/demo/state`.
            demo.iphoneApp.runWithoutWaiting { await $0.relaunch() }
            return ("/demo/iphone/relaunch", json(202, .object(["relaunching": .bool(true)])))
        case ("POST", "iphone", "press"):
            // The card's button: the press goes to the server over HTTP, so it runs on its own too.
            demo.iphoneApp.runWithoutWaiting { await $0.pressButton() }
            return ("/demo/iphone/press", json(202, .object(["pressing": .bool(true)])))
        case ("POST", "broken", let kind?):
            guard let broken = DemoDriver.BrokenPush(rawValue: kind) else {
                return ("/demo/broken", json(404, DemoDriver.message("no broken push \(kind)")))
            }
            let outcome = demo.driver.sendBroken(broken, iphone: demo.iphone)
            demo.server.events.publish(app: DemoStack.appID, event: "broken", payload: outcome)
            return ("/demo/broken", json(200, outcome))
        case ("POST", "settings", nil):
            let body = (try? JSONValue.parse(bytes: request.body)) ?? .null
            if let enabled = body["liveActivitiesEnabled"]?.boolValue {
                demo.iphone.updateSettings { $0.liveActivitiesEnabled = enabled }
            }
            if let allowed = body["androidLiveUpdatesAllowed"]?.boolValue {
                demo.android.updateSettings { $0.userAllowsLiveUpdates = allowed }
            }
            // Offline, FCM keeps up to 100 messages; past that it drops them all (DT-114).
            if let online = body["androidOnline"]?.boolValue {
                if online { demo.reconnectAndroid() } else { demo.android.goOffline() }
            }
            // The apps see the switches change and tell the server, which the diagnosis then reads.
            if body["liveActivitiesEnabled"] != nil || body["androidLiveUpdatesAllowed"] != nil {
                demo.reportDeviceFacts()
            }
            demo.server.events.publish(app: DemoStack.appID, event: "device", payload: .object([:]))
            return ("/demo/settings", json(200, Self.state(demo)))
        default:
            return ("/demo", json(404, DemoDriver.message("no demo endpoint \(request.method) \(request.path)")))
        }
    }

    func json(_ status: Int, _ value: JSONValue) -> HTTPReply { .response(.json(status, value.serialized())) }

    func events(_ demo: DemoStack) -> HTTPReply {
        // "demo" is an app id by AppID's rule; the guard keeps that a checked fact, not an assumption.
        guard let app = AppID(DemoStack.appID) else {
            return json(500, .object(["error": .string("the demo's app id '\(DemoStack.appID)' is not an app id")]))
        }
        return demo.server.events.relay(app: app, ready: .object([:]))
    }

    static func notificationJSON(_ notification: LiveUpdateNotification) -> JSONValue {
        let chip: String =
            switch notification.chip {
            case .none: ""
            case .text(let text): text
            case .timer: "timer"
            case .time(let time): time
            case .iconOnly: "icon"
            }
        let style = notification.progressStyle
        return .object([
            "tag": .string(notification.tag), "title": .string(notification.title), "text": .string(notification.text),
            "subText": .string(notification.subText), "event": .string(notification.event),
            "promoted": .bool(notification.promoted),
            "notPromotedBecause": .array(notification.notPromotedBecause.map { .string($0) }),
            "chip": .string(chip), "color": .string(notification.color),
            "progress": .number(Double(style?.shownProgress ?? 0)), "max": .number(Double(style?.max ?? 100)),
            "segments": .array(
                (style?.shownSegments ?? []).map {
                    .object(["length": .number(Double($0.length)), "color": $0.color.map { .string($0) } ?? .null])
                }),
            "points": .array(
                (style?.shownPoints ?? []).map {
                    .object(["position": .number(Double($0.position)), "color": $0.color.map { .string($0) } ?? .null])
                }),
        ])
    }

    /// What both phones show now, rendered from what they hold (not from what was sent).
    static func state(_ demo: DemoStack) -> JSONValue {
        let now = Date()
        let activities = demo.iphone.activities.map { activity -> JSONValue in
            var object: [String: JSONValue] = [
                "id": .string(activity.id), "phase": .string(activity.phase(at: now)),
                "orderId": activity.attributes["orderId"] ?? .null, "timestamp": .number(Double(activity.timestamp)),
                "lastAlert": activity.lastAlert.map { .string($0) } ?? .null,
                "contentState": activity.contentState,
            ]
            if let state = try? LiveActivityJSON.decode(
                DeliveryAttributes.ContentState.self, from: activity.contentState.encoded())
            {
                let bar = DeliveryWidgetLogic.Bar(state)
                object["view"] = .object([
                    "status": .string(state.status),
                    "litSegments": .number(Double(bar.lit)), "segmentCount": .number(Double(bar.segmentCount)),
                    "percent": .string(bar.progressText),
                    "eta": .string(DeliveryWidgetLogic.minutesText(eta: state.eta, now: now, progress: state.progress)),
                    "stops": .string(bar.remainingText),
                    "courier": .string(
                        DeliveryWidgetLogic.courierLabel(
                            courierName: state.courierName, riderReassigned: state.riderReassigned, compact: false)),
                    "courierCompact": .string(
                        DeliveryWidgetLogic.courierLabel(
                            courierName: state.courierName, riderReassigned: state.riderReassigned, compact: true)),
                    "reassigned": .bool(state.riderReassigned),
                    // The button the widget shows at this step on iOS 17 (DeliveryLiveActivity.swift).
                    "action": DeliveryAction.offered(status: state.status).map { .string($0.title) } ?? .null,
                ])
            }
            return .object(object)
        }
        let notifications = demo.android.notifications.map(Self.notificationJSON)
        let iphoneDrops = demo.iphone.drops.suffix(50).map { DemoStack.dropJSON($0, device: "iphone") }
        // Findings (shown, but a trap anyway: not promoted, a demoted priority, a card the user demoted)
        // share the list with drops, in the order they happened, because the E traps show up as both.
        let androidRecords =
            demo.android.drops.map { (kind: "drop", record: $0) }
            + demo.android.findings.map { (kind: "finding", record: $0) }
        let androidDrops = androidRecords.sorted { $0.record.at < $1.record.at }.suffix(50).map { entry -> JSONValue in
            .object([
                "device": .string("android"), "kind": .string(entry.kind), "reason": .string(entry.record.reason),
                "trap": entry.record.trap.map { .string($0) } ?? .null,
            ])
        }
        return .object([
            "now": .number(now.timeIntervalSince1970.rounded()),
            "order": demo.driver.currentOrder,
            "iphone": .object([
                "liveActivitiesEnabled": .bool(demo.iphone.settings.liveActivitiesEnabled),
                "activities": .array(activities), "drops": .array(iphoneDrops),
                "received": .number(Double(demo.iphone.received)),
                "app": .object([
                    "lastRelaunch": demo.iphoneApp.lastRelaunch.map { .string($0.summary) } ?? .null,
                    "log": .array(
                        demo.iphoneApp.log.suffix(20).map {
                            .object(["kind": .string($0.kind), "text": .string($0.text)])
                        }),
                ]),
            ]),
            "android": .object([
                "liveUpdatesAllowed": .bool(demo.android.settings.userAllowsLiveUpdates),
                "online": .bool(demo.android.isOnline),
                "notifications": .array(notifications), "drops": .array(androidDrops),
                "received": .number(Double(demo.android.received)),
            ]),
        ])
    }
}
