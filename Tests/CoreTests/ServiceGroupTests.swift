import DropTrackCore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// What the services did, in order.
private final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A service that writes what happens to it into a shared journal.
private final class JournalService: Service {
    let serviceName: String
    let journal: Journal
    let failsToStart: Bool
    let finishes: Bool

    init(_ name: String, journal: Journal, failsToStart: Bool = false, finishes: Bool = true) {
        serviceName = name
        self.journal = journal
        self.failsToStart = failsToStart
        self.finishes = finishes
    }

    func start() throws {
        if failsToStart { throw ThrownOnPurpose() }
        journal.append("start \(serviceName)")
    }

    func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        journal.append("stop \(serviceName)")
        return finishes
    }
}

@Suite("Services and latches")
struct ServiceGroupTests {
    @Test("services start in order and stop in reverse; one that leaves work unfinished is named")
    func order() throws {
        let journal = Journal()
        let group = ServiceGroup([
            JournalService("transport", journal: journal),
            JournalService("dispatcher", journal: journal, finishes: false),
            JournalService("api", journal: journal),
        ])
        try group.start()
        #expect(group.shutdown(deadline: .now + .seconds(1)) == ["dispatcher"])
        #expect(
            journal.all
                == [
                    "start transport", "start dispatcher", "start api", "stop api", "stop dispatcher", "stop transport",
                ])
        #expect(group.shutdown(deadline: .now + .seconds(1)).isEmpty, "a second shutdown stops nothing")
        #expect(journal.all.count == 6)
    }

    @Test("a service that fails to start stops those already started, and the error comes through")
    func failedStart() {
        let journal = Journal()
        let group = ServiceGroup([
            JournalService("store", journal: journal), JournalService("api", journal: journal, failsToStart: true),
            JournalService("never", journal: journal),
        ])
        #expect(throws: ThrownOnPurpose.self) { try group.start() }
        #expect(journal.all == ["start store", "stop store"])
    }

    @Test("a latch wakes its waiter when resolved, keeps the first value, and gives nil at the deadline")
    func latch() {
        let latch = Latch<Int>()
        #expect(latch.wait(timeout: .milliseconds(50)) == nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
            latch.resolve(1)
            latch.resolve(2)
        }
        let started = ContinuousClock.now
        #expect(latch.wait(timeout: .seconds(10)) == 1)
        #expect(ContinuousClock.now - started < .seconds(5), "woken by the value, not the deadline")
        #expect(latch.resolved == 1)
        #expect(
            waitForCallback(timeout: .seconds(5)) { done in DispatchQueue.global().async { done("answer") } }
                == "answer")
        #expect(waitForCallback(timeout: .milliseconds(20)) { (_: @escaping @Sendable (String) -> Void) in } == nil)
    }
}
