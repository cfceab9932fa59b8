import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackTesting
import Foundation
import Testing

/// `vectors/android-plans/` fed to the phone model. The Kotlin library's `PlanVectorTests` reads
/// the same files, so the Android notifier and this model agree through them: what a message
/// shows, and which messages are refused and why.
@Suite("The Android plan vectors against the phone model")
struct AndroidPlanVectorTests {
    static let names = vectorNames(in: "android-plans")

    @Test("the folder holds the agreed cases")
    func folderIsComplete() {
        for required in [
            "start", "update.on-the-way", "update.reassigned", "end", "past-eta", "missing-activity-id",
            "progress-not-a-number", "unknown-schema-version", "stale-sequence", "promotion-not-allowed",
            "update.3-of-12",
        ] {
            #expect(Self.names.contains(required + ".json"), "vectors/android-plans/\(required).json is missing")
        }
    }

    @Test("each vector: the phone shows the expected plan or refuses the message", arguments: names)
    func vectorAgrees(name: String) throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: vector("android-plans/" + name)) as? [String: Any])
        let nowMillis = try #require((object["now"] as? NSNumber)?.int64Value)
        let device = object["device"] as? [String: Bool] ?? [:]
        // The DropTrack library checks `sequence` and the contract; the handbook's service (the model's default) does not.
        let settings = AndroidDeviceSettings(
            notificationPermissionGranted: device["notificationsEnabled"] ?? true,
            promotedPermissionGranted: device["canPostPromoted"] ?? true,
            userAllowsLiveUpdates: device["userAllowsLiveUpdates"] ?? true, appChecksSequence: true,
            appChecksContract: true)
        let phone = AndroidLiveUpdatePhone(
            settings: settings, clock: ManualWallClock(Date(timeIntervalSince1970: Double(nowMillis) / 1000)))
        if let shown = object["shown"] as? [String: String] {
            #expect(phone.receive(data: shown) != nil, "the message shown first is shown")
        }
        let data = try #require(object["data"] as? [String: String])
        if let refused = object["refused"] as? [String: String] {
            try checkRefusal(field: try #require(refused["field"]), data: data, phone: phone)
        } else {
            try checkPlan(try #require(object["plan"] as? [String: Any]), data: data, phone: phone)
        }
    }

    func checkRefusal(field: String, data: [String: String], phone: AndroidLiveUpdatePhone) throws {
        switch field {
        case "activityId", "sequence":
            #expect(phone.receive(data: data) == nil, "the phone drops it")
            #expect(phone.drops.last?.trap == (field == "activityId" ? "DT-092" : "DT-097"))
        default:
            // The contract's strict reader names the same key, and the library drops the message.
            let error = #expect(throws: DeliveryLiveUpdate.DataMapError.self) { try DeliveryLiveUpdate.decode(data) }
            #expect(error?.key == field)
            #expect(phone.receive(data: data) == nil, "the phone drops it")
            #expect(phone.drops.last?.trap == "DT-090")
            #expect(phone.drops.last?.reason.contains("'\(field)'") == true)
        }
    }

    func checkPlan(_ plan: [String: Any], data: [String: String], phone: AndroidLiveUpdatePhone) throws {
        let refusals = plan["promotionRefusals"] as? [String] ?? []
        if refusals.contains("notifications_disabled") {
            #expect(phone.receive(data: data) == nil && phone.drops.last?.trap == "DT-106")
            return
        }
        let shown = try #require(phone.receive(data: data))
        func number(_ key: String) -> Int64? { (plan[key] as? NSNumber)?.int64Value }
        #expect(Int64(shown.id) == number("id"))
        #expect(shown.tag == plan["tag"] as? String)
        #expect(shown.title == plan["title"] as? String)
        #expect(shown.text == plan["text"] as? String)
        #expect(shown.subText == plan["subText"] as? String)
        #expect(shown.ongoing == plan["ongoing"] as? Bool)
        #expect(shown.shortCriticalText == plan["chipText"] as? String)
        #expect(shown.whenMillis == number("whenMillis"))
        #expect(shown.requestPromotedOngoing == plan["requestPromotion"] as? Bool)
        #expect(shown.sequence == number("sequence"))
        #expect(shown.event == plan["event"] as? String)
        let style = try #require(shown.progressStyle)
        #expect(Int64(style.progress) == number("progress"))
        let segments = (plan["segments"] as? [[String: Any]] ?? []).map {
            ProgressStyleModel.Segment(length: ($0["length"] as? Int) ?? -1, color: $0["color"] as? String)
        }
        #expect(style.segments == segments)
        let points = (plan["points"] as? [[String: Any]] ?? []).map {
            ProgressStyleModel.Point(position: ($0["position"] as? Int) ?? -1, color: $0["color"] as? String)
        }
        #expect(style.points == points)
        #expect(shown.notPromotedBecause.map(Self.refusalCode) == refusals)
        #expect(shown.promoted == refusals.isEmpty)
    }

    /// The model explains a refused promotion in words; the vectors use the Kotlin library's codes.
    static func refusalCode(_ reason: String) -> String {
        if reason.hasPrefix("not ongoing") { return "not_ongoing" }
        if reason == "no title" { return "no_title" }
        if reason.hasPrefix("POST_PROMOTED_NOTIFICATIONS") { return "promoted_permission_missing" }
        if reason.hasPrefix("the user turned Live Updates off") { return "live_updates_off" }
        return "unmapped: \(reason)"
    }
}
