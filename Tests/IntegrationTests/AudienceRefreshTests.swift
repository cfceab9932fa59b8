import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackModel
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

    @Test(
        "the backend's view lists the devices of one page of members, with the cursor to the next",
        arguments: StoreEngine.allCases)
    func backendPages(engine: StoreEngine) throws {
        let server = try ServerHarness(engine: engine)
        defer { server.stop() }
        try server.store.transaction {
            try $0.saveTokens(
                (0..<5).map {
                    sampleToken(
                        "app1", kind: .pushToStart, user: "fan-\($0)", device: "phone-\($0)",
                        attributesType: "DeliveryAttributes", activity: nil)
                })
        }
        let start = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(of: #""userId":"u1""#, with: #""audience":"everyone""#))
        #expect(start.status == 201, "\(start.text)")
        try server.drain()
        var seen: [String] = []
        var after: String? = nil
        var pages = 0
        repeat {
            let query = "membersLimit=2" + (after.map { "&membersAfter=\($0)" } ?? "")
            let page = try server.call("GET", "/v1/activities/order-9?\(query)")
            #expect(page.status == 200, "\(page.text)")
            let devices = page.body["devices"]?.arrayValue ?? []
            #expect(devices.count <= 2 && page.body["devicesPage"]?["members"]?.numberValue == Double(devices.count))
            seen += devices.compactMap { $0["deviceId"]?.stringValue }
            after = page.body["devicesPage"]?["nextMembersAfter"]?.stringValue
            #expect(page.body["progress"]?["started"]?.numberValue == 5, "counted, whatever the page: \(page.text)")
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3 && seen.sorted() == (0..<5).map { "phone-\($0)" }, "\(seen)")
        let bad = try server.call("GET", "/v1/activities/order-9?membersLimit=0")
        #expect(bad.status == 400 && bad.errorField == "membersLimit")
    }
}
