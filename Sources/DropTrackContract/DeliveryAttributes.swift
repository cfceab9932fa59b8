import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// The DropTrack delivery tracker's Live Activity: the handbook's final design.
///
/// This one file is the contract between the server, the app and the widget. On Apple platforms it
/// conforms to ActivityKit's `ActivityAttributes`; on Linux to the look-alike in `ActivityKitShim`.
public struct DeliveryAttributes: ActivityAttributes, Hashable, Sendable {
    /// The order being delivered; fixed for the activity's life.
    public var orderId: String

    /// The part of the card that changes.
    public struct ContentState: Codable, Hashable, Sendable {
        /// The line shown as the card's headline, e.g. "Out for delivery".
        public var status: String
        /// Progress from 0 to 1 through the seven steps.
        public var progress: Double
        /// Estimated arrival. Encoded as seconds since 2001-01-01, as ActivityKit decodes it.
        public var eta: Date
        /// Stops the courier makes before this one.
        public var stopsRemaining: Int
        /// The courier's display name.
        public var courierName: String
        /// True once the order moved to another courier.
        public var riderReassigned: Bool
        /// Steps done, the N of "N of M" (0 to `stepCount`); absent, the bar is lit from `progress`.
        public var step: Int?
        /// Steps in all, the M of "N of M" ("3 of 12 confirmations"): the bar's segments, 1 to 100.
        /// Absent, the bar has the delivery's seven steps. Both are optional, so older widgets decode it.
        public var stepCount: Int?

        /// Creates a content state.
        public init(
            status: String, progress: Double, eta: Date, stopsRemaining: Int, courierName: String,
            riderReassigned: Bool, step: Int? = nil, stepCount: Int? = nil
        ) {
            self.status = status
            self.progress = progress
            self.eta = eta
            self.stopsRemaining = stopsRemaining
            self.courierName = courierName
            self.riderReassigned = riderReassigned
            self.step = step
            self.stepCount = stepCount
        }
    }

    /// Creates the static attributes.
    public init(orderId: String) { self.orderId = orderId }

    /// The name ActivityKit looks up in `attributes-type`: the Swift type's name.
    public static let typeName = "DeliveryAttributes"
}

extension DeliveryAttributes.ContentState {
    /// Reads the handbook's push-script form, where the ETA is `etaEpochMillis` (Unix milliseconds)
    /// rather than `eta`, and returns the contract's state. Either form is accepted.
    ///
    /// - Throws: `ContentStateInputError` naming the missing or mistyped field.
    public static func fromFlexibleJSON(_ data: Data) throws -> Self {
        guard let value = try? JSONValue.parse(data), let object = value.objectValue else {
            throw ContentStateInputError(field: nil, message: "content-state must be a JSON object")
        }
        func string(_ key: String) throws -> String {
            guard let value = object[key]?.stringValue else {
                throw ContentStateInputError(field: key, message: "'\(key)' must be a string")
            }
            return value
        }
        func number(_ key: String) throws -> Double {
            guard let value = object[key]?.numberValue else {
                throw ContentStateInputError(field: key, message: "'\(key)' must be a number")
            }
            return value
        }
        let eta: Date
        if object["etaEpochMillis"] != nil {
            eta = Date(timeIntervalSince1970: try number("etaEpochMillis") / 1000)
        } else if object["eta"] != nil {
            eta = Date(timeIntervalSinceReferenceDate: try number("eta"))
        } else {
            throw ContentStateInputError(
                field: "eta", message: "'eta' (seconds since 2001-01-01) or 'etaEpochMillis' (Unix ms) is required")
        }
        guard let reassigned = object["riderReassigned"]?.boolValue else {
            throw ContentStateInputError(field: "riderReassigned", message: "'riderReassigned' must be true or false")
        }
        let stops = try number("stopsRemaining")
        guard stops == stops.rounded(), abs(stops) < 1e9 else {
            throw ContentStateInputError(field: "stopsRemaining", message: "'stopsRemaining' must be a whole number")
        }
        func count(_ key: String) throws -> Int? {
            guard let value = object[key], value != .null else { return nil }
            guard let number = value.numberValue, number == number.rounded(), abs(number) < 1e9 else {
                throw ContentStateInputError(field: key, message: "'\(key)' must be a whole number")
            }
            return Int(number)
        }
        let step = try count("step")
        let stepCount = try count("stepCount")
        if let problem = DeliveryWidgetLogic.stepProblem(step: step, stepCount: stepCount) {
            throw ContentStateInputError(field: problem.key, message: problem.message)
        }
        return Self(
            status: try string("status"), progress: try number("progress"), eta: eta, stopsRemaining: Int(stops),
            courierName: try string("courierName"), riderReassigned: reassigned, step: step, stepCount: stepCount)
    }
}

/// A content-state given on the command line or over the API that does not fit the contract.
public struct ContentStateInputError: Error, Equatable, CustomStringConvertible {
    /// The offending key, when one is to blame.
    public var field: String?
    /// What is wrong and how to fix it.
    public var message: String

    public init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
