import DropTrackContract
import DropTrackCore
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation

/// Helpers shared by the emulators' `/_emulator/` admin endpoints.
enum AdminAPI {
    /// Splits `/path?a=1&b=2`.
    static func split(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            query[key] = value
        }
        return (String(target[..<mark]), query)
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTP2ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return HTTP2ServerResponse(
            status: status, headers: [HTTPHeader("content-type", "application/json")], body: Array(body))
    }

    static func error(_ status: Int, _ message: String) -> HTTP2ServerResponse {
        json(["error": message], status: status)
    }

    static let noContent = HTTP2ServerResponse(status: 204)
}

extension APNsEmulator {
    struct TokenRegistration: Decodable {
        var token: String
        var environment: String?
        var attributesType: String?
        var dead: String?
    }

    struct Stats: Encodable {
        var requests: Int
        var statuses: [String: Int]
        var channels: Int
    }

    /// `/_emulator/…`: read records, register tokens, script faults. For tests and curl.
    func admin(_ request: HTTP2ServerRequest) -> HTTP2ServerResponse {
        let (path, query) = AdminAPI.split(request.path)
        switch (request.method, path) {
        case ("GET", "/_emulator/records"):
            var list = records(after: Int(query["after"] ?? "0") ?? 0)
            if let token = query["token"]?.lowercased() { list = list.filter { $0.token?.wireValue == token } }
            if let limit = query["limit"].flatMap(Int.init) { list = Array(list.suffix(limit)) }
            return AdminAPI.json(["records": list])
        case ("DELETE", "/_emulator/records"):
            clearRecords()
            return AdminAPI.noContent
        case ("GET", "/_emulator/latest"):
            guard let token = query["token"] else { return AdminAPI.error(400, "give ?token=HEX") }
            guard let record = latestAccepted(forToken: token) else {
                return AdminAPI.error(404, "no accepted push for that token")
            }
            return AdminAPI.json(record)
        case ("GET", "/_emulator/stats"):
            return AdminAPI.json(Stats(requests: requestCount, statuses: statusCounts, channels: channelIDs.count))
        case ("GET", "/_emulator/devices"):
            return AdminAPI.json(["devices": devices])
        case ("POST", "/_emulator/tokens"):
            guard let body = try? JSONDecoder().decode(TokenRegistration.self, from: Data(request.body)) else {
                return AdminAPI.error(
                    400,
                    "body must be {\"token\": HEX, \"environment\": \"sandbox\"|\"production\", \"attributesType\"?: NAME, \"dead\"?: \"Unregistered\"|\"ExpiredToken\"}"
                )
            }
            let environment = body.environment.flatMap { APNsEnvironment(name: $0) } ?? configuration.environment
            registerToken(body.token, environment: environment, attributesType: body.attributesType)
            if let dead = body.dead {
                markTokenDead(body.token, reason: dead == "ExpiredToken" ? .expiredToken : .unregistered)
            }
            return AdminAPI.noContent
        case ("PUT", "/_emulator/faults"), ("POST", "/_emulator/faults"):
            do {
                apply(try JSONDecoder().decode(APNsFaultScript.self, from: Data(request.body)))
                return AdminAPI.noContent
            } catch let error as DecodingError {
                return AdminAPI.error(400, "faults: \(EmulatorError.describe(error))")
            } catch {
                return AdminAPI.error(400, "faults: \(error)")
            }
        case ("DELETE", "/_emulator/channels"):
            guard let id = query["id"] else { return AdminAPI.error(400, "give ?id=CHANNEL") }
            deleteChannel(id)
            return AdminAPI.noContent
        default:
            return AdminAPI.error(404, "unknown admin path \(path)")
        }
    }
}
