import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackModel

/// The domain's `FieldReader` for the API's own endpoints (`/v1/push`, `/v1/doctor`): the same
/// reading and messages, with refusals as the API's errors.
struct RequestFields {
    let reader: FieldReader

    init(_ value: JSONValue, prefix: String = "") throws(APIError) {
        reader = try domain { () throws(Refusal) in try FieldReader(value, prefix: prefix) }
    }

    /// The object read.
    var object: [String: JSONValue] { reader.object }

    func string(_ key: String, required: Bool = true, what: String = "a string", maxLength: Int = 200)
        throws(APIError) -> String?
    {
        try domain { () throws(Refusal) in
            try reader.string(key, required: required, what: what, maxLength: maxLength)
        }
    }

    func number(_ key: String) throws(APIError) -> Double? {
        try domain { () throws(Refusal) in try reader.number(key) }
    }

    func integer(_ key: String) throws(APIError) -> Int64? {
        try domain { () throws(Refusal) in try reader.integer(key) }
    }

    func object(_ key: String, required: Bool = false) throws(APIError) -> JSONValue? {
        try domain { () throws(Refusal) in try reader.object(key, required: required) }
    }

    func refuseUnknown(_ allowed: Set<String>) throws(APIError) {
        try domain { () throws(Refusal) in try reader.refuseUnknown(allowed) }
    }
}

extension Fingerprint {
    /// A `{fingerprint}` path segment, checked before any lookup: text that cannot be a fingerprint
    /// answers 400 naming the field, and is not repeated (a token pasted there is a secret).
    init(pathParameter text: String) throws(APIError) {
        do {
            try self.init(validating: text)
        } catch {
            throw .invalid(
                "fingerprint",
                "the path's fingerprint \(error); GET the activity or the token list for a token's fingerprint")
        }
    }
}
