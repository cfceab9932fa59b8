import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// One corrupt row (a hand edit, an outside tool, a damaged disk) names itself and hides nothing else:
/// the review found the app's whole console list answering 503 "the store does not answer".
@Suite("A corrupt stored row is named where it is read, and list pages go on without it")
struct CorruptRecordTests {
    func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test("its activity answers 500 corrupt_record naming the column; the console lists the others and flags it")
    func corruptActivity() throws {
        let path = makeTemporaryDirectory("corrupt-record") + "/droptrack.sqlite"
        let server = try ServerHarness(store: try SQLiteStore(path: path))
        defer { server.stop() }
        for id in ["order-good", "order-bad"] {
            let started = try server.call(
                "POST", "/v1/activities", deliveryStart.replacingOccurrences(of: "order-9", with: id))
            #expect(started.status == 201, "\(started.text)")
        }
        try sqlite(path, "UPDATE activities SET state = 'exploded' WHERE id = 'order-bad'")

        let bad = try server.call("GET", "/v1/activities/order-bad")
        #expect(bad.status == 500 && bad.errorCode == "corrupt_record", "\(bad.text)")
        #expect(bad.text.contains("state") && bad.text.contains("repair the value or delete the row"), "\(bad.text)")
        #expect(try server.call("GET", "/v1/activities/order-good").status == 200)

        let console = ConsoleTests()
        let (cookie, _) = try console.signIn(server)
        let list = try console.get(server, "/console/", cookie: cookie)
        #expect(list.status == 200, "\(list.text)")
        #expect(list.text.contains("order-good") && list.text.contains("1 stored row cannot be read"), "\(list.text)")
        #expect(list.text.contains("column state"), "the notice names the column: \(list.text)")
        #expect(try server.call("GET", "/readyz", key: nil).status == 200, "a corrupt row is not an outage")
    }
}
