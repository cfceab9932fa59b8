import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackRuntime
import Foundation

/// The demo app's backend: it holds the API key and a DropTrack-held device signing key, and gets
/// device credentials minted for its iPhone app.
extension DemoStack {
    /// The DropTrack-held signing key's id: `POST /v1/device-credentials` mints with it.
    public static let deviceKeyID = "dt-demo"

    /// Writes a new DropTrack-held device signing key (0600), as `apps device-key rotate` does, so the
    /// demo's backend can have credentials minted for its iPhone app; returns the file.
    static func writeDeviceSigningKey(into directory: String) throws -> String {
        let file = directory + "/\(appID)-device-\(deviceKeyID).p8"
        do {
            try PrivateFile.write(try PrivateKey.generate(.es256).pkcs8PEM, to: file)
        } catch {
            throw DemoError("cannot write the device signing key \(file): \(error)")
        }
        return file
    }

    /// What the app's backend does when its app asks for a credential: mint one with its API key.
    static func mintDeviceCredential(_ api: DemoAPI) throws -> String {
        let minted = api.call(
            "POST", "/v1/device-credentials", .object(["userId": .string(userID), "ttlSeconds": .number(3600)]))
        guard minted.status == 201, let credential = minted.body["credential"]?.stringValue else {
            throw DemoError("the backend could not mint a device credential (status \(minted.status))")
        }
        return credential
    }

    /// Where the demo's own apps reach the server over HTTP: the address it listens on, loopback for a
    /// wildcard (which `DemoGuard` does not answer to by name), and the port it bound.
    static func ownAddress(_ server: DropTrackServer) -> String {
        let host = parseListenAddress(server.configuration.listen)?.host ?? "127.0.0.1"
        let reachable = ["0.0.0.0", "::", "", "localhost"].contains(host) ? "127.0.0.1" : host
        return "\(reachable):\(server.port)"
    }
}

/// The demo app's calls to the server's API, in process, through the same router real requests
/// take (authentication, validation and logging included).
struct DemoAPI: Sendable {
    let server: DropTrackServer
    let key: String

    /// One call; returns the status and the JSON answer.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) -> (status: Int, body: JSONValue) {
        // The app's calls come from this machine, so they name the demo's own address (DemoGuard).
        var headers = ["authorization": "Bearer \(key)", "host": "127.0.0.1:\(server.port)"]
        if body != nil { headers["content-type"] = "application/json" }
        let request = HTTPRequest(
            method: method, path: path, headers: headers, body: body.map { $0.serialized() } ?? [])
        guard case .response(let response) = server.router.handle(request) else { return (0, .null) }
        return (response.status, (try? JSONValue.parse(bytes: response.body)) ?? .null)
    }

    func post(_ path: String, _ body: [String: JSONValue]) {
        call("POST", path, .object(body))
    }
}
