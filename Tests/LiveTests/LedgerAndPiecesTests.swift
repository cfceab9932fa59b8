import DropTrackContract
import DropTrackLive
import Foundation
import Testing

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

@Suite("DropTrackLive's pieces: fingerprints, the file ledger, the environment, the bridge, the placeholder")
struct LedgerAndPiecesTests {
    @Test("fingerprints are SHA-256 of the token's lowercase hex; the server's is the first 16 digits")
    func fingerprints() {
        // SHA-256("abc"): FIPS 180-4's example, so the copy of the hash is checked against the standard.
        let abc = TokenFingerprint(hexToken: "abc")
        #expect(abc.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(abc.server == "ba7816bf8f01cfea")
        #expect(TokenFingerprint(token: Data([0xAB, 0xCD])) == TokenFingerprint(hexToken: "ABCD"))
        #expect(Data(pushTokenHex: "abCD") == Data([0xAB, 0xCD]) && Data(pushTokenHex: "abc") == nil)
    }

    @Test("the file ledger round-trips, is 0600, and holds fingerprints, never tokens")
    func fileLedger() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "live-ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FileRegistrationLedger(directory: directory)
        #expect(try await ledger.load() == LedgerContents())
        var contents = LedgerContents()
        let secret = Data(repeating: 0x5c, count: 32)
        let registration = Registration(
            kind: .activity, subject: "order-1", token: TokenFingerprint(token: secret), environment: .sandbox,
            factsDigest: "d")
        contents.registrations[registration.key] = registration
        contents.pendingReports = [LifecycleReport(activityID: "order-1", deviceID: "p", state: .dismissed)]
        try await ledger.save(contents)
        try await ledger.save(contents)
        #expect(try await ledger.load() == contents)
        let attributes = try FileManager.default.attributesOfItem(atPath: ledger.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOf: ledger.url, encoding: .utf8)
        #expect(!text.contains(String(repeating: "5c", count: 32)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [ledger.url.lastPathComponent])
    }

    @Test("the APNs environment follows the provisioning profile's aps-environment")
    func environment() {
        let development = Data("<plist><dict><key>aps-environment</key>\n\t<string>development</string></dict>".utf8)
        let production = Data("<plist><dict><key>aps-environment</key><string>production</string></dict>".utf8)
        #expect(APNsEnvironment.fromProvisioningProfile(development) == .sandbox)
        #expect(APNsEnvironment.fromProvisioningProfile(production) == .production)
        #expect(APNsEnvironment.ofThisBuild == .production)
    }

    @Test("errors say whether retrying helps: 401 refresh, 429/5xx/no answer retry, other 4xx give up")
    func remedies() {
        #expect(DeviceAPIError(status: 401, code: "credential_expired", message: "").remedy == .refreshCredential)
        for status in [429, 500, 503] {
            #expect(DeviceAPIError(status: status, code: "x", message: "").remedy == .retryLater)
        }
        #expect(DeviceAPIError(status: nil, code: "transport", message: "").remedy == .retryLater)
        for status in [400, 403, 404, 409, 422] {
            #expect(DeviceAPIError(status: status, code: "x", message: "").remedy == .giveUp)
        }
        #expect(DeviceAPIError.noRoute.isMissingRoute && !DeviceAPIError.refused.isMissingRoute)
    }

    @Test("the placeholder is for iOS 17.x only, off by default, and its attributes name the reserved id")
    func placeholder() throws {
        #expect(PushToStartAvailability(osVersion: "16.4") == .none)
        for version in ["17", "17.0", "17.1", "17.2", "17.6"] {
            #expect(PushToStartAvailability(osVersion: version) == .afterLocalRequest, "\(version)")
        }
        for version in ["18.0", "18", "26.2", "not a version"] {
            #expect(PushToStartAvailability(osVersion: version) == .given, "\(version)")
        }
        #expect(!LiveActivitySyncConfiguration(deviceID: "d").pushToStartPlaceholder)
        let placeholder = try PlaceholderStart<DeliveryAttributes>(
            makeAttributes: { DeliveryAttributes(orderId: $0) },
            state: .init(
                status: "", progress: 0, eta: Date(timeIntervalSinceReferenceDate: 0), stopsRemaining: 0,
                courierName: "", riderReassigned: false))
        #expect(placeholder.attributes.dropTrackActivityID == PlaceholderActivity.activityID)
    }

    @Test("the bridge starts, updates with a timestamp and ends an activity through ActivityKit")
    func bridge() async throws {
        let bridge = LiveActivityBridge<DeliveryAttributes>()
        let state = DeliveryAttributes.ContentState(
            status: "Placed", progress: 0, eta: Date(timeIntervalSinceReferenceDate: 0), stopsRemaining: 3,
            courierName: "Sam", riderReassigned: false)
        let activity = try bridge.start(attributes: DeliveryAttributes(orderId: "bridge-1"), state: state)
        #expect(bridge.runningActivities.contains { $0.id == activity.id })
        var next = state
        next.status = "Out for delivery"
        await bridge.update(activity, state: next)
        #expect(activity.content.state.status == "Out for delivery")
        await bridge.end(activity, dismissAfter: 0)
        #expect(activity.activityState == .dismissed)
        #expect(!bridge.runningActivities.contains { $0.id == activity.id })
    }
}
