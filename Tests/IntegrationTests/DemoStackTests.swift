import DropTrackContract
import DropTrackCore
import DropTrackDemo
import DropTrackEmulators
import DropTrackLive
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// One request to the demo's HTTP API with its key, over a connection of its own.
private func request(_ demo: DemoStack, _ method: String, _ path: String, _ body: String = "") throws -> (
    status: Int, body: JSONValue
) {
    let connection = try RawConnection(port: demo.server.port)
    defer { connection.close() }
    try connection.send(
        // The demo answers only at its own address, and takes changes only as JSON (DemoGuard).
        "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(demo.server.port)\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\n"
            + "Authorization: Bearer \(demo.apiKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    let response = try connection.readResponse(timeout: .seconds(30))
    return (response.status, (try? JSONValue.parse(bytes: response.body)) ?? .null)
}

/// How long to wait for the iPhone app's sync: it runs on Swift's shared thread pool, which a full
/// parallel test run keeps busy with blocking tests for long stretches.
private let appTimeout: Duration = .seconds(30)

/// The server's token records for the demo iPhone.
private func iphoneTokens(_ demo: DemoStack) -> [TokenRecord] {
    (try? demo.server.store.transaction { try $0.tokens(app: DemoStack.appID, deviceIds: [DemoIPhoneApp.deviceID]) })
        ?? []
}

/// Whether the iPhone app's sync registered a token of this kind (for this activity, when given).
private func registered(_ demo: DemoStack, _ kind: Registration.Kind, activity: String? = nil) async -> Bool {
    guard let history = await demo.iphoneApp.sync?.history else { return false }
    return history.contains {
        guard case .registered(let registration) = $0, registration.kind == kind else { return false }
        return activity == nil || registration.subject == activity
    }
}

/// Requests the server answered on the token routes, from its metrics.
private func tokenRequests(_ demo: DemoStack) throws -> Int {
    let connection = try RawConnection(port: demo.server.port)
    defer { connection.close() }
    try connection.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(demo.server.port)\r\nConnection: close\r\n\r\n")
    let text = String(decoding: try connection.readResponse(timeout: .seconds(30)).body, as: UTF8.self)
    return text.split(separator: "\n").filter {
        $0.hasPrefix("droptrack_http_requests_total{") && $0.contains("route=\"/v1/tokens/")
    }.reduce(0) { $0 + (Int($1.split(separator: " ").last ?? "") ?? 0) }
}

@Suite("The demo, in process: server, emulators and both phones")
struct DemoStackTests {
    @Test(
        "place an order, six steps and a reassignment: both phones show the same final state; a broken push is dropped")
    func wholeLoop() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        #expect(demo.driver.place().status == 201)
        #expect(await waitFor { demo.iphone.activities.count == 1 && demo.android.notifications.count == 1 })
        for _ in 0..<6 { #expect(demo.driver.next().status == 200) }
        #expect(demo.driver.next().status == 409, "no step after delivered")
        #expect(demo.driver.reassign().status == 200)
        func settled() -> Bool {
            guard let activity = demo.iphone.activities.last,
                let state = try? LiveActivityJSON.decode(
                    DeliveryAttributes.ContentState.self, from: activity.contentState.encoded()),
                let notification = demo.android.notifications.last
            else { return false }
            return state.status == "Delivered" && state.riderReassigned && notification.title == "Delivered"
                && notification.text.contains(state.courierName)
        }
        #expect(await waitFor(timeout: .seconds(10), settled))
        #expect(demo.iphone.drops.isEmpty && demo.android.drops.isEmpty)
        let broken = demo.driver.sendBroken(.unixDate, iphone: demo.iphone)
        #expect(broken["status"]?.numberValue == 200, "APNs accepts it")
        #expect(broken["findings"]?.arrayValue?.contains { $0["trap"]?.stringValue == "DT-017" } == true)
        #expect(await waitFor { demo.iphone.drops.contains { $0.trap == "DT-017" } }, "and the phone drops it")
        #expect(demo.driver.end().status == 200)
        #expect(await waitFor { demo.iphone.activities.last?.phase(at: Date()) == "ended" })
    }

    @Test("each broken-push button: the doctor names its trap, and the client, APNs or the phone refuses it")
    func brokenPushes() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let placed = demo.driver.place()
        #expect(placed.status == 201)
        let orderID = try #require(placed.body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.first?.updateToken.isEmpty == false })
        #expect(demo.driver.next().status == 200)
        // The phone holds the server's newest version before anything breaks.
        #expect(
            await waitFor {
                let held = try? demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }
                return held?.version == 2 && demo.iphone.activities.first?.timestamp == held?.timestamp
            },
            "\(String(describing: try? demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }?.timestamp)) \(demo.iphone.activities.map(\.timestamp))"
        )
        #expect(demo.iphone.drops.isEmpty)
        // Status 0: DropTrack's own client refuses a suffix-less topic before sending it.
        let expected: [(DemoDriver.BrokenPush, trap: String, status: Int, phoneDrops: Bool)] = [
            (.topic, "DT-001", 0, false), (.unixDate, "DT-017", 200, true),
            (.startWithoutAlert, "DT-025", 200, true), (.oldTimestamp, "DT-020", 200, true),
        ]
        for (kind, trap, status, phoneDrops) in expected {
            let answer = demo.driver.sendBroken(kind, iphone: demo.iphone)
            let traps = answer["findings"]?.arrayValue?.compactMap { $0["trap"]?.stringValue } ?? []
            #expect(traps.contains(trap), "\(kind): the doctor found \(traps)")
            #expect(!traps.contains("DT-063"), "the demo's client signs every push; no missing-credentials finding")
            #expect(answer["status"]?.numberValue == Double(status), "\(kind): \(answer)")
            if phoneDrops {
                #expect(
                    await waitFor { demo.iphone.drops.contains { $0.trap == trap } }, "\(kind): \(demo.iphone.drops)")
            }
        }
        // The server's diagnosis of the order shows what the phone dropped, by trap.
        let response = try request(demo, "GET", "/v1/activities/\(orderID)/diagnosis")
        let dropped = Set(response.body["deviceDrops"]?.arrayValue?.compactMap { $0["trap"]?.stringValue } ?? [])
        #expect(response.status == 200 && dropped.isSuperset(of: ["DT-017", "DT-020"]), "\(dropped)")
    }

    @Test(
        "turning Live Activities off on the phone reaches the diagnosis: the app reports it, and DT-048 names the device"
    )
    func switchReachesDiagnosis() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let placed = demo.driver.place()
        let orderID = try #require(placed.body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.first?.updateToken.isEmpty == false })
        let updateToken = try #require(demo.iphone.activities.first?.updateToken)
        func lateFindings() throws -> [String] {
            try request(demo, "GET", "/v1/activities/\(orderID)/diagnosis").body["findings"]?.arrayValue?.compactMap {
                $0["device"]?.stringValue == updateToken.fingerprint.value ? $0["trap"]?.stringValue : nil
            } ?? []
        }
        #expect(try !lateFindings().contains("DT-048"))
        #expect(try request(demo, "POST", "/demo/settings", #"{"liveActivitiesEnabled":false}"#).status == 200)
        #expect(
            await waitFor(timeout: appTimeout) { (try? lateFindings())?.contains("DT-048") == true },
            "\((try? lateFindings()) ?? [])")
    }

    @Test(
        "the iPhone runs DropTrackLive: its tokens reach the server through the sync, with a device credential the backend had minted"
    )
    func iphoneRegistersThroughTheSync() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        let signingKey = demo.dataDirectory + "/keys/\(DemoStack.appID)-device-\(DemoStack.deviceKeyID).p8"
        let mode = try FileManager.default.attributesOfItem(atPath: signingKey)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the DropTrack-held signing key is the owner's only")
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        // The sync sends `appBuild` (the old demo code did not), and the credential's `sub` is the user.
        let pushToStart = try #require(iphoneTokens(demo).first { $0.kind == .pushToStart })
        #expect(pushToStart.userId == DemoStack.userID && pushToStart.device?["appBuild"]?.stringValue == "1")
        #expect(demo.iphoneApp.credentialsMinted >= 1)
        let placed = demo.driver.place()
        let orderID = try #require(placed.body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.count == 1 }, "the start reaches the phone")
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .activity, activity: orderID) })
        let updateToken = try #require(demo.iphone.activities.first?.updateToken)
        #expect(iphoneTokens(demo).contains { $0.activityId == orderID && $0.token == updateToken })
        #expect(demo.iphoneApp.log.contains { $0.kind == "registered" && $0.text.contains(orderID) })
        #expect(!demo.iphoneApp.log.contains { $0.text.contains(updateToken.wireValue) }, "tokens by fingerprint only")
    }

    @Test(
        "a relaunch re-sends nothing, and ends on the phone the activity that ended while the app was closed")
    func relaunch() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let orderID = try #require(demo.driver.place().body["activityId"]?.stringValue)
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .activity, activity: orderID) })
        #expect(await waitFor(timeout: appTimeout) { await demo.iphoneApp.sync?.pendingWork == 0 })
        let updateToken = try #require(demo.iphone.activities.first?.updateToken)

        // The app is closed; the delivery ends and APNs cannot deliver the end, so the phone still shows it.
        await demo.iphoneApp.sync?.stop()
        demo.apns.markTokenDead(updateToken)
        #expect(demo.driver.end().status == 200)
        #expect(
            await waitFor {
                let held = try? demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }
                return held?.state == .ended
            })
        #expect(demo.iphone.activities.first?.phase(at: Date()) == "active")
        let before = try tokenRequests(demo)

        let outcome = try #require(await demo.iphoneApp.relaunch())
        #expect(outcome.tokensResent == 0 && outcome.pending == 0)
        #expect(outcome.reconciled.endedLocally == [orderID] && outcome.reconciled.failure == nil)
        #expect(outcome.summary == "relaunched: 0 tokens re-sent, reconciled: ended 1, lost 0")
        #expect(demo.iphone.activities.first?.phase(at: Date()) == "dismissed", "ended on the phone")
        #expect(try tokenRequests(demo) == before, "no token sent again")
        let state = try request(demo, "GET", "/demo/state").body
        #expect(state["iphone"]?["app"]?["lastRelaunch"]?.stringValue == outcome.summary)

        // The new launch keeps the phone and the server in step: the next order reaches the phone.
        let next = try #require(demo.driver.place().body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.count == 2 })
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .activity, activity: next) })
    }

    @Test(
        "one current order: a second place is refused until confirmed, which ends the first on the server and the phones"
    )
    func oneCurrentOrder() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let first = try #require(demo.driver.place().body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.count == 1 && demo.android.notifications.count == 1 })
        let second = try request(demo, "POST", "/demo/actions/place", "{}").body
        #expect(second["status"]?.numberValue == 409)
        #expect(second["body"]?["error"]?["code"]?.stringValue == "order_running")
        #expect(second["body"]?["error"]?["order"]?.stringValue == first)
        #expect(demo.driver.currentActivity == first, "nothing placed")

        let replaced = try request(demo, "POST", "/demo/actions/place", #"{"replace":true}"#).body
        #expect(replaced["status"]?.numberValue == 201, "\(replaced)")
        let next = try #require(replaced["body"]?["activityId"]?.stringValue)
        #expect(next != first)
        let held = try demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: first) }
        #expect(held?.state == .ended, "the first order ended through the API")
        #expect(
            await waitFor {
                demo.iphone.activities.map { $0.phase(at: Date()) } == ["dismissed", "active"]
                    && demo.iphone.activities.last?.attributes["orderId"]?.stringValue == next
                    && demo.android.notification(forActivity: first)?.ongoing == false
                    && demo.android.notifications.last?.tag == next
            },
            "the first order ended on both phones: \(demo.iphone.activities.map { ($0.id, $0.phase(at: Date())) }) \(demo.android.notifications.map { ($0.tag, $0.ongoing) })"
        )
        let order = try request(demo, "GET", "/demo/state").body["order"]
        #expect(order?["id"]?.stringValue == next && order?["running"]?.boolValue == true)
        #expect(order?["status"]?.stringValue == "Order placed")

        // Quick clicks at once: one order starts, the others are asked to confirm.
        #expect(demo.driver.end().status == 200)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let status = demo.driver.place().status
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0.sorted() } == [201, 409, 409, 409])
    }

    @Test("Reset ends the running order through the API and clears both phones; the buttons then act on no order")
    func reset() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let orderID = try #require(demo.driver.place().body["activityId"]?.stringValue)
        #expect(await waitFor { demo.iphone.activities.count == 1 && demo.android.notifications.count == 1 })
        _ = demo.driver.sendBroken(.unixDate, iphone: demo.iphone)
        #expect(await waitFor { !demo.iphone.drops.isEmpty }, "a drop to clear")

        let answer = try request(demo, "POST", "/demo/actions/reset", "{}").body
        #expect(answer["status"]?.numberValue == 200 && answer["body"]?["ended"]?.stringValue == orderID, "\(answer)")
        let held = try demo.server.store.transaction { try $0.activity(app: DemoStack.appID, id: orderID) }
        #expect(held?.state == .ended)
        #expect(demo.iphone.activities.allSatisfy { $0.phase(at: Date()) == "dismissed" })
        #expect(demo.iphone.drops.isEmpty && demo.iphone.received == 0)
        #expect(demo.android.notifications.isEmpty && demo.android.drops.isEmpty && demo.android.received == 0)
        #expect(demo.driver.next().status == 409 && demo.driver.end().status == 409, "no order runs")
        #expect(demo.driver.currentOrder["running"]?.boolValue == false)
        #expect(demo.reset().status == 200, "a reset with nothing running is fine")
        // The next order starts clean.
        #expect(demo.driver.place().status == 201)
        #expect(await waitFor { demo.android.notifications.count == 1 })
    }

    @Test("the offline burst: 120 updates while the Android phone is offline take FCM past 100, and DT-114 shows")
    func offlineBurst() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        #expect(demo.queueUpdatesWhileOffline().status == 409, "no order to update")
        #expect(demo.driver.place().status == 201)
        #expect(await waitFor { demo.android.notifications.count == 1 })
        let answer = try request(demo, "POST", "/demo/actions/offline-burst", "{}").body
        #expect(answer["status"]?.numberValue == 200, "\(answer)")
        #expect(answer["body"]?["sent"]?.numberValue == Double(DemoStack.offlineBurstUpdates))
        let dropped = demo.android.drops.filter { $0.trap == "DT-114" }
        #expect(dropped.count == 1 && dropped.first?.reason.contains("discarded 101 messages") == true, "\(dropped)")
        #expect(answer["body"]?["dropped"]?.arrayValue?.count == 1)
        #expect(demo.android.isOnline && demo.android.pendingMessages == 0, "back online, the rest handed over")
    }

    @Test("POST /demo/iphone/relaunch relaunches the app, and the state reports it")
    func relaunchRoute() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        #expect(await waitFor(timeout: appTimeout) { await demo.iphoneApp.sync?.pendingWork == 0 })
        #expect(try request(demo, "POST", "/demo/iphone/relaunch", "{}").status == 202)
        #expect(await waitFor(timeout: appTimeout) { demo.iphoneApp.lastRelaunch != nil })
        #expect(demo.iphoneApp.lastRelaunch?.summary == "relaunched: 0 tokens re-sent, reconciled: ended 0, lost 0")
    }

    @Test(
        "the card offers 'Got it' once the courier is almost there; POST /demo/iphone/press sends the press through the app, the card turns delivered, and the app's log shows it"
    )
    func pressRoute() async throws {
        let demo = try DemoStack(listen: "127.0.0.1:0", logger: .disabled)
        defer { demo.stop() }
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .pushToStart) })
        let orderID = try #require(demo.driver.place().body["activityId"]?.stringValue)
        #expect(await waitFor(timeout: appTimeout) { await registered(demo, .activity, activity: orderID) })
        func shown() throws -> JSONValue? {
            try request(demo, "GET", "/demo/state").body["iphone"]?["activities"]?.arrayValue?.first
        }
        #expect(try shown()?["view"]?["action"] == .null, "no button before the courier is near")
        for _ in 0..<5 { #expect(demo.driver.next().status == 200) }
        #expect(await waitFor { (try? shown())?["view"]?["action"]?.stringValue == "Got it" })

        #expect(try request(demo, "POST", "/demo/iphone/press", "{}").status == 202)
        #expect(
            await waitFor(timeout: appTimeout) {
                demo.iphoneApp.log.contains { $0.kind == "pressed" && $0.text.contains(orderID) }
            })
        #expect(await waitFor { (try? shown())?["view"]?["status"]?.stringValue == DeliveryStep.delivered.status })
    }
}
