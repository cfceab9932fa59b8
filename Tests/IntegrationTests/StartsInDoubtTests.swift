import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// Starts whose outcome the store could not write: each may have reached its device, so each is
/// counted once, warned about once and labelled a start, however many attempts the full disk rolled back.
@Suite("Starts in doubt after a full disk")
struct StartsInDoubtTests {
    static let devices = 40

    @Test("40 starts whose outcome write fails: the in-doubt counter says 40 and 40 warnings are logged")
    func outcomeWriteFails() throws {
        let disk = FullDiskStore(wrapping: try StoreEngine.sqlite.make())
        let server = try ServerHarness(store: disk) { $0.leaseSeconds = 1 }
        defer { server.stop() }
        var tokens: [String] = []
        for index in 0..<Self.devices {
            let token = APNsHarness.randomToken()
            tokens.append(token)
            _ = try server.registry.registerToken(
                app: "app1", kind: .pushToStart,
                body: server.json(
                    #"{"userId":"u40","deviceId":"d\#(index)","token":"\#(token)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
                ))
        }
        // APNs answers 300 ms late, so all 40 starts are there before the first answer; from then on the
        // disk is full: the outcomes are not written, and every claim that finds the starts again rolls back.
        server.apns.emulator.setFaults([APNsFault(kind: .delay, delayMilliseconds: 300)])
        let emulator = server.apns.emulator
        disk.fail(while: { emulator.records.count >= Self.devices })
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"full","userId":"u40","attributesType":"DeliveryAttributes","attributes":{"orderId":"F-1"},"event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},"alert":{"title":"Order placed","body":"On it"},"idempotencyKey":"full-1"}"#
            ))
        #expect(
            eventually(timeout: .seconds(20)) {
                server.logs.entries.contains { $0.message == "dispatcher.flush_failed" }
            })
        // The lease (1 s) runs out with the disk still full: the next claims find the 40 starts in doubt
        // and roll back, each of them (counted inside the claim, each attempt counted all 40 again).
        let claimsBefore = server.logs.entries.filter { $0.message == "dispatcher.claim_failed" }.count
        #expect(
            eventually(timeout: .seconds(20)) {
                server.logs.entries.filter { $0.message == "dispatcher.claim_failed" }.count >= claimsBefore + 5
            })
        usleep(1_500_000)
        disk.heal()
        server.dispatcher.wake()
        try server.drain()

        #expect(disk.refused >= 5)
        #expect(server.metrics.value("droptrack_starts_in_doubt_total") == Double(Self.devices))
        let warnings = server.logs.entries.filter { $0.message == "dispatch.start_in_doubt" }
        #expect(warnings.count == Self.devices)
        #expect(warnings.allSatisfy { $0.level == .warning && $0.metadata["reason"] == "outcome_unknown" })
        let logged = server.logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(tokens.allSatisfy { !logged.contains($0) }, "tokens appear in the log only as fingerprints")
        let timeline = try server.store.transaction { try $0.timeline(app: "app1", activityId: "full", limit: 1000) }
        let inDoubt = timeline.filter { $0.reason == "outcome_unknown" }
        #expect(inDoubt.count == Self.devices)
        #expect(inDoubt.allSatisfy { $0.event == "start" && $0.remedy == .inDoubt })
        // None was sent twice.
        #expect(tokens.allSatisfy { emulator.records(forToken: $0).count == 1 })
    }
}
