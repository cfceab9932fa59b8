import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// Reads typed fields from a JSON request body, with errors that name the field.
public struct FieldReader {
    /// The object read.
    public let object: [String: JSONValue]
    /// The dotted path of the object in the request (`event`), for error fields.
    public let prefix: String

    /// Refuses anything but a JSON object.
    public init(_ value: JSONValue, prefix: String = "") throws(Refusal) {
        guard let object = value.objectValue else {
            throw Refusal.invalid(
                code: .invalidBody,
                message: prefix.isEmpty ? "the body must be a JSON object" : "'\(prefix)' must be an object",
                field: prefix.isEmpty ? nil : prefix)
        }
        self.object = object
        self.prefix = prefix
    }

    /// The dotted path of a key.
    public func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    /// A string field of at most `maxLength` characters (Unicode scalars); a required one must not be empty.
    public func string(_ key: String, required: Bool = true, what: String = "a string", maxLength: Int = 200)
        throws(Refusal) -> String?
    {
        guard let value = object[key], value != .null else {
            if required { throw Refusal.missing(path(key), what) }
            return nil
        }
        guard let text = value.stringValue else {
            throw Refusal.invalid(path(key), "'\(path(key))' must be a string, not a \(value.typeName)")
        }
        if required && text.isEmpty {
            throw Refusal.invalid(path(key), "'\(path(key))' must not be empty")
        }
        guard text.unicodeScalars.count <= maxLength else {
            throw Refusal.invalid(path(key), "'\(path(key))' is at most \(maxLength) characters")
        }
        return text
    }

    /// A number field, if present.
    public func number(_ key: String) throws(Refusal) -> Double? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.numberValue else {
            throw Refusal.invalid(path(key), "'\(path(key))' must be a number, not a \(value.typeName)")
        }
        return number
    }

    /// A whole-number field within `bounds` (any whole number JSON carries exactly, by default), if present.
    public func integer(_ key: String, in bounds: ClosedRange<Int64> = JSONInteger.exactRange) throws(Refusal)
        -> Int64?
    {
        guard let number = try number(key) else { return nil }
        guard number == number.rounded() else {
            throw Refusal.invalid(path(key), "'\(path(key))' must be a whole number")
        }
        guard let whole = Int64(checking: number, within: bounds) else {
            throw Refusal.invalid(
                path(key),
                "'\(path(key))' = \(JSONInteger.text(number)) is out of range; it is from \(bounds.lowerBound) to \(bounds.upperBound)"
            )
        }
        return whole
    }

    /// An object field; a required one must be present.
    public func object(_ key: String, required: Bool = false) throws(Refusal) -> JSONValue? {
        guard let value = object[key], value != .null else {
            if required { throw Refusal.missing(path(key), "an object") }
            return nil
        }
        guard value.objectValue != nil else {
            throw Refusal.invalid(path(key), "'\(path(key))' must be an object, not a \(value.typeName)")
        }
        return value
    }

    /// Unknown keys are refused, so a misspelt field is an error and not silently ignored.
    public func refuseUnknown(_ allowed: Set<String>) throws(Refusal) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            let hint = KeySuggestion.didYouMean(key, among: allowed)
            throw Refusal.invalid(
                path(key), "unknown field '\(path(key))'\(hint); known: \(allowed.sorted().joined(separator: ", "))")
        }
    }
}

extension FieldReader {
    /// A required id field (see `Identifier`): a string by the id rule, refused with the field and the rule.
    public func identifier(_ key: String) throws(Refusal) -> String {
        let text = try string(key, what: "an id, \(Identifier.rule)", maxLength: Int.max) ?? ""
        try Identifier.check(text, field: path(key))
        return text
    }

    /// A required id field of one kind (`reader.id("deviceId") as DeviceID`), refused with the field
    /// and the kind's rule.
    public func id<ID: ValidatedIdentifier>(_ key: String) throws(Refusal) -> ID {
        let text = try string(key, what: "an id, \(Identifier.rule)", maxLength: Int.max) ?? ""
        return try ID(validating: text, field: path(key))
    }
}
