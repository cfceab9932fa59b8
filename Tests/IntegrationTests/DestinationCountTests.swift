import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// An event's `destinations` reads the kept count of the activity's valid update tokens (schema 12),
/// not the tokens: each way the registry and the dispatcher change a token's validity must move it.
@Suite("An event's destinations after every change to the activity's update tokens")
struct DestinationCountTests {
    let orders = DispatchTests()

    @Test(
        "registration, re-registration, a superseding token, deletion, a dead token, a device's end and an import",
        arguments: StoreEngine.allCases)
    func everyPath(engine: StoreEngine) throws {
        // At 3 the count decides between range jobs and outbox rows on the way down, so both are crossed.
        let server = try ServerHarness(engine: engine) { $0.fanoutRangeMinimum = 3 }
        defer { server.stop() }
        try orders.startOrder(server, id: "o-c")
        var step = 0
        func event(_ why: String, expect expected: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
            step += 1
            // Read before the event: the dispatcher is idle (the last event was drained), and once the event is
            // in, its sends may already be finding the dead token.
            let read = try server.store.transaction { try $0.tokens(app: "app1", activityId: "o-c") }
                .count(where: \.isValid)
            let answer = try server.registry.applyEvent(
                app: "app1", activityId: "o-c",
                body: server.json(#"{"type":"delivery.eta","data":{"minutes":\#(step)}}"#))
            #expect(answer["destinations"]?.numberValue == Double(expected), "\(why)", sourceLocation: sourceLocation)
            #expect(read == expected, "\(why): \(read) valid update tokens", sourceLocation: sourceLocation)
            try server.drain()
        }
        let tokens = (0..<4).map { _ in APNsHarness.randomToken() }
        for (index, token) in tokens.enumerated() {
            try orders.registerUpdateToken(server, activity: "o-c", device: "p\(index)", token: token)
        }
        try event("four registered", expect: 4)
        try orders.registerUpdateToken(server, activity: "o-c", device: "p0", token: tokens[0])
        try event("one registered again", expect: 4)
        try orders.registerUpdateToken(server, activity: "o-c", device: "p1", token: APNsHarness.randomToken())
        try event("one superseded by its device's new token", expect: 4)
        try server.registry.deleteToken(app: "app1", fingerprint: Fingerprint(of: tokens[2]))
        try event("one deleted", expect: 3)
        server.apns.emulator.setFaults([APNsFault(kind: .unregistered, token: tokens[0])])
        try event("one about to be found dead by a range send", expect: 3)
        try event("the dead one invalidated by the dispatcher", expect: 2)
        _ = try server.registry.reportLifecycle(
            app: "app1", activityId: "o-c", ReportLifecycle(deviceId: "p3", state: .ended, reason: nil))
        try event("a device reported its activity ended", expect: 1)
        let imported = try (0..<5).map { index in
            try server.registry.checkToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"o-c","deviceId":"i\#(index)","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
                ))
        }
        #expect(try server.registry.importTokens(app: "app1", imported) == 5)
        try event("five imported", expect: 6)
    }
}
