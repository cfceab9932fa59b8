import DropTrackDispatch
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// PostgreSQL plans a range batch's read from the table's statistics. Right after a large import,
/// until autovacuum's next pass, it had none for the new rows and read every token of the activity
/// for each batch: a fan-out that follows an import ran at 2k pushes/s instead of 80k.
@Suite("PostgreSQL: an import refreshes the tokens' statistics", .enabled(if: PostgresTestServer.enabled))
struct ImportStatisticsTests {
    @Test("after an import, tokens has been analyzed by the import itself, not left to autovacuum")
    func analyzedAfterImport() throws {
        let (url, schema) = try PostgresTestServer.freshSchema()
        let server = try ServerHarness(store: try PostgresStore(url: url))
        defer { server.stop() }
        // `last_analyze` is only set by an ANALYZE someone ran; autovacuum's own sets `last_autoanalyze`.
        func analyzed() throws -> Bool {
            try PostgresTestServer.psql(
                url,
                "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE schemaname = '\(schema)' AND relname = 'tokens'"
            ).trimmingCharacters(in: .whitespacesAndNewlines) == "t"
        }
        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"o-1","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"o-1"},"event":{"type":"delivery.step","data":{"step":"placed"}},"alert":{"title":"Order placed"},"idempotencyKey":"k-1"}"#
            ))
        #expect(try !analyzed())
        let registrations = try (0..<50).map { index in
            try server.registry.checkToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"o-1","deviceId":"d-\#(index)","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
                ))
        }
        #expect(try server.registry.importTokens(app: "app1", registrations) == 50)
        #expect(eventually(timeout: .seconds(5)) { (try? analyzed()) == true })
    }
}
