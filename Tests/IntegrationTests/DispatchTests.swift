import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import DropTrackWire
import Foundation
import Synchronization
import Testing

@Suite("The dispatch server against the APNs and FCM emulators")
struct DispatchTests {
    @Test(
        "two iPhones and an Android phone: start, seven steps, a reassignment and the end; every device ends on the final state",
        arguments: StoreEngine.allCases)
    func wholeDelivery(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine)
        defer { server.stop() }
        let registry = server.registry
        let phones = (1...2).map { _ in (start: APNsHarness.randomToken(), update: APNsHarness.randomToken(bytes: 80)) }
        for (index, phone) in phones.enumerated() {
            _ = try registry.registerToken(
                app: "app1", kind: .pushToStart,
                body: server.json(
                    #"{"userId":"u1","deviceId":"iphone-\#(index)","token":"\#(phone.start)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
                ))
        }
        let android = server.fcm.newToken()
        _ = try registry.registerToken(
            app: "app1", kind: .fcm, body: server.json(#"{"userId":"u1","deviceId":"pixel","token":"\#(android)"}"#))
        let (started, created) = try registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"order-1","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"A-1"},"event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},"alert":{"title":"Order placed","body":"Sam is on it"},"idempotencyKey":"start-order-1"}"#
            ))
        #expect(created)
        #expect(started["destinations"]?.numberValue == 3)
        #expect(started["destinationsByKind"] == .object(["push_to_start": .number(2), "fcm": .number(1)]))
        try server.drain()
        for phone in phones {
            let start = try #require(server.apns.emulator.latestAccepted(forToken: phone.start))
            #expect(start.event == "start" && start.findings.isEmpty, "\(start.findings)")
        }
        #expect(server.fcm.emulator.latestDelivered(forToken: android)?.data?["event"] == "start")
        // Google's Date header told the server its clock; the APNs emulator sends none.
        let clockLines = server.metrics.render().split(separator: "\n").filter {
            $0.hasPrefix("droptrack_provider_clock_offset_seconds{")
        }
        #expect(
            clockLines.count == 1
                && clockLines[0].hasPrefix(#"droptrack_provider_clock_offset_seconds{provider="fcm"}"#))
        #expect(abs(Double(clockLines.first?.split(separator: " ").last ?? "") ?? 99) <= 2, "\(clockLines)")
        for (index, phone) in phones.enumerated() {
            try registerUpdateToken(server, activity: "order-1", device: "iphone-\(index)", token: phone.update)
        }
        for step in ["confirmed", "preparing", "picked_up", "on_the_way"] {
            _ = try registry.applyEvent(
                app: "app1", activityId: "order-1",
                body: server.json(#"{"type":"delivery.step","data":{"step":"\#(step)"}}"#))
            try server.drain()
        }
        _ = try registry.applyEvent(
            app: "app1", activityId: "order-1",
            body: server.json(#"{"type":"delivery.reassign","data":{"courierName":"Priya"}}"#))
        try server.drain()
        for step in ["nearby", "delivered"] {
            _ = try registry.applyEvent(
                app: "app1", activityId: "order-1",
                body: server.json(#"{"type":"delivery.step","data":{"step":"\#(step)"}}"#))
            try server.drain()
        }
        let final = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "order-1") })
        #expect(final.state == .ended)
        for phone in phones {
            let last = try #require(server.apns.emulator.latestAccepted(forToken: phone.update))
            #expect(last.event == "end")
            #expect(last.contentState == final.contentState)
            let state = try LiveActivityJSON.decode(
                DeliveryAttributes.ContentState.self, from: try #require(last.contentState).encoded())
            #expect(state.status == "Delivered" && state.courierName == "Priya" && state.riderReassigned)
            let stamps = server.apns.emulator.records(forToken: phone.update).compactMap(\.timestamp)
            #expect(stamps == stamps.sorted() && Set(stamps).count == stamps.count)
            #expect(server.apns.emulator.records(forToken: phone.update).allSatisfy { $0.findings.isEmpty })
        }
        let androidLast = try #require(server.fcm.emulator.latestDelivered(forToken: android))
        #expect(
            androidLast.data?["event"] == "end" && androidLast.data?["status"] == "Delivered"
                && androidLast.data?["courierName"] == "Priya")
        let described = try registry.describe(app: "app1", activityId: "order-1")
        #expect(described["state"]?.stringValue == "ended")
        #expect((described["timeline"]?.arrayValue?.count ?? 0) >= 3 + 2 * 7)
        #expect(described["devices"]?.arrayValue?.allSatisfy { $0["valid"]?.boolValue == true } == true)
        #expect(
            server.metrics.value(
                "droptrack_sends_total", ["app": "app1", "provider": "apns", "outcome": "success", "reason": "ok"]) > 0)
    }

    @Test(
        "the same idempotency key gives the same answer and no second send, from eight threads at once",
        arguments: StoreEngine.allCases)
    func idempotentStart(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine)
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .pushToStart,
            body: server.json(
                #"{"userId":"u1","deviceId":"d","token":"\#(token)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            ))
        // Threads of their own, released together: on two cores a GCD pool may run them one by one.
        for round in 0..<4 {
            let body = server.json(
                #"{"activityId":"o-\#(round)","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"2"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"k-\#(round)"}"#
            )
            let results = Mutex<[String]>([])
            let go = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                Thread {
                    go.wait()
                    let answer: String
                    do {
                        answer = String(
                            decoding: try server.registry.startActivity(app: "app1", body: body).response.serialized(),
                            as: UTF8.self)
                    } catch { answer = "error: \(error)" }
                    results.withLock { $0.append(answer) }
                    done.leave()
                }.start()
            }
            for _ in 0..<8 { go.signal() }
            #expect(done.wait(timeout: .now() + 30) == .success)
            let answers = results.withLock { $0 }
            #expect(answers.count == 8 && Set(answers).count == 1, "round \(round): \(Set(answers))")
        }
        try server.drain()
        #expect(server.apns.emulator.records(forToken: token).count == 4, "one start per key")
        #expect(throws: Refusal.self) {
            _ = try server.registry.startActivity(
                app: "app1",
                body: server.json(
                    #"{"activityId":"o-2","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"2"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"other"}"#
                ))
        }
    }

    @Test("a 410 token is invalidated and gets nothing more; the other device carries on")
    func goneToken() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        try startOrder(server, id: "o-3")
        let dead = APNsHarness.randomToken()
        let alive = APNsHarness.randomToken()
        for (device, token) in [("a", dead), ("b", alive)] {
            try registerUpdateToken(server, activity: "o-3", device: "\(device)", token: token)
        }
        server.apns.emulator.setFaults([APNsFault(kind: .unregistered, token: dead)])
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-3", body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        try server.drain()
        let record = try #require(
            try server.store.transaction { try $0.token(app: "app1", fingerprint: Fingerprint(of: dead)) })
        #expect(!record.isValid && record.invalidReason == .provider("Unregistered"))
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-3", body: server.json(#"{"type":"delivery.step","data":{"step":"preparing"}}"#))
        try server.drain()
        #expect(server.apns.emulator.records(forToken: dead).count == 1)
        #expect(server.apns.emulator.records(forToken: alive).count == 2)
        #expect(server.metrics.value("droptrack_tokens_invalidated_total", ["reason": "Unregistered"]) == 1)
        // The server's log says so too, by fingerprint, with what to do.
        #expect(eventually { server.logs.entries.contains { $0.message == "dispatch.token_invalidated" } })
        let line = try #require(server.logs.entries.first { $0.message == "dispatch.token_invalidated" })
        #expect(line.level == .warning && line.metadata["token"] == Fingerprint(of: dead).value)
        #expect(line.metadata["reason"] == "Unregistered" && line.metadata["activityId"] == "o-3")
        #expect(!server.logs.entries.contains { $0.metadata.values.contains { $0.contains(dead) } }, "no raw token")
    }

    @Test("a burst of 50 events sends a handful of pushes, the last carrying the newest state")
    func burstCoalesces() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        try startOrder(server, id: "o-4")
        let token = APNsHarness.randomToken()
        try registerUpdateToken(server, activity: "o-4", device: "a", token: token)
        server.apns.emulator.setFaults([APNsFault(kind: .delay, delayMilliseconds: 30)])
        for index in 0..<50 {
            _ = try server.registry.applyEvent(
                app: "app1", activityId: "o-4",
                body: server.json(#"{"type":"delivery.eta","data":{"minutes":\#(index + 1)}}"#))
        }
        try server.drain()
        let records = server.apns.emulator.records(forToken: token)
        #expect(records.count >= 1 && records.count <= 10, "\(records.count) pushes for 50 events")
        let final = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "o-4") })
        #expect(records.last?.contentState == final.contentState)
        #expect(server.apns.emulator.latestAccepted(forToken: token)?.contentState == final.contentState)
        let stamps = records.compactMap(\.timestamp)
        #expect(stamps == stamps.sorted())
    }

    @Test("a large fan-out of one app does not hold up another app's single update")
    func fairAcrossApps() throws {
        let server = try ServerHarness {
            $0.maxInFlight = 20
            $0.claimBatch = 10
        }
        defer { server.stop() }
        try startOrder(server, id: "big")
        try startOrder(server, id: "small", app: "app2")
        let registrations = try (0..<2000).map { index in
            try server.registry.checkToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"big","deviceId":"fan-\#(index)","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
                ))
        }
        _ = try server.registry.importTokens(app: "app1", registrations)
        let lone = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app2", kind: .activity,
            body: server.json(#"{"activityId":"small","deviceId":"one","token":"\#(lone)","environment":"sandbox"}"#))
        server.apns.emulator.setFaults([APNsFault(kind: .delay, delayMilliseconds: 5)])
        let before = server.apns.emulator.records(after: 0).count
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "big", body: server.json(#"{"type":"delivery.step","data":{"step":2}}"#))
        usleep(50_000)
        _ = try server.registry.applyEvent(
            app: "app2", activityId: "small", body: server.json(#"{"type":"delivery.step","data":{"step":2}}"#))
        #expect(eventually(timeout: .seconds(10)) { server.apns.emulator.latestAccepted(forToken: lone) != nil })
        // app1's sends stream from its fan-out ranges: count what reached the emulator instead of rows left.
        let bigLeft = 2000 - (server.apns.emulator.records(after: 0).count - before - 1)
        #expect(bigLeft > 1000, "app2's update went out while app1 still had \(bigLeft) of 2000 sends to go")
        try server.drain(timeout: .seconds(60))
    }

    @Test(
        "an import behaves as one registration at a time: a later token of a device supersedes an earlier one, and again is a no-op",
        arguments: StoreEngine.allCases)
    func importInOrder(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine)
        defer { server.stop() }
        try startOrder(server, id: "o-1")
        func update(_ device: String, _ token: String) throws -> ActivityRegistry.TokenRegistration {
            try server.registry.checkToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"o-1","deviceId":"\#(device)","token":"\#(token)","environment":"sandbox"}"#))
        }
        let old = APNsHarness.randomToken()
        try registerUpdateToken(server, activity: "o-1", device: "rotating", token: old)
        let (first, second, steady) = (APNsHarness.randomToken(), APNsHarness.randomToken(), APNsHarness.randomToken())
        let batch = try [update("rotating", first), update("steady", steady), update("rotating", second)]
        #expect(try server.registry.importTokens(app: "app1", batch) == 3)
        func states() throws -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: try server.store.transaction { try $0.tokens(app: "app1", activityId: "o-1") }
                    .map { ($0.token.wireValue, $0.invalidReason?.stored ?? "valid") })
        }
        let expected = [old: "superseded", first: "superseded", steady: "valid", second: "valid"]
        #expect(try states() == expected)
        _ = try server.registry.importTokens(app: "app1", batch)
        #expect(try states() == expected, "importing the same file again ends in the same state")
        let late = APNsHarness.randomToken()
        #expect(throws: Refusal.self) {
            try server.registry.importTokens(
                app: "app1",
                [
                    try update("late", late),
                    try server.registry.checkToken(
                        app: "app1", kind: .activity,
                        body: server.json(
                            #"{"activityId":"no-such","deviceId":"x","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
                        )),
                ])
        }
        #expect(try states()[late] == nil, "a batch with an unknown activity writes nothing")
        // The superseded first token comes back from another device (a restored backup), and that
        // device then registers a newer one: the newer one wins there, as one at a time.
        let newer = APNsHarness.randomToken()
        _ = try server.registry.importTokens(
            app: "app1", [try update("restored", first), try update("restored", newer)])
        #expect(try states()[first] == "superseded" && states()[newer] == "valid")
    }

    @Test(
        "the push timestamp comes from the database's clock when it has one, so a replica whose clock runs ahead cannot stamp the future",
        arguments: StoreEngine.allCases)
    func timestampClock(engine: StoreEngine) throws {
        let ahead = Date() + 3600
        let server = try ServerHarness(engine: engine, clock: ManualWallClock(ahead))
        defer { server.stop() }
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"o-1","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"o-1"},"event":{"type":"delivery.step","data":{"step":"placed"}},"alert":{"title":"Order placed"},"idempotencyKey":"k-1"}"#
            ))
        func stamp() throws -> Int64 {
            try #require(try server.store.transaction { try $0.activity(app: "app1", id: "o-1") }).timestamp
        }
        let started = try stamp()
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-1", body: server.json(#"{"type":"delivery.step","data":{"step":2}}"#))
        let updated = try stamp()
        #expect(updated > started)
        let real = Int64(Date().timeIntervalSince1970)
        if engine == .postgres {
            #expect(abs(started - real) < 120 && abs(updated - real) < 120, "\(started) \(updated) vs \(real)")
        } else {
            #expect(started >= Int64(ahead.timeIntervalSince1970), "one process: its own clock is the authority")
        }
    }

    @Test("an update token registered after the activity moved on gets the current version at once (DT-041)")
    func lateToken() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        try startOrder(server, id: "o-5")
        let early = APNsHarness.randomToken()
        try registerUpdateToken(server, activity: "o-5", device: "early", token: early)
        try server.drain()
        #expect(server.apns.emulator.records(forToken: early).isEmpty, "at version 1 there is nothing newer to send")
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-5", body: server.json(#"{"type":"delivery.step","data":{"step":3}}"#))
        try server.drain()
        let late = APNsHarness.randomToken()
        try registerUpdateToken(server, activity: "o-5", device: "late", token: late)
        try server.drain()
        let current = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "o-5") })
        let caughtUp = try #require(server.apns.emulator.latestAccepted(forToken: late))
        #expect(caughtUp.event == "update" && caughtUp.timestamp == current.timestamp)
        #expect(caughtUp.contentState == current.contentState)
        #expect(server.apns.emulator.records(forToken: early).count == 1, "the early token got the step once")
    }

    @Test("each token goes to its own environment's APNs host; with apnsHost set, everything goes there")
    func environmentRouting() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        var apple = server.configuration
        apple.apnsHost = nil
        let transport = try ProviderTransport(configuration: apple, logger: .disabled)
        defer { transport.shutdown() }
        #expect(transport.apnsHost(app: "app1", tokenEnvironment: .production) == "api.push.apple.com")
        #expect(transport.apnsHost(app: "app1", tokenEnvironment: .sandbox) == "api.sandbox.push.apple.com")
        #expect(
            transport.apnsHost(app: "app1", tokenEnvironment: nil) == "api.sandbox.push.apple.com",
            "a broadcast or a token of unknown environment goes by the app's setting (sandbox)")
        #expect(transport.apnsHost(app: "nobody", tokenEnvironment: .sandbox) == nil)
        let emulated = try ProviderTransport(configuration: server.configuration, logger: .disabled)
        defer { emulated.shutdown() }
        #expect(emulated.apnsHost(app: "app1", tokenEnvironment: .production) == "127.0.0.1")
    }

    @Test("metrics: fan-out lag per version, outbox depth and age while sends wait, store errors declared")
    func fanoutMetrics() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        try startOrder(server, id: "o-8")
        for device in 0..<3 {
            _ = try server.registry.registerToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"o-8","deviceId":"d\#(device)","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
                ))
        }
        server.apns.emulator.setFaults([APNsFault(kind: .delay, delayMilliseconds: 300)])
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-8", body: server.json(#"{"type":"delivery.step","data":{"step":2}}"#))
        func value(_ name: String) -> Double? {
            server.metrics.render().split(separator: "\n").first { $0.hasPrefix(name + " ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        // The update tokens' sends wait in the activity's fan-out range rows: 16 at most, whatever the audience.
        #expect(
            (1...16).contains(value("droptrack_outbox_depth") ?? 0), "the fan-out's range rows waiting or in flight")
        try server.drain()
        #expect(value("droptrack_outbox_depth") == 0 && value("droptrack_outbox_oldest_age_seconds") == 0)
        // The lag is observed just after the outcomes commit, which is when drain() sees the outbox empty.
        #expect(
            eventually { (value("droptrack_fanout_lag_seconds_count") ?? 0) >= 1 }, "a finished fan-out records its lag"
        )
        #expect(try #require(value("droptrack_fanout_lag_seconds_sum")) >= 0.3, "at least the emulator's delay")
        #expect(server.metrics.render().contains("# HELP droptrack_store_errors_total"))
    }

    @Test("one app can see and change nothing of another's")
    func tenantIsolation() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        try startOrder(server, id: "secret")
        let token = APNsHarness.randomToken()
        let (record, _) = try server.registry.registerToken(
            app: "app1", kind: .activity,
            body: server.json(#"{"activityId":"secret","deviceId":"a","token":"\#(token)","environment":"sandbox"}"#))
        #expect { _ = try server.registry.describe(app: "app2", activityId: "secret") } throws: {
            ($0 as? Refusal)?.code == .notFound
        }
        #expect {
            _ = try server.registry.applyEvent(
                app: "app2", activityId: "secret", body: server.json(#"{"type":"delivery.step","data":{"step":2}}"#))
        } throws: { ($0 as? Refusal)?.code == .notFound }
        #expect { try server.registry.deleteToken(app: "app2", fingerprint: record.fingerprint) } throws: {
            ($0 as? Refusal)?.code == .notFound
        }
        #expect {
            _ = try server.registry.registerToken(
                app: "app2", kind: .activity,
                body: server.json(#"{"activityId":"secret","deviceId":"x","token":"abcd","environment":"sandbox"}"#))
        } throws: { ($0 as? Refusal)?.code == .notFound }
        // The same activity id in another app is another activity.
        try startOrder(server, id: "secret", app: "app2")
        #expect(try server.registry.describe(app: "app1", activityId: "secret")["devices"]?.arrayValue?.count == 1)
    }

    @Test("priority-10 sends beyond the hourly cap go at 5, and the timeline says so")
    func budget() throws {
        let server = try ServerHarness { $0.priority10PerHour = 3 }
        defer { server.stop() }
        try startOrder(server, id: "o-5")
        var priorities: [Int] = []
        for index in 0..<4 {
            let response = try server.registry.updateActivity(
                app: "app1", activityId: "o-5",
                body: server.json(
                    #"{"contentState":{"status":"s\#(index)","progress":0.5,"eta":817693520,"stopsRemaining":1,"courierName":"A","riderReassigned":false},"priority":10}"#
                ))
            priorities.append(Int(response["priority"]?.numberValue ?? 0))
        }
        #expect(priorities == [10, 10, 5, 5])
        let timeline = try server.registry.describe(app: "app1", activityId: "o-5")["timeline"]?.arrayValue ?? []
        #expect(
            timeline.contains {
                $0["reason"]?.stringValue == "priority_downgraded" && ($0["note"]?.stringValue ?? "").contains("cap 3")
            })
    }

    @Test("retries honour the provider, then give up as a dead letter that the metrics count")
    func retriesAndDeadLetters() throws {
        let server = try ServerHarness { $0.maxAttempts = 3 }
        defer { server.stop() }
        try startOrder(server, id: "o-6")
        let flaky = APNsHarness.randomToken()
        let broken = APNsHarness.randomToken()
        for (device, token) in [("a", flaky), ("b", broken)] {
            try registerUpdateToken(server, activity: "o-6", device: "\(device)", token: token)
        }
        server.apns.emulator.setFaults([
            APNsFault(kind: .serviceUnavailable, token: flaky, times: 2),
            APNsFault(kind: .internalServerError, token: broken),
        ])
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-6", body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        try server.drain()
        #expect(server.apns.emulator.latestAccepted(forToken: flaky) != nil)
        #expect(server.apns.emulator.records(forToken: flaky).count == 3)
        #expect(server.apns.emulator.records(forToken: broken).count == 3)
        #expect(try server.store.transaction { try $0.outboxStats().deadLetters } == 1)
        #expect(server.metrics.value("droptrack_dead_letters_total", ["provider": "apns"]) == 1)
        #expect(server.metrics.value("droptrack_retries_total", ["provider": "apns"]) == 4)
        let timeline = try server.registry.describe(app: "app1", activityId: "o-6")["timeline"]?.arrayValue ?? []
        #expect(timeline.contains { $0["remedy"]?.stringValue == "dead_letter" })
        // Logged just after the outcomes commit, which may be a moment after the outbox reads empty.
        #expect(eventually { server.logs.entries.contains { $0.message == "dispatch.dead_letter" } })
        let deadLetters = server.logs.entries.filter { $0.message == "dispatch.dead_letter" }
        #expect(deadLetters.count == 1 && deadLetters.first?.metadata["token"] == Fingerprint(of: broken).value)
        #expect(deadLetters.first?.metadata["fix"]?.isEmpty == false)
        // Each refusal before it, retried, is a warning too, with the provider's reason.
        let refused = server.logs.entries.filter { $0.message == "dispatch.provider_refused" }
        #expect(refused.count == 4, "two 503s for the flaky token, two 500s before the broken one's dead letter")
        #expect(refused.allSatisfy { $0.level == .warning && $0.metadata["reason"]?.isEmpty == false })
        #expect(
            refused.contains { $0.metadata["token"] == Fingerprint(of: flaky).value && $0.metadata["status"] == "503" })
    }

    @Test("the scheduler starts at startAt, recomputes a schedule every tick, and ends and dismisses on time")
    func scheduler() throws {
        let clock = ManualWallClock(Date())
        let server = try ServerHarness(clock: clock)
        defer { server.stop() }
        let now = clock.unixSeconds()
        let token = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .pushToStart,
            body: server.json(
                #"{"userId":"u1","deviceId":"d","token":"\#(token)","environment":"sandbox","attributesType":"ScoreAttributes"}"#
            ))
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"match","userId":"u1","attributesType":"ScoreAttributes","attributes":{},"alert":{"title":"Kick-off"},"idempotencyKey":"m","startAt":\#(now + 60),"endAt":\#(now + 600),"schedule":[{"at":\#(now + 60),"contentState":{"home":0,"away":0,"period":"first"}},{"at":\#(now + 180),"contentState":{"home":1,"away":0,"period":"first"}},{"at":\#(now + 300),"contentState":{"home":1,"away":1,"period":"second"}}]}"#
            ))
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "match") }?.state == .pending)
        #expect(server.registry.runScheduled().started == 0)
        clock.advance(by: 61)
        #expect(server.registry.runScheduled().started == 1)
        try server.drain()
        #expect(server.apns.emulator.latestAccepted(forToken: token)?.event == "start")
        clock.advance(by: 120)
        #expect(server.registry.runScheduled().recomputed == 1)
        #expect(
            try server.store.transaction { try $0.activity(app: "app1", id: "match") }?.contentState["home"]
                == .number(1))
        clock.advance(by: 420)
        #expect(server.registry.runScheduled().ended == 1)
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "match") }?.state == .ended)
        clock.advance(by: 4 * 3600 + 1)
        #expect(server.registry.runScheduled().dismissed == 1)
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "match") }?.state == .dismissed)
    }

    @Test(
        "priority 5 for routine updates and 10 for a terminal one; terminal update keeps the card; an end at a dismissal date; tokens dropped at dismissal; the 8-hour limit"
    )
    func prioritiesAndTerminals() throws {
        let clock = ManualWallClock(Date())
        let server = try ServerHarness(clock: clock)
        defer { server.stop() }
        try startOrder(server, id: "o-1")
        let token = APNsHarness.randomToken()
        try registerUpdateToken(server, activity: "o-1", device: "d", token: token)
        func send(_ body: String) throws -> APNsEmulatorRecord {
            _ = try server.registry.applyEvent(app: "app1", activityId: "o-1", body: server.json(body))
            try server.drain()
            return try #require(server.apns.emulator.latestAccepted(forToken: token))
        }
        let routine = try send(#"{"type":"delivery.step","data":{"step":2}}"#)
        #expect(routine.event == "update" && routine.priority == 5)
        let last = try send(#"{"type":"delivery.step","data":{"step":"delivered"},"terminal":"update"}"#)
        #expect(last.event == "update" && last.priority == 10, "a terminal update goes at 10")
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "o-1") }?.state == .active)

        let dismissAt = clock.unixSeconds() + 120
        _ = try server.registry.endActivity(
            app: "app1", activityId: "o-1", body: server.json(#"{"dismissal":\#(dismissAt)}"#))
        try server.drain()
        let end = try #require(server.apns.emulator.latestAccepted(forToken: token))
        #expect(end.event == "end" && end.priority == 10)
        #expect(end.payload?["aps"]?["dismissal-date"]?.numberValue == Double(dismissAt))
        clock.advance(by: 60)
        #expect(server.registry.runScheduled().dismissed == 0)
        clock.advance(by: 61)
        #expect(server.registry.runScheduled().dismissed == 1)
        let dropped = try server.store.transaction { try $0.tokens(app: "app1", activityId: "o-1") }
        #expect(dropped.count == 1 && dropped.allSatisfy { $0.invalidReason == .activityEnded })

        try startOrder(server, id: "o-2")
        clock.advance(by: 8 * 3600 + 1)
        #expect(server.registry.runScheduled().ended == 1, "no endAt: ActivityKit's 8-hour limit ends it")
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "o-2") }?.state == .ended)
    }

    @Test(
        "the scheduler deletes tokens invalidated longer ago than tokenRetentionDays, and keeps valid ones; 0 keeps all",
        arguments: [1.0, 0.0])
    func tokenRetention(days: Double) throws {
        let clock = ManualWallClock(Date())
        let server = try ServerHarness(clock: clock) { $0.tokenRetentionDays = days }
        defer { server.stop() }
        try startOrder(server, id: "o-8")
        let register = { (token: String) in
            try registerUpdateToken(server, activity: "o-8", device: "d", token: token)
        }
        let (old, new) = (APNsHarness.randomToken(), APNsHarness.randomToken())
        try register(old)
        try register(new)  // supersedes the old one on the same device
        let stored = { (token: String) in
            try server.store.transaction { try $0.token(app: "app1", fingerprint: Fingerprint(of: token)) }
        }
        #expect(try stored(old)?.invalidReason == .superseded)
        #expect(server.registry.runScheduled().tokensDeleted == 0)
        clock.advance(by: days == 0 ? 400 * 86_400 : 86_400 + 1)
        #expect(server.registry.runScheduled().tokensDeleted == (days == 0 ? 0 : 1))
        #expect(try (stored(old) == nil) == (days > 0))
        #expect(try stored(new)?.isValid == true)
    }

    @Test("a dismissed activity whose tokens were deleted is not diagnosed as missing them (DT-040, DT-041)")
    func dismissedWithoutTokens() throws {
        let clock = ManualWallClock(Date())
        let server = try ServerHarness(clock: clock) {
            $0.tokenRetentionDays = 1
            $0.timelineRetentionDays = 30
        }
        defer { server.stop() }
        try registerPushToStart(server)
        try startOrder(server, id: "o-9")
        _ = try server.registry.registerToken(
            app: "app1", kind: .activity,
            body: server.json(
                #"{"activityId":"o-9","deviceId":"d","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#)
        )
        _ = try server.registry.endActivity(
            app: "app1", activityId: "o-9", body: server.json(#"{"dismissal":"immediate"}"#))
        try server.drain()
        clock.advance(by: 61)
        server.registry.runScheduled()
        clock.advance(by: 2 * 86_400)
        #expect(server.registry.runScheduled().tokensDeleted >= 1)
        let traps = try server.registry.diagnose(
            app: AppID(validating: "app1"), activityId: ActivityID(validating: "o-9")
        ).findings.compactMap(\.trap)
        #expect(!traps.contains("DT-041") && !traps.contains("DT-040"), "\(traps)")
    }

    @Test("the scheduler deletes timeline rows older than timelineRetentionDays")
    func timelineRetention() throws {
        let clock = ManualWallClock(Date())
        let server = try ServerHarness(clock: clock) { $0.timelineRetentionDays = 1 }
        defer { server.stop() }
        try registerPushToStart(server)
        try startOrder(server, id: "o-7")
        let timeline = { try server.registry.describe(app: "app1", activityId: "o-7")["timeline"]?.arrayValue ?? [] }
        #expect(try !timeline().isEmpty)
        #expect(server.registry.runScheduled().timelineRowsDeleted == 0)
        clock.advance(by: 86_400 + 1)
        #expect(server.registry.runScheduled().timelineRowsDeleted > 0)
        #expect(try timeline().isEmpty)
    }

    @Test("expo-widgets output wraps the content-state as {name, props: \"<JSON>\"}")
    func expoWidgets() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .pushToStart,
            body: server.json(
                #"{"userId":"u9","deviceId":"d","token":"\#(token)","environment":"sandbox","attributesType":"TimerAttributes"}"#
            ))
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"t1","userId":"u9","attributesType":"TimerAttributes","attributes":{},"contentState":{"label":"Tea"},"alert":{"title":"Timer"},"idempotencyKey":"t1"}"#
            ))
        try server.drain()
        let state = try #require(server.apns.emulator.latestAccepted(forToken: token)?.contentState)
        #expect(state == .object(["name": .string("TimerWidget"), "props": .string(#"{"label":"Tea"}"#)]))
    }

    @Test("after a crash a start whose outcome is unknown is not sent again; updates are")
    func inDoubtAfterCrash() throws {
        let server = try ServerHarness { $0.leaseSeconds = 0.3 }
        defer { server.stop() }
        try startOrder(server, id: "o-crash")
        let start = APNsHarness.randomToken()
        let update = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .pushToStart,
            body: server.json(
                #"{"userId":"u1","deviceId":"p","token":"\#(start)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            ))
        try registerUpdateToken(server, activity: "o-crash", device: "p", token: update)
        // A worker that died: it claimed both rows and wrote no outcome.
        let now = Date()
        try server.store.transaction { tx in
            try tx.enqueue(
                app: "app1", activityId: "o-crash", fingerprints: [Fingerprint(of: start)], version: 1,
                availableAt: now, now: now)
            try tx.enqueue(
                app: "app1", activityId: "o-crash", fingerprints: [Fingerprint(of: update)], version: 1,
                availableAt: now, now: now)
            _ = try tx.claim(app: "app1", limit: 10, owner: "dead-worker", until: now + 0.3, now: now)
        }
        usleep(400_000)
        server.dispatcher.wake()
        try server.drain()
        #expect(server.apns.emulator.records(forToken: start).isEmpty, "the start may have gone out: not resent")
        #expect(server.apns.emulator.latestAccepted(forToken: update) != nil, "the update is resent")
        let timeline = try server.registry.describe(app: "app1", activityId: "o-crash")["timeline"]?.arrayValue ?? []
        #expect(timeline.contains { $0["reason"]?.stringValue == "outcome_unknown" })
        #expect(server.metrics.value("droptrack_starts_in_doubt_total") == 1)
    }

    /// An update token (sandbox) for an activity of app1 on a device.
    func registerUpdateToken(_ server: ServerHarness, activity: String, device: String, token: String) throws {
        _ = try server.registry.registerToken(
            app: "app1", kind: .activity,
            body: server.json(
                #"{"activityId":"\#(activity)","deviceId":"\#(device)","token":"\#(token)","environment":"sandbox"}"#))
    }

    /// A push-to-start token for user u1's device `d`, so a start has somewhere to go.
    func registerPushToStart(_ server: ServerHarness) throws {
        _ = try server.registry.registerToken(
            app: "app1", kind: .pushToStart,
            body: server.json(
                #"{"userId":"u1","deviceId":"d","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            ))
    }

    func startOrder(_ server: ServerHarness, id: String, app: String = "app1") throws {
        _ = try server.registry.startActivity(
            app: app,
            body: server.json(
                #"{"activityId":"\#(id)","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"\#(id)"},"event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},"alert":{"title":"Order placed","body":"On it"},"idempotencyKey":"start-\#(id)"}"#
            ))
        try server.drain()
    }
}
