import DropTrackContract
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackStore

// Tags on users and devices (`/v1/users/{userId}/tags`, `/v1/devices/{deviceId}/tags`), which audience
// starts match. The backend sets any of its app's; a device its own user's and its own device's only.
extension APIRouter {
    /// The user or device a tags path names, its id checked by the id rule.
    static func tagSubject(template: String, parts: [String]) throws(APIError) -> TagSubject {
        let isUser = template == "/v1/users/{userId}/tags"
        let field = isUser ? "userId" : "deviceId"
        try domain { () throws(Refusal) in try Identifier.check(parts[2], field: field) }
        return isUser ? .user(parts[2]) : .device(parts[2])
    }

    /// Refuses (403) a device credential's tags call for another user, or for a device that is not its user's.
    func scopeTags(template: String, parts: [String], device: DeviceCaller) throws(APIError) {
        switch try Self.tagSubject(template: template, parts: parts) {
        case .user(let id):
            guard id == device.userId.rawValue else {
                throw APIError(
                    403, .otherUser,
                    "a device credential sets its own user's tags only; call PUT /v1/users/\(device.userId.rawValue)/tags, or tag other users from your backend with the API key",
                    field: "userId")
            }
        case .device(let id):
            let owned = try domain { () throws(Refusal) in
                try registry.device(app: device.app.rawValue, id: id, belongsTo: device.userId.rawValue)
            }
            guard owned else {
                throw APIError(
                    403, .otherDevice,
                    "device '\(id)' holds no push-to-start or FCM token of this credential's user; register this device's token with the credential first, then tag it",
                    field: "deviceId")
            }
        }
    }

    /// `GET` answers the tags; `PUT {"tags": [...]}` replaces them and answers what is stored.
    func serveTags(_ request: HTTPRequest, template: String, parts: [String], app: String) throws(APIError)
        -> HTTPReply
    {
        let subject = try Self.tagSubject(template: template, parts: parts)
        let tags: [String]
        if request.method == "PUT" {
            let body = try body(request)
            tags = try domain { () throws(Refusal) in
                try registry.setTags(app: app, of: subject, Tags(body: body).tags)
            }
        } else {
            tags = try domain { () throws(Refusal) in try registry.tags(app: app, of: subject) }
        }
        let key = subject.kind == "user" ? "userId" : "deviceId"
        return json(200, .object([key: .string(subject.id), "tags": .array(tags.map { .string($0) })]))
    }
}
