import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// The server against an APNs emulator that drops connections, answers late, or is not there at
/// all: a start reaches a device at most once, and an outage costs time, never pushes.
@Suite("Transport faults", .serialized)
struct TransportFaultTests {
    @Test("a connection reset during a 2,000-token start sends no start twice; the unanswered ones are in doubt")
    func resetDuringStartFanout() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let tokens = try registerPushToStartTokens(server, count: 2000)
        server.apns.emulator.setFaults([
            APNsFault(kind: .connectionReset, everyNth: 400, times: 2),
            APNsFault(kind: .delay, delayMilliseconds: 20),
        ])
        try start(server, id: "o-reset")
        try server.drain(timeout: .seconds(90))
        let inDoubt = try checkStartsAtMostOnce(server, activity: "o-reset", tokens: tokens)
        #expect(
            eventually { server.logs.entries.filter { $0.message == "dispatch.start_in_doubt" }.count == inDoubt.count }
        )
        #expect(!inDoubt.isEmpty, "the resets left no start in doubt: the fault did not fire")
        #expect(
            // The second needs 400 more requests after the first, and the first may leave too few unsent.
            server.apns.emulator.records.contains { $0.fault == "connectionReset" }, "a reset fired")
    }

    @Test("a start answered after the provider timeout is in doubt and not sent again; a late update is resent")
    func timeoutDuringStart() throws {
        let server = try ServerHarness { $0.providerTimeoutSeconds = 0.5 }
        defer { server.stop() }
        let tokens = try registerPushToStartTokens(server, count: 100)
        server.apns.emulator.setFaults([APNsFault(kind: .delay, everyNth: 20, delayMilliseconds: 1500, times: 5)])
        try start(server, id: "o-late")
        try server.drain(timeout: .seconds(30))
        let inDoubt = try checkStartsAtMostOnce(server, activity: "o-late", tokens: tokens)
        #expect(inDoubt.count == 5, "each late answer leaves its start in doubt")

        // An update is at least once: the late one is sent again and the device keeps the newest.
        let update = APNsHarness.randomToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .activity,
            body: server.json(
                #"{"activityId":"o-late","deviceId":"u","token":"\#(update)","environment":"sandbox"}"#))
        server.apns.emulator.setFaults([APNsFault(kind: .delay, token: update, delayMilliseconds: 1500, times: 1)])
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-late",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        try server.drain(timeout: .seconds(30))
        #expect(server.apns.emulator.records(forToken: update).filter(\.accepted).count == 2)
    }

    @Test("an FCM start whose connection drops before the answer is in doubt and not sent again; the next update is")
    func fcmStartInDoubt() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let phones = (0..<200).map { _ in server.fcm.newToken() }
        for (index, token) in phones.enumerated() {
            _ = try server.registry.registerToken(
                app: "app1", kind: .fcm,
                body: server.json(#"{"userId":"u1","deviceId":"pixel-\#(index)","token":"\#(token)"}"#))
        }
        server.fcm.emulator.setFaults([
            FCMFault(kind: .connectionReset, everyNth: 100, times: 1), FCMFault(kind: .delay, delayMilliseconds: 20),
        ])
        try start(server, id: "o-fcm")
        try server.drain(timeout: .seconds(30))
        let timeline = try server.store.transaction { try $0.timeline(app: "app1", activityId: "o-fcm", limit: 10_000) }
        let inDoubt = Set(timeline.filter { $0.remedy == .inDoubt }.map(\.destination.stored))
        func delivered(_ token: String, _ event: String) -> Int {
            server.fcm.emulator.records(forToken: token).filter { $0.status == 200 && $0.data?["event"] == event }.count
        }
        #expect(!inDoubt.isEmpty, "the reset left no start in doubt: the fault did not fire")
        #expect(phones.filter { delivered($0, "start") > 1 }.isEmpty, "no phone got two starts")
        #expect(
            phones.filter { delivered($0, "start") == 0 && !inDoubt.contains(Fingerprint(of: $0).value) }.isEmpty,
            "every phone without a start is in doubt")
        #expect(server.metrics.value("droptrack_starts_in_doubt_total") == Double(inDoubt.count))
        // In doubt ends the start, not the phone: the next version reaches every phone.
        server.fcm.emulator.setFaults([])
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-fcm",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        try server.drain(timeout: .seconds(30))
        #expect(phones.filter { delivered($0, "update") == 0 }.isEmpty, "every phone gets the update")
    }

    @Test("an outage dead-letters nothing and uses no attempts; every update arrives once APNs is back")
    func outageLosesNothing() throws {
        // Two attempts and a short timeout: before, a few seconds of outage made every send a dead letter.
        let server = try ServerHarness {
            $0.maxAttempts = 2
            $0.providerTimeoutSeconds = 0.5
        }
        defer { server.stop() }
        try start(server, id: "o-out", drain: true)
        let tokens = (0..<50).map { _ in APNsHarness.randomToken() }
        for (index, token) in tokens.enumerated() {
            _ = try server.registry.registerToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"o-out","deviceId":"d\#(index)","token":"\#(token)","environment":"sandbox"}"#))
        }
        try server.drain()
        let port = server.apns.port
        server.apns.emulator.stop()
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "o-out",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        #expect(
            eventually(timeout: .seconds(10)) {
                server.metrics.render().contains(#"droptrack_provider_unreachable{app="app1",provider="apns"} 1"#)
            }, "the circuit opens")
        Thread.sleep(forTimeInterval: 5)
        #expect(try server.store.transaction { try $0.outboxStats().deadLetters } == 0)
        #expect(server.metrics.value("droptrack_dead_letters_total", ["provider": "apns"]) == 0)
        #expect(server.metrics.value("droptrack_sends_held_total", ["provider": "apns"]) > 0)
        #expect(server.logs.entries.contains { $0.message == "dispatch.provider_unreachable" })

        let back = try server.apns.replacement(onPort: port)
        defer { back.stop() }
        #expect(
            eventually(timeout: .seconds(40)) {
                tokens.allSatisfy { back.latestAccepted(forToken: $0)?.event == "update" }
            }, "every device gets the update once APNs is back")
        try server.drain(timeout: .seconds(20))
        #expect(try server.store.transaction { try $0.outboxStats().deadLetters } == 0)
        #expect(server.logs.entries.contains { $0.message == "dispatch.provider_reachable" })
        #expect(server.metrics.render().contains(#"droptrack_provider_unreachable{app="app1",provider="apns"} 0"#))
    }

    // MARK: Helpers

    func registerPushToStartTokens(_ server: ServerHarness, count: Int) throws -> [String] {
        let tokens = (0..<count).map { _ in APNsHarness.randomToken() }
        for (index, token) in tokens.enumerated() {
            _ = try server.registry.registerToken(
                app: "app1", kind: .pushToStart,
                body: server.json(
                    #"{"userId":"u1","deviceId":"d\#(index)","token":"\#(token)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
                ))
        }
        return tokens
    }

    func start(_ server: ServerHarness, id: String, drain: Bool = false) throws {
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"\#(id)","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"\#(id)"},"event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},"alert":{"title":"Order placed","body":"On it"},"idempotencyKey":"start-\#(id)"}"#
            ))
        if drain { try server.drain() }
    }

    /// No token got two accepted starts; every token without one is in doubt on the timeline; the
    /// metric counts exactly those in doubt. Returns the in-doubt fingerprints.
    func checkStartsAtMostOnce(_ server: ServerHarness, activity: String, tokens: [String]) throws -> Set<String> {
        let timeline = try server.store.transaction {
            try $0.timeline(app: "app1", activityId: activity, limit: 100_000)
        }
        let inDoubt = Set(timeline.filter { $0.remedy == .inDoubt }.map(\.destination.stored))
        var twice = 0
        var missing = 0
        for token in tokens {
            let starts = server.apns.emulator.records(forToken: token).filter { $0.accepted && $0.event == "start" }
            if starts.count > 1 { twice += 1 }
            if starts.isEmpty && !inDoubt.contains(Fingerprint(of: token).value) { missing += 1 }
        }
        #expect(twice == 0, "\(twice) of \(tokens.count) tokens got two starts")
        #expect(missing == 0, "\(missing) tokens got no start and are not in doubt")
        #expect(server.metrics.value("droptrack_starts_in_doubt_total") == Double(inDoubt.count))
        return inDoubt
    }
}

extension APNsHarness {
    /// A new emulator with the same key on `port`: APNs back after an outage.
    func replacement(onPort port: Int) throws -> APNsEmulator {
        let emulator = APNsEmulator(
            configuration: APNsEmulatorConfiguration(
                teamID: APNsHarness.teamID, keys: [APNsHarness.keyID: key.publicKey], bundleIDs: [APNsHarness.bundleID],
                environment: .sandbox))
        _ = try emulator.start(tls: try TestPKI.serverTLS(alpn: ["h2", "http/1.1"]), port: port)
        return emulator
    }
}
