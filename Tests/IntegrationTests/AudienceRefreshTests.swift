import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackDispatch

/// A refresh of a large audience works through its candidates a page (2,000) at a time, each page its
/// own short transaction, so the store is never held for the whole match.
@Suite("Audience refresh, a page at a time")
struct AudienceRefreshTests {
    @Test("4,500 users who matched later join over three pages, each device queued once; a second refresh adds no one")
    func pages() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        func users(_ range: Range<Int>) -> [TokenRecord] {
            range.map {
                sampleToken(
                    "app1", kind: .pushToStart, user: "fan-\($0)", device: "phone-\($0)",
                    attributesType: "DeliveryAttributes", activity: nil)
            }
        }
        try server.store.transaction { try $0.saveTokens(users(0..<2)) }
        let start = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(of: #""userId":"u1""#, with: #""audience":"everyone""#))
        #expect(start.status == 201 && start.body["members"]?.numberValue == 2, "\(start.text)")
        try server.store.transaction { try $0.saveTokens(users(2..<4502)) }
        #expect(4500 > 2 * ActivityRegistry.refreshPage, "the refresh takes more than two pages")

        let refreshed = try server.call("POST", "/v1/activities/order-9/audience/refresh", "{}")
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed.body["joined"]?.numberValue == 4500 && refreshed.body["members"]?.numberValue == 4502)
        #expect(refreshed.body["destinations"]?.numberValue == 4500)
        let members = try server.store.transaction { try $0.memberCount(app: "app1", activityId: "order-9") }
        #expect(members == 4502)
        let again = try server.call("POST", "/v1/activities/order-9/audience/refresh", "{}")
        #expect(again.body["joined"]?.numberValue == 0 && again.body["members"]?.numberValue == 4502, "\(again.text)")
        try server.drain(timeout: .seconds(60))
        let starts = server.apns.emulator.records.filter { $0.status == 200 }
        #expect(
            starts.count == 4502 && Set(starts.compactMap(\.tokenFingerprint)).count == 4502, "one start per device")
    }
}
