import DropTrackContract
import DropTrackModel

/// A refusal the API turns into `{"error": {"code", "message", "field"}}` with its status: what is
/// wrong, which field, and how to fix it. Bad input is always a 4xx, never a 5xx.
public struct APIError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The HTTP status.
    public var status: Int
    /// The stable machine code (`invalid_field`, `not_found`, …), one of a closed set.
    public var code: RefusalCode
    /// What is wrong and how to fix it.
    public var message: String
    /// The request field at fault, as a dotted path (`contentState.eta`).
    public var field: String?

    public init(_ status: Int, _ code: RefusalCode, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(status) \(code.rawValue): \(message)" }

    /// The JSON body.
    public var body: JSONValue {
        var error: [String: JSONValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        return .object(["error": .object(error)])
    }

    /// A field with a wrong value or type (400).
    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(400, .invalidField, message, field: field)
    }
    /// A required field that is absent (400).
    public static func missing(_ field: String, _ what: String) -> APIError {
        APIError(400, .missingField, "'\(field)' is required: \(what)", field: field)
    }
    /// Something that does not exist for this app (404).
    public static func notFound(_ what: String, field: String? = nil) -> APIError {
        APIError(404, .notFound, what, field: field)
    }
}
