import DropTrackContract
import Foundation

/// A refusal the API turns into `{"error": {"code", "message", "field"}}` with its status: what is
/// wrong, which field, and how to fix it. Bad input is always a 4xx, never a 5xx.
public struct APIError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The HTTP status.
    public var status: Int
    /// A stable machine code (`invalid_field`, `not_found`, …).
    public var code: String
    /// What is wrong and how to fix it.
    public var message: String
    /// The request field at fault, as a dotted path (`contentState.eta`).
    public var field: String?

    public init(_ status: Int, _ code: String, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The JSON body.
    public var body: JSONValue {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        return .object(["error": .object(error)])
    }

    /// A field with a wrong value or type (400).
    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(400, "invalid_field", message, field: field)
    }
    /// A required field that is absent (400).
    public static func missing(_ field: String, _ what: String) -> APIError {
        APIError(400, "missing_field", "'\(field)' is required: \(what)", field: field)
    }
    /// Something that does not exist for this app (404).
    public static func notFound(_ what: String, field: String? = nil) -> APIError {
        APIError(404, "not_found", what, field: field)
    }
}

/// Runs a check of content whose rules the OpenAPI schema cannot state (they come from the app's
/// configuration, the contract, or the clock): its refusals are 422, so a 400 always means the
/// request broke the published schema.
public func unprocessable<T>(_ body: () throws(APIError) -> T) throws(APIError) -> T {
    do {
        return try body()
    } catch {
        guard error.status == 400 else { throw error }
        throw APIError(422, "invalid_content", error.message, field: error.field)
    }
}

/// Reads typed fields from a JSON request body, with errors that name the field.
public struct FieldReader {
    /// The object read.
    public let object: [String: JSONValue]
    /// The dotted path of the object in the request (`event`), for error fields.
    public let prefix: String

    /// Refuses anything but a JSON object.
    public init(_ value: JSONValue, prefix: String = "") throws(APIError) {
        guard let object = value.objectValue else {
            throw APIError(
                400, "invalid_body",
                prefix.isEmpty ? "the body must be a JSON object" : "'\(prefix)' must be an object",
                field: prefix.isEmpty ? nil : prefix)
        }
        self.object = object
        self.prefix = prefix
    }

    /// The dotted path of a key.
    public func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    /// A string field of at most `maxLength` characters (Unicode scalars); a required one must not be empty.
    public func string(_ key: String, required: Bool = true, what: String = "a string", maxLength: Int = 200)
        throws(APIError) -> String?
    {
        guard let value = object[key], value != .null else {
            if required { throw APIError.missing(path(key), what) }
            return nil
        }
        guard let text = value.stringValue else {
            throw APIError.invalid(path(key), "'\(path(key))' must be a string, not a \(value.typeName)")
        }
        if required && text.isEmpty {
            throw APIError.invalid(path(key), "'\(path(key))' must not be empty")
        }
        guard text.unicodeScalars.count <= maxLength else {
            throw APIError.invalid(path(key), "'\(path(key))' is at most \(maxLength) characters")
        }
        return text
    }

    /// A number field, if present.
    public func number(_ key: String) throws(APIError) -> Double? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.numberValue else {
            throw APIError.invalid(path(key), "'\(path(key))' must be a number, not a \(value.typeName)")
        }
        return number
    }

    /// A whole-number field, if present.
    public func integer(_ key: String) throws(APIError) -> Int64? {
        guard let number = try number(key) else { return nil }
        guard number == number.rounded() else {
            throw APIError.invalid(path(key), "'\(path(key))' must be a whole number")
        }
        guard abs(number) < 9e15 else {
            throw APIError.invalid(path(key), "'\(path(key))' is out of range")
        }
        return Int64(number)
    }

    /// An object field; a required one must be present.
    public func object(_ key: String, required: Bool = false) throws(APIError) -> JSONValue? {
        guard let value = object[key], value != .null else {
            if required { throw APIError.missing(path(key), "an object") }
            return nil
        }
        guard value.objectValue != nil else {
            throw APIError.invalid(path(key), "'\(path(key))' must be an object, not a \(value.typeName)")
        }
        return value
    }

    /// Unknown keys are refused, so a misspelt field is an error and not silently ignored.
    public func refuseUnknown(_ allowed: Set<String>) throws(APIError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            let close = allowed.min { distance(key, $0) < distance(key, $1) }
            let hint = close.map { distance(key, $0) <= 3 ? " (did you mean '\($0)'?)" : "" } ?? ""
            throw APIError.invalid(
                path(key), "unknown field '\(path(key))'\(hint); known: \(allowed.sorted().joined(separator: ", "))")
        }
    }
}

/// Levenshtein distance, for "did you mean" hints.
func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
