import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// What a mapper makes of an event or a direct update.
struct MappedState {
    var contentState: JSONValue
    var mapperState: JSONValue?
    /// An alert the change deserves (a rider reassignment).
    var alert: JSONValue?
    /// The change ends the story (the delivery is delivered).
    var terminal: Bool
}

/// The attributes types the server knows: DropTrack's delivery contract, built in, and the app's
/// registered schemas. It checks content-state and attributes before anything is stored or sent.
struct ContractBook {
    let schemas: [String: AttributesSchema]

    var knownTypes: [String] { ([DeliveryAttributes.typeName] + schemas.keys).sorted() }

    func isKnown(_ type: String) -> Bool {
        type == DeliveryAttributes.typeName || schemas[type] != nil
            || (type == ExpoWidgetsAttributes.typeName && !expoSchemas.isEmpty)
    }

    func requireKnown(_ type: String, field: String) throws(Refusal) {
        guard isKnown(type) else {
            throw Refusal.unprocessable(
                code: .unknownAttributesType,
                message:
                    "no attributes type '\(type)' is known: use \(knownTypes.joined(separator: " or ")), or register a schema for it in the app's configuration",
                field: field)
        }
    }

    /// Checks static attributes; returns them in ActivityKit's form. `activityId` is the activity they
    /// start, for an expo-widgets build that carries it in its attributes.
    func attributes(_ value: JSONValue, type: String, activityId: String? = nil, field: String) throws(Refusal)
        -> JSONValue
    {
        try unprocessable { () throws(Refusal) in
            try checkedAttributes(value, type: type, activityId: activityId, field: field)
        }
    }

    private func checkedAttributes(_ value: JSONValue, type: String, activityId: String?, field: String)
        throws(Refusal) -> JSONValue
    {
        if type == DeliveryAttributes.typeName {
            guard let orderId = value["orderId"]?.stringValue, !orderId.isEmpty else {
                throw Refusal.invalid(
                    "\(field).orderId", "DeliveryAttributes needs 'orderId' (a non-empty string)")
            }
            let reader = try FieldReader(value, prefix: field)
            try reader.refuseUnknown(["orderId"])
            return .object(["orderId": .string(orderId)])
        }
        if schemas[type]?.isExpoWidgets == true {
            return try expoAttributes(value, type: type, activityId: activityId, field: field)
        }
        guard let schema = schemas[type]?.attributes else {
            guard value.objectValue != nil else { throw Refusal.invalid(field, "'\(field)' must be an object") }
            return value
        }
        return try Self.check(value, against: schema, field: field)
    }

    /// Checks a content-state given directly; returns it in ActivityKit's form.
    func contentState(_ value: JSONValue, type: String, field: String) throws(Refusal) -> JSONValue {
        try unprocessable { () throws(Refusal) in try checkedContentState(value, type: type, field: field) }
    }

    private func checkedContentState(_ value: JSONValue, type: String, field: String) throws(Refusal) -> JSONValue {
        if type == DeliveryAttributes.typeName {
            do {
                let data = value.encoded()
                if value["eta"]?.numberValue.map({ $0 > ContentDates.latestReferenceSeconds }) == true {
                    throw Refusal.invalid(
                        "\(field).eta",
                        "'\(field).eta' looks like Unix time; eta is seconds since 2001-01-01 (Swift's Date), or send 'etaEpochMillis' instead"
                    )
                }
                let state = try DeliveryAttributes.ContentState.fromFlexibleJSON(data)
                // The same window as every other date, so that a far past or future ETA never reaches a
                // payload (the Android data map turns it into whole milliseconds).
                let etaKey = value["etaEpochMillis"] != nil ? "etaEpochMillis" : "eta"
                _ = try ContractBook.checkedDate(state.eta.timeIntervalSinceReferenceDate, path: "\(field).\(etaKey)")
                return try JSONValue.parse(LiveActivityJSON.encode(state))
            } catch let error as ContentStateInputError {
                throw Refusal.invalid(error.field.map { "\(field).\($0)" } ?? field, error.message)
            } catch let error as Refusal {
                throw error
            } catch {
                throw Refusal.invalid(field, "'\(field)' is not a valid DeliveryAttributes.ContentState")
            }
        }
        guard let schema = schemas[type] else {
            throw Refusal.unprocessable(code: .unknownAttributesType, message: "no schema for '\(type)'")
        }
        return try Self.check(value, against: schema.contentState, oneOf: schema.oneOf, field: field)
    }

    /// The content-state as the widget decodes it: unchanged, or wrapped for expo-widgets as the
    /// start's `widget` (the schema's first widget when the start named none).
    func output(_ state: JSONValue, type: String, widget: String? = nil) -> JSONValue {
        guard let schema = schemas[type], schema.isExpoWidgets else { return state }
        return .object([
            "name": .string(widget ?? widgetNames(type)[0]),
            "props": .string(String(decoding: state.serialized(), as: UTF8.self)),
        ])
    }
}

/// The built-in DropTrack delivery mapper: the handbook's seven steps and rider reassignment.
enum DeliveryMapper {
    static let eventTypes = ["delivery.step", "delivery.reassign", "delivery.eta"]

    /// Applies `delivery.step` (`{"step": "picked_up" | 1…7, "courierName"?}`), `delivery.reassign`
    /// (`{"courierName"}`) or `delivery.eta` (`{"minutes"}` or `{"etaEpochMillis"}`).
    static func apply(type: String, data: JSONValue, current: JSONValue, mapperState: JSONValue?, now: Date)
        throws(Refusal)
        -> MappedState
    {
        try unprocessable { () throws(Refusal) in
            try map(type: type, data: data, current: current, mapperState: mapperState, now: now)
        }
    }

    private static func map(type: String, data: JSONValue, current: JSONValue, mapperState: JSONValue?, now: Date)
        throws(Refusal)
        -> MappedState
    {
        let reader = try FieldReader(data, prefix: "data")
        var state =
            (try? LiveActivityJSON.decode(DeliveryAttributes.ContentState.self, from: current.encoded()))
            ?? DeliveryStep.placed.contentState(courierName: "", riderReassigned: false, at: now)
        var alert: JSONValue? = nil
        var terminal = false
        var memory = mapperState?.objectValue ?? [:]
        switch type {
        case "delivery.step":
            try reader.refuseUnknown(["step", "courierName"])
            guard let value = reader.object["step"] else {
                throw Refusal.missing("data.step", "a step name (placed … delivered) or number 1–7")
            }
            let name = value.stringValue ?? value.numberValue.map { JSONInteger.text($0) } ?? ""
            guard let step = DeliveryStep(name: name) else {
                throw Refusal.invalid(
                    "data.step",
                    "unknown step '\(name)'; steps are \(DeliveryStep.allCases.map(\.name).joined(separator: ", ")) or 1–7"
                )
            }
            let courier = try reader.string("courierName", required: false) ?? state.courierName
            state = step.contentState(courierName: courier, riderReassigned: state.riderReassigned, at: now)
            memory["step"] = .string(step.name)
            terminal = step.isTerminal
        case "delivery.reassign":
            try reader.refuseUnknown(["courierName"])
            let courier = try reader.string("courierName", what: "the new courier's name") ?? ""
            state.courierName = courier
            state.riderReassigned = true
            alert = .object([
                "title": .string("New courier"), "body": .string("\(courier) is now delivering your order"),
            ])
        case "delivery.eta":
            try reader.refuseUnknown(["minutes", "etaEpochMillis"])
            if let minutes = try reader.number("minutes") {
                guard minutes >= 0, minutes < 24 * 60 else {
                    throw Refusal.invalid("data.minutes", "'data.minutes' must be 0 to 1440")
                }
                state.eta = now.addingTimeInterval(minutes * 60)
            } else if let millis = try reader.number("etaEpochMillis") {
                let eta = Date(timeIntervalSince1970: millis / 1000)
                guard millis > 1e12, ContentDates.contains(referenceSeconds: eta.timeIntervalSinceReferenceDate) else {
                    throw Refusal.invalid(
                        "data.etaEpochMillis",
                        "'data.etaEpochMillis' is Unix milliseconds (13 digits), a time \(ContentDates.windowText)")
                }
                state.eta = eta
            } else {
                throw Refusal.missing("data.minutes", "'minutes' from now, or 'etaEpochMillis'")
            }
        default:
            throw Refusal.invalid(
                "type",
                "unknown event type '\(type)'; DeliveryAttributes events are \(eventTypes.joined(separator: ", "))")
        }
        let encoded = (try? JSONValue.parse(LiveActivityJSON.encode(state))) ?? current
        return MappedState(contentState: encoded, mapperState: .object(memory), alert: alert, terminal: terminal)
    }
}
