import DropTrackContract
import DropTrackModel
import Foundation

// expo-widgets: every widget of an app is one ActivityKit type, `LiveActivityAttributes`, whose
// content-state names the widget and carries its props as JSON text. The schema's own name is
// DropTrack's handle for the props' rules; the phone only ever sees the library's type.
extension ContractBook {
    /// The expo-widgets schemas, by name.
    var expoSchemas: [String: AttributesSchema] { schemas.filter { $0.value.isExpoWidgets } }

    /// The name iOS matches against `attributes-type` for a schema: `LiveActivityAttributes` for an
    /// expo-widgets schema, whatever it is registered under; the schema's name otherwise.
    func activityKitType(_ type: String) -> String {
        if schemas[type]?.isExpoWidgets == true { return ExpoWidgetsAttributes.typeName }
        return type
    }

    /// Whether a push-to-start token registered for `tokenType` can start an activity of `type`: the
    /// phone issues one token per ActivityKit type, so every expo-widgets schema shares it.
    func pushToStartMatches(tokenType: String?, type: String) -> Bool {
        guard let tokenType else { return false }
        return tokenType == type || activityKitType(tokenType) == activityKitType(type)
    }

    /// The widget names a schema's start may show: the registered ones, or the schema's name.
    func widgetNames(_ type: String) -> [String] {
        guard let schema = schemas[type] else { return [] }
        let names = schema.expoWidgetNames
        return names.isEmpty ? [type] : names
    }

    /// Resolves a start's schema and widget. `attributesType` is a schema's name or, for an
    /// expo-widgets app, `LiveActivityAttributes` (the schema is then the one registering `widget`).
    /// Refuses a widget the app did not register, listing those it did.
    func expoStart(type: String, widget: String?) throws(Refusal) -> (type: String, widget: String?) {
        if type == ExpoWidgetsAttributes.typeName, schemas[type] == nil, !expoSchemas.isEmpty {
            let candidates = expoSchemas.keys.sorted().filter { name in
                widget.map { widgetNames(name).contains($0) } ?? (widgetNames(name).count == 1)
            }
            guard candidates.count == 1, let name = candidates.first else {
                throw Refusal.unprocessable(
                    message:
                        "'widget' must name one registered expo-widgets widget: \(allWidgetNames.joined(separator: ", "))",
                    field: "widget")
            }
            return try expoStart(type: name, widget: widget)
        }
        guard let schema = schemas[type], schema.isExpoWidgets else {
            if widget != nil {
                throw Refusal.unprocessable(
                    message: "'widget' is for expo-widgets schemas and \(type) is not one; drop 'widget'",
                    field: "widget")
            }
            return (type, nil)
        }
        let names = widgetNames(type)
        guard let widget else {
            guard names.count == 1 else {
                throw Refusal.unprocessable(
                    message:
                        "\(type) registers several widgets; name one in 'widget': \(names.joined(separator: ", "))",
                    field: "widget")
            }
            return (type, names[0])
        }
        guard names.contains(widget) else {
            throw Refusal.unprocessable(
                message:
                    "no expo-widgets widget '\(widget)' is registered for \(type) (the phone would show nothing): use \(names.joined(separator: " or "))",
                field: "widget")
        }
        return (type, widget)
    }

    /// Every expo-widgets widget name of the app, sorted.
    var allWidgetNames: [String] { Set(expoSchemas.keys.flatMap { widgetNames($0) }).sorted() }

    /// Checks attributes for an expo-widgets schema: `LiveActivityAttributes` decodes `url` (a
    /// string) and nothing else, so any other key would be lost on the phone and is refused; a schema
    /// declaring `activityIdAttribute` (a patched build) also gets `activityId`, always the activity's
    /// own id, so that the app can report it with the token of an activity started by push.
    func expoAttributes(_ value: JSONValue, type: String, activityId: String?, field: String) throws(Refusal)
        -> JSONValue
    {
        let reader = try FieldReader(value, prefix: field)
        let carriesId = schemas[type]?.carriesActivityId == true
        let idKey = ExpoWidgetsAttributes.activityIdKey
        for key in reader.object.keys.sorted() where !ExpoWidgetsAttributes.attributeKeys.contains(key) {
            if key == idKey, carriesId { continue }
            let fix =
                key == idKey
                ? "if the app's expo-widgets is patched to carry activityId, declare \"activityIdAttribute\": true in the schema \(type); otherwise drop it (the server's activity id is the start's activityId)"
                : "move it into contentState (the widget's props)"
            throw Refusal.invalid(
                "\(field).\(key)",
                "expo-widgets' LiveActivityAttributes decodes only 'url', so '\(field).\(key)' would never reach the widget: \(fix)"
            )
        }
        var attributes: [String: JSONValue] = [:]
        switch reader.object["url"] {
        case nil, .null: break
        case .string(let url): attributes["url"] = .string(url)
        case .some(let other):
            throw Refusal.invalid(
                "\(field).url",
                "'\(field).url' is a \(other.typeName); LiveActivityAttributes.url is a string (a deep link), and iOS drops a start whose attributes do not decode"
            )
        }
        if carriesId, let activityId {
            if let given = reader.object[idKey], given != .null, given.stringValue != activityId {
                throw Refusal.invalid(
                    "\(field).\(idKey)",
                    "'\(field).\(idKey)' must be the activity's own id '\(activityId)' (the app reports it with the token), or left out: the server fills it in"
                )
            }
            attributes[idKey] = .string(activityId)
        }
        return .object(attributes)
    }
}
