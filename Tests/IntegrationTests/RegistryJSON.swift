import DropTrackAPI
import DropTrackContract
import DropTrackDispatch
import DropTrackModel
import DropTrackStore

/// The registry's operations on the JSON bodies clients send, read by the API's own parsers, so a
/// test states a request as a client would.
extension ActivityRegistry {
    func registerToken(app: String, kind: TokenKind, body: JSONValue) throws(Refusal) -> (
        token: TokenRecord, created: Bool
    ) {
        try registerToken(app: app, RegisterToken(kind: kind, json: body))
    }

    func checkToken(app: String, kind: TokenKind, body: JSONValue) throws(Refusal) -> TokenRegistration {
        try checkToken(app: app, RegisterToken(kind: kind, json: body))
    }
}

extension ActivityRegistry {
    func applyEvent(app: String, activityId: String, body: JSONValue) throws(Refusal) -> JSONValue {
        try applyEvent(app: app, activityId: activityId, ApplyEvent(json: body)).json
    }

    func updateActivity(app: String, activityId: String, body: JSONValue) throws(Refusal) -> JSONValue {
        try updateActivity(app: app, activityId: activityId, UpdateActivity(json: body)).json
    }

    func endActivity(app: String, activityId: String, body: JSONValue) throws(Refusal) -> JSONValue {
        try endActivity(app: app, activityId: activityId, EndActivity(json: body)).json
    }
}

extension ActivitySnapshot {
    /// A member of the snapshot as `GET /v1/activities/{id}` answers it.
    subscript(key: String) -> JSONValue? { json[key] }
}

extension ActivityRegistry {
    func startActivity(app: String, body: JSONValue) throws(Refusal) -> (response: JSONValue, created: Bool) {
        let (started, created) = try startActivity(app: app, StartActivity(json: body))
        return (started.json, created)
    }
}
