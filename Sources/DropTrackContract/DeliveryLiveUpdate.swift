import Foundation

/// The DropTrack Live Update as an FCM data map: what the server sends and what the handbook's
/// `DroptrackFcmService` reads on Android 16 before posting a promoted `ProgressStyle`
/// notification.
///
/// FCM data values are strings only, so every value is a string: numbers are formatted without
/// locale (`0.5`, never `0,5`), booleans are `"true"`/`"false"`, and the ETA travels as Unix
/// milliseconds (`etaEpochMillis`). `schemaVersion` lets an older app notice a newer map, and
/// `sequence` (the same monotonic per-activity stamp as the APNs `timestamp`) lets the app
/// ignore an update that arrives after a newer one.
public enum DeliveryLiveUpdate {
    /// The version of this map's layout.
    public static let schemaVersion = "1"

    /// The keys, in the order the handbook lists them.
    public enum Key {
        public static let activityId = "activityId"
        public static let event = "event"
        public static let orderId = "orderId"
        public static let status = "status"
        public static let progress = "progress"
        public static let etaEpochMillis = "etaEpochMillis"
        public static let stopsRemaining = "stopsRemaining"
        public static let courierName = "courierName"
        public static let riderReassigned = "riderReassigned"
        public static let schemaVersion = "schemaVersion"
        public static let sequence = "sequence"
        /// N of M: steps done and steps in all, sent only when the content-state counts steps.
        public static let step = "step"
        public static let stepCount = "stepCount"

        /// The keys sent only when the content-state has them.
        public static let optional = [step, stepCount]

        /// Every key the map always carries.
        public static let all = [
            activityId, event, orderId, status, progress, etaEpochMillis, stopsRemaining, courierName,
            riderReassigned, schemaVersion, sequence,
        ]
    }

    /// start, update or end.
    public enum Event: String, Sendable, Codable, CaseIterable {
        case start, update, end
    }

    /// One Live Update message, typed.
    public struct Message: Equatable, Sendable {
        /// The server's activity id; the app keys its notification on it.
        public var activityId: String
        /// start, update or end.
        public var event: Event
        /// The order.
        public var orderId: String
        /// The state shown.
        public var state: DeliveryAttributes.ContentState
        /// A number that only goes up for the activity.
        public var sequence: Int64

        /// Creates a message.
        public init(
            activityId: String, event: Event, orderId: String, state: DeliveryAttributes.ContentState, sequence: Int64
        ) {
            self.activityId = activityId
            self.event = event
            self.orderId = orderId
            self.state = state
            self.sequence = sequence
        }
    }

    /// The data map for a message.
    public static func encode(_ message: Message) -> [String: String] {
        var map = [
            Key.activityId: message.activityId,
            Key.event: message.event.rawValue,
            Key.orderId: message.orderId,
            Key.status: message.state.status,
            Key.progress: format(message.state.progress),
            Key.etaEpochMillis: String(Int64(saturating: (message.state.eta.timeIntervalSince1970 * 1000).rounded())),
            Key.stopsRemaining: String(message.state.stopsRemaining),
            Key.courierName: message.state.courierName,
            Key.riderReassigned: message.state.riderReassigned ? "true" : "false",
            Key.schemaVersion: schemaVersion,
            Key.sequence: String(message.sequence),
        ]
        map[Key.step] = message.state.step.map { String($0) }
        map[Key.stepCount] = message.state.stepCount.map { String($0) }
        return map
    }

    /// Reads a map strictly, naming the first key that is missing or does not parse. (The Android
    /// app is lenient, see the device model; the server and tests want to know.)
    public static func decode(_ data: [String: String]) throws(DataMapError) -> Message {
        func value(_ key: String) throws(DataMapError) -> String {
            guard let value = data[key] else { throw DataMapError(key: key, message: "'\(key)' is missing") }
            return value
        }
        func number(_ key: String) throws(DataMapError) -> Double {
            let text = try value(key)
            guard let number = Double(text), number.isFinite else {
                throw DataMapError(key: key, message: "'\(key)' must be a number written as a string, not '\(text)'")
            }
            return number
        }
        func integer(_ key: String) throws(DataMapError) -> Int64 {
            let text = try value(key)
            guard let number = Int64(text) else {
                throw DataMapError(
                    key: key, message: "'\(key)' must be a whole number written as a string, not '\(text)'")
            }
            return number
        }
        let eventText = try value(Key.event)
        guard let event = Event(rawValue: eventText) else {
            throw DataMapError(key: Key.event, message: "'event' must be start, update or end, not '\(eventText)'")
        }
        let reassigned = try value(Key.riderReassigned)
        guard reassigned == "true" || reassigned == "false" else {
            throw DataMapError(key: Key.riderReassigned, message: "'riderReassigned' must be \"true\" or \"false\"")
        }
        let version = try value(Key.schemaVersion)
        guard version == schemaVersion else {
            throw DataMapError(key: Key.schemaVersion, message: "schema version \(version) is not \(schemaVersion)")
        }
        func optionalCount(_ key: String) throws(DataMapError) -> Int? {
            guard data[key] != nil else { return nil }
            return Int(clamping: try integer(key))
        }
        let state = DeliveryAttributes.ContentState(
            status: try value(Key.status), progress: try number(Key.progress),
            eta: Date(timeIntervalSince1970: Double(try integer(Key.etaEpochMillis)) / 1000),
            stopsRemaining: Int(try integer(Key.stopsRemaining)), courierName: try value(Key.courierName),
            riderReassigned: reassigned == "true", step: try optionalCount(Key.step),
            stepCount: try optionalCount(Key.stepCount))
        return Message(
            activityId: try value(Key.activityId), event: event, orderId: try value(Key.orderId), state: state,
            sequence: try integer(Key.sequence))
    }

    /// Locale-free shortest form: `1`, `0.5`, `0.7142857142857143`.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A data map that does not fit, naming the key.
    public struct DataMapError: Error, Equatable, CustomStringConvertible, Sendable {
        /// The offending key.
        public var key: String
        /// What is wrong.
        public var message: String

        public init(key: String, message: String) {
            self.key = key
            self.message = message
        }

        public var description: String { message }
    }
}
