import Foundation

/// Why the domain refused an operation: what is wrong, the field at fault (a dotted path such as
/// `contentState.eta`) and, in the message, how to fix it. The cases sort refusals by what the
/// caller can do about them; the API gives each case its HTTP status, and `code` is the stable
/// machine code clients see, so the domain knows no HTTP and the wire stays as it was.
public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request breaks its published shape: a wrong or missing field, or a body that is not an
    /// object (`invalid_field`, `missing_field`, `invalid_body`). Fix the request.
    case invalid(code: RefusalCode = .invalidField, message: String, field: String? = nil)
    /// Something that does not exist for this app (`not_found`). Create it first, or fix the id.
    case notFound(message: String, field: String? = nil)
    /// The request collides with the current state (`conflict`, `activity_exists`, `activity_ended`,
    /// `not_broadcast`). Retry, or use another id.
    case conflict(code: RefusalCode, message: String, field: String? = nil)
    /// The activity is dismissed and its tokens discarded (`activity_over`). Start a new activity.
    case activityOver(message: String, field: String? = nil)
    /// Well-formed content that breaks a rule the published schema cannot state: the app's
    /// contracts, its configuration, the clock or payload size (`invalid_content`,
    /// `unknown_attributes_type`, `payload_too_large`, `no_credentials`). Fix the content.
    case unprocessable(code: RefusalCode = .invalidContent, message: String, field: String? = nil)
    /// The store or a provider failed (`store_unavailable`, `channel_unavailable`). Retry shortly.
    case unavailable(code: RefusalCode, message: String, field: String? = nil)
    /// A stored record cannot be read back (`corrupt_record`): retrying reads the same row, so the
    /// operator must repair or delete it. The message names the table, row and column.
    case corrupt(message: String, field: String? = nil)

    /// The stable machine code the API sends.
    public var code: RefusalCode {
        switch self {
        case .invalid(let code, _, _), .conflict(let code, _, _), .unprocessable(let code, _, _),
            .unavailable(let code, _, _):
            code
        case .notFound: .notFound
        case .activityOver: .activityOver
        case .corrupt: .corruptRecord
        }
    }

    /// What is wrong and how to fix it.
    public var message: String {
        switch self {
        case .invalid(_, let message, _), .conflict(_, let message, _), .unprocessable(_, let message, _),
            .unavailable(_, let message, _), .notFound(let message, _), .activityOver(let message, _),
            .corrupt(let message, _):
            message
        }
    }

    /// The request field at fault, as a dotted path, if one is.
    public var field: String? {
        switch self {
        case .invalid(_, _, let field), .conflict(_, _, let field), .unprocessable(_, _, let field),
            .unavailable(_, _, let field), .notFound(_, let field), .activityOver(_, let field),
            .corrupt(_, let field):
            field
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The same refusal with its field, and the field's name in the message, under `prefix`
    /// (`data.step` becomes `event.data.step`): a start carries its first event in `event`, and the
    /// mappers name fields as an event's own body has them.
    public func nested(under prefix: String) -> Refusal {
        guard let field, field.hasPrefix("data") || field == "type" else { return self }
        let moved = "\(prefix).\(field)"
        let text = message.replacingOccurrences(of: "'\(field)", with: "'\(moved)")
        switch self {
        case .invalid(let code, _, _): return .invalid(code: code, message: text, field: moved)
        case .notFound: return .notFound(message: text, field: moved)
        case .conflict(let code, _, _): return .conflict(code: code, message: text, field: moved)
        case .activityOver: return .activityOver(message: text, field: moved)
        case .unprocessable(let code, _, _): return .unprocessable(code: code, message: text, field: moved)
        case .unavailable(let code, _, _): return .unavailable(code: code, message: text, field: moved)
        case .corrupt: return .corrupt(message: text, field: moved)
        }
    }

    /// A field with a wrong value or type.
    public static func invalid(_ field: String, _ message: String) -> Refusal {
        .invalid(message: message, field: field)
    }
    /// A required field that is absent; `what` says what to send.
    public static func missing(_ field: String, _ what: String) -> Refusal {
        .invalid(code: .missingField, message: "'\(field)' is required: \(what)", field: field)
    }
    /// Something that does not exist for this app.
    public static func notFound(_ what: String, field: String? = nil) -> Refusal {
        .notFound(message: what, field: field)
    }
}
