import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

/// The engines the storage contract suite runs against. PostgreSQL joins when a server is given or
/// required (see `PostgresTestServer`); each PostgreSQL store gets a schema of its own.
package enum StoreEngine: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, postgres

    package static var allCases: [StoreEngine] {
        PostgresTestServer.enabled ? [.memory, .sqlite, .postgres] : [.memory, .sqlite]
    }

    package var description: String { rawValue }

    package func make() throws -> any DeliveryStore { try makeShared().store }

    /// A new store and the `store` setting that opens it from another process (a `droptrack` command);
    /// nil for memory, which lives only in this one.
    package func makeShared() throws -> (store: any DeliveryStore, spec: String?) {
        switch self {
        case .memory: return (MemoryStore(), nil)
        case .sqlite:
            let path = makeTemporaryDirectory("store") + "/droptrack.sqlite"
            return (try SQLiteStore(path: path), "sqlite:" + path)
        case .postgres:
            let url = try PostgresTestServer.freshSchema().url
            return (try PostgresStore(url: url), url)
        }
    }
}

/// An error a test throws to see it come back.
package struct ThrownOnPurpose: Error {
    package init() {}
}

package func sampleToken(
    _ app: String = "app", kind: TokenKind = .activity, token: String = APNsHarness.randomToken(), user: String? = "u1",
    device: String = "d1", attributesType: String? = nil, activity: String? = "a1",
    at: Date = Date(timeIntervalSince1970: 1_796_000_000)
) -> TokenRecord {
    TokenRecord(
        app: app, kind: kind, token: DeviceToken(token), fingerprint: Fingerprint(of: token), userId: user,
        deviceId: device,
        attributesType: attributesType, activityId: activity, environment: .sandbox, createdAt: at, lastSeenAt: at)
}

package func sampleActivity(
    _ app: String = "app", id: String = "a1", key: String? = nil, at: Date = Date(timeIntervalSince1970: 1_796_000_000)
) -> ActivityRecord {
    ActivityRecord(
        app: app, id: id, userId: "u1", attributesType: "DeliveryAttributes",
        attributes: .object(["orderId": .string("o1")]),
        contentState: .object(["status": .string("Order placed")]), state: .active, version: 1,
        timestamp: 1_796_000_000,
        event: .start, priority: 10, idempotencyKey: key, createdAt: at, updatedAt: at)
}

/// A fingerprint for tests, written short: `fingerprint("3abc")` is `3abc000000000000` (hex digits
/// padded with zeros to 16), so ranges and cursors read at a glance.
package func fingerprint(_ prefix: String) -> Fingerprint {
    let padded = prefix + String(repeating: "0", count: max(0, Fingerprint.length - prefix.count))
    do {
        return try Fingerprint(validating: padded)
    } catch {
        preconditionFailure("fingerprint(\"\(prefix)\") \(error)")
    }
}
