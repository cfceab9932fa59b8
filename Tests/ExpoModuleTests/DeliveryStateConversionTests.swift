import DropTrackContract
import Foundation
import Testing

@testable import DropTrackExpo

/// JavaScript's `DeliveryState` (numbers as `Double`, as Expo bridges them) to the contract's state and back.
@Suite("The Expo module's delivery-state conversions")
struct DeliveryStateConversionTests {
    static let eta = 1_767_225_600_000.0  // 2026-01-01T00:00:00Z in Unix ms

    static func state(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var state: [String: Any] = [
            "status": "Out for delivery", "progress": 0.5, "etaEpochMillis": eta, "stopsRemaining": 2.0,
            "courierName": "Sam", "riderReassigned": false,
        ]
        for (key, value) in changes { state[key] = value }
        return state
    }

    @Test("a valid state becomes the contract's, the ETA read as Unix milliseconds, and comes back the same")
    func validState() throws {
        let converted = try DeliveryStateConversion.contentState(Self.state())
        #expect(
            converted
                == DeliveryAttributes.ContentState(
                    status: "Out for delivery", progress: 0.5, eta: Date(timeIntervalSince1970: Self.eta / 1000),
                    stopsRemaining: 2, courierName: "Sam", riderReassigned: false))
        let back = DeliveryStateConversion.javaScript(converted)
        #expect(back["etaEpochMillis"] as? Double == Self.eta)
        #expect(back["stopsRemaining"] as? Double == 2)
        #expect(try DeliveryStateConversion.contentState(back.mapValues { $0 as Any }) == converted)
    }

    @Test("an ETA in seconds is refused, naming etaEpochMillis and the fix")
    func secondsRefused() {
        let error = #expect(throws: DropTrackExpoError.self) {
            try DeliveryStateConversion.contentState(Self.state(["etaEpochMillis": Self.eta / 1000]))
        }
        #expect(error?.field == "etaEpochMillis")
        #expect(error?.message.contains("multiply by 1000") == true)
    }

    @Test("a missing or mistyped field is named", arguments: ["courierName", "etaEpochMillis", "riderReassigned"])
    func missingFieldNamed(field: String) {
        let error = #expect(throws: DropTrackExpoError.self) {
            try DeliveryStateConversion.contentState(Self.state([field: nil]))
        }
        #expect(error?.field == field)
        let mistyped = #expect(throws: DropTrackExpoError.self) {
            try DeliveryStateConversion.contentState(Self.state([field: NSNull()]))
        }
        #expect(mistyped?.field == field)
    }

    @Test("a fractional stop count is refused by the contract's reader, named")
    func fractionalStops() {
        let error = #expect(throws: DropTrackExpoError.self) {
            try DeliveryStateConversion.contentState(Self.state(["stopsRemaining": 1.5]))
        }
        #expect(error?.field == "stopsRemaining")
    }

    @Test("configure's arguments: a bad URL, an empty user and an unknown environment are each named")
    func settings() throws {
        let suite = "expo-settings-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        func field(_ url: String, _ user: String, _ environment: String?) -> String? {
            do {
                _ = try SyncSettings(
                    serverURL: url, userID: user, deviceID: nil, apnsEnvironment: environment, defaults: defaults)
                return nil
            } catch let error as DropTrackExpoError { return error.field } catch { return "\(error)" }
        }
        #expect(field("push.example.com", "u", nil) == "serverUrl")
        #expect(field("https://push.example.com", "", nil) == "userId")
        #expect(field("https://push.example.com", "u", "development") == "apnsEnvironment")
        let made = try SyncSettings(
            serverURL: "https://push.example.com", userID: "u", deviceID: nil, apnsEnvironment: "sandbox",
            defaults: defaults)
        let again = try SyncSettings(
            serverURL: "https://push.example.com", userID: "u", deviceID: nil, apnsEnvironment: "sandbox",
            defaults: defaults)
        #expect(made.deviceID.hasPrefix("ios-") && made.deviceID == again.deviceID, "one id per install")
    }
}
