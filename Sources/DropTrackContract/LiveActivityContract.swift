import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// What the device would make of a start's `attributes`, or any push's `content-state`, for one
/// `ActivityAttributes` type: decoded with ActivityKit's default JSON rules, or the exact reason it
/// would be dropped. Emulators, simulators and the doctor use it to say "APNs said 200, but the
/// phone will show nothing" before the phone does.
public struct LiveActivityContract: Sendable {
    /// The `attributes-type` name the device matches (the Swift type's name).
    public let attributesType: String
    private let decodeAttributesBody: @Sendable (Data) throws -> [Date]
    private let decodeContentStateBody: @Sendable (Data) throws -> [Date]

    /// The contract of an `ActivityAttributes` type.
    @available(iOS 16.1, *)
    public init<Attributes: ActivityAttributes & SendableMetatype>(
        _ type: Attributes.Type, attributesType: String? = nil
    )
    where Attributes.ContentState: SendableMetatype {
        self.attributesType = attributesType ?? String(describing: type)
        decodeAttributesBody = { data in
            LiveActivityContract.dates(in: try LiveActivityJSON.decode(Attributes.self, from: data))
        }
        decodeContentStateBody = { data in
            LiveActivityContract.dates(in: try LiveActivityJSON.decode(Attributes.ContentState.self, from: data))
        }
    }

    /// The DropTrack delivery contract.
    @available(iOS 16.1, *)
    public static let delivery = LiveActivityContract(
        DeliveryAttributes.self, attributesType: DeliveryAttributes.typeName)

    /// The outcome of decoding like the device.
    public enum Verdict: Sendable, Equatable {
        /// Decodes; the `Date` values found, for range checks.
        case decodes(dates: [Date])
        /// Would be dropped; why, in words, and the key path at fault when known.
        case fails(reason: String, keyPath: String?)
    }

    /// Decodes static attributes as the device would.
    public func checkAttributes(_ json: Data) -> Verdict { verdict { try decodeAttributesBody(json) } }

    /// Decodes a content-state as the device would.
    public func checkContentState(_ json: Data) -> Verdict { verdict { try decodeContentStateBody(json) } }

    private func verdict(_ body: () throws -> [Date]) -> Verdict {
        do {
            return .decodes(dates: try body())
        } catch let error as DecodingError {
            return LiveActivityContract.describe(error)
        } catch {
            return .fails(reason: "\(error)", keyPath: nil)
        }
    }

    /// Words for a decoding error, in the shape Xcode's "Unable to decode content state" would give.
    static func describe(_ error: DecodingError) -> Verdict {
        func path(_ codingPath: [any CodingKey]) -> String? {
            let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? nil : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let full = path(context.codingPath + [key]) ?? key.stringValue
            return .fails(reason: "required key '\(full)' is missing", keyPath: full)
        case .typeMismatch(let type, let context):
            let at = path(context.codingPath)
            return .fails(
                reason: "'\(at ?? "value")' has the wrong JSON type (expected \(describeType(type)))", keyPath: at)
        case .valueNotFound(let type, let context):
            let at = path(context.codingPath)
            return .fails(reason: "'\(at ?? "value")' is null but must be \(describeType(type))", keyPath: at)
        case .dataCorrupted(let context):
            let at = path(context.codingPath)
            return .fails(reason: "\(at.map { "'\($0)': " } ?? "")\(context.debugDescription)", keyPath: at)
        @unknown default:
            return .fails(reason: "\(error)", keyPath: nil)
        }
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Bool.Type: "true or false"
        case is Date.Type: "a number of seconds since 2001-01-01"
        default: String(describing: type)
        }
    }

    /// Every `Date` stored in a value, found by reflection (the widget's types are plain structs).
    static func dates(in value: Any) -> [Date] {
        if let date = value as? Date { return [date] }
        var found: [Date] = []
        for child in Mirror(reflecting: value).children { found.append(contentsOf: dates(in: child.value)) }
        return found
    }
}
