import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// `probeWrite`, what `/readyz` runs while the store refuses writes: it commits on a store with room
/// and leaves nothing behind. (A full disk refusing it is checks/full_disk.py's, on a real tmpfs.)
@Suite("The write probe, on every engine")
struct WriteProbeTests {
    @Test(
        "the write probe commits, again and again, and changes nothing a reader sees", arguments: StoreEngine.allCases)
    func probe(engine: StoreEngine) throws {
        let store = try engine.make()
        let token = sampleToken()
        try store.transaction { try $0.saveToken(token) }
        let before = try store.transaction { try $0.outboxStats() }
        for _ in 0..<3 { try store.transaction { try $0.probeWrite() } }
        #expect(try store.transaction { try $0.outboxStats() } == before)
        #expect(try store.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } == token)
    }
}
