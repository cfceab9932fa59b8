import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 7, the phone's side: notification permission, promotion, OEM skins, the status-bar chip and
/// ProgressStyle limits (DT-106 … DT-110).
extension Doctor {
    /// Makers whose skins are reported not to promote standard Live Updates (allow-lists, private extras).
    static let nonPromotingManufacturers: Set<String> = [
        "samsung", "xiaomi", "redmi", "poco", "oppo", "realme", "oneplus", "vivo",
    ]

    static let androidRules: [DoctorRule] = [
        DoctorRule("DT-106", "Notification permission not granted (Android 13+)") { e, r in
            guard e.isFCM, e.device?.notificationsEnabled == false else { return }
            r.error(
                "device.notificationsEnabled",
                "the app may not post notifications (POST_NOTIFICATIONS not granted): FCM delivers and nothing shows",
                fix: "skip Live Update sends for this device, and ask for the permission in context")
        },

        DoctorRule("DT-107", "Promotion not allowed (manifest permission missing, or Live Updates turned off)", .risk) {
            e, r in
            guard e.isFCM else { return }
            if e.device?.canPostPromoted == false {
                r.warning(
                    "device.canPostPromoted",
                    "canPostPromotedNotifications() is false: the card shows as a plain notification (permission missing, or the user turned Live Updates off)",
                    fix: "declare POST_PROMOTED_NOTIFICATIONS, and offer the Live Updates settings link")
            } else if e.device?.userAllowsLiveUpdates == false {
                r.warning(
                    "device.userAllowsLiveUpdates",
                    "the user turned Live Updates off for the app: the card will not be promoted",
                    fix: "offer the Live Updates settings link, resolving the action name at runtime")
            }
        },

        DoctorRule("DT-108", "OEM skins don't promote standard Live Updates", .risk) { e, r in
            guard e.isFCM, let maker = e.device?.manufacturer?.lowercased(), nonPromotingManufacturers.contains(maker)
            else {
                return
            }
            r.warning(
                "device.manufacturer",
                "\(maker) skins are reported to promote only allow-listed apps or vendor extras: expect a plain ongoing notification, not a bug",
                fix: "accept the fallback, or join the vendor's programme where one exists")
        },

        DoctorRule("DT-109", "Status-bar chip shows only an icon (ETA and short-text rules)") { e, r in
            guard e.isFCM, let data = e.fcmData, let schema = e.stateContract?.schema else { return }
            if let key = schema.androidShortTextKey, let text = data[key]?.stringValue,
                text.count > AndroidLiveUpdateLimits.shortCriticalTextCharacters
            {
                r.warning(
                    "message.data.\(key)",
                    "\"\(key)\" has \(text.count) characters; the chip shows about \(AndroidLiveUpdateLimits.shortCriticalTextCharacters)",
                    fix: "keep the chip's short critical text to 7 characters")
            }
            if let key = schema.androidWhenKey, e.event != "end",
                let millis = data[key]?.stringValue.flatMap({ Double($0) }),
                let now = e.now, millis < (now + AndroidLiveUpdateLimits.chipTimeLeadSeconds) * 1000,
                schema.androidShortTextKey == nil
            {
                r.warning(
                    "message.data.\(key)",
                    "\"\(key)\" is less than a minute ahead: the chip drops the time and shows only the icon",
                    fix: "set when only for ETAs at least a minute ahead, or give the chip a short text")
            }
        },

        DoctorRule("DT-110", "ProgressStyle segments or points beyond the platform limits") { e, r in
            guard e.isFCM, let data = e.fcmData else { return }
            func numbers(_ key: String, member: String) -> [Double]? {
                guard let text = data[key]?.stringValue, let array = (try? JSONValue.parse(text))?.arrayValue else {
                    return nil
                }
                return array.compactMap { $0.numberValue ?? $0[member]?.numberValue }
            }
            let segments = numbers("segments", member: "length")
            if let segments, segments.count > AndroidLiveUpdateLimits.maximumSegments {
                r.warning(
                    "message.data.segments",
                    "\(segments.count) segments: ProgressStyle merges more than 10 into one bar",
                    fix: "design the progress model within 10 segments")
            }
            if let points = numbers("points", member: "position") {
                let maximum = segments.map { $0.isEmpty ? 100 : $0.reduce(0, +) } ?? 100
                if points.count > AndroidLiveUpdateLimits.maximumPoints {
                    r.warning(
                        "message.data.points", "\(points.count) points: ProgressStyle keeps the first 4",
                        fix: "design the progress model within 4 points")
                }
                if points.contains(where: { $0 <= 0 || $0 >= maximum }) {
                    r.warning(
                        "message.data.points",
                        "points at 0, at the end (\(ContractSchema.format(maximum))) or beyond are dropped",
                        fix: "place points strictly between 0 and the bar's length")
                }
            }
        },
    ]
}
