import DropTrackCrypto
import DropTrackDispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HMAC-SHA256 for webhook signatures, from OpenSSL.
struct OpenSSLWebhookSigner: WebhookSigner {
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { HMACSHA256.mac(key: key, message: message) }
}

/// Webhook POSTs over Foundation's URLSession, each bounded by its request's timeout.
final class URLSessionWebhookTransport: WebhookTransport {
    /// One session for the process, never invalidated: invalidating one from a deinit crashed
    /// FoundationNetworking when the last reference went on one of the session's own threads.
    private static let sharedSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
    private var session: URLSession { Self.sharedSession }

    func post(_ request: WebhookRequest, completion: @escaping @Sendable (WebhookResponse) -> Void) {
        guard let url = URL(string: request.url) else {
            completion(.failed("'\(request.url)' is not a URL"))
            return
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: request.timeoutSeconds)
        urlRequest.httpMethod = "POST"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = Data(request.body)
        session.dataTask(with: urlRequest) { _, response, error in
            if let response = response as? HTTPURLResponse {
                completion(.status(response.statusCode))
            } else {
                completion(.failed(error.map { "\($0.localizedDescription)" } ?? "no answer"))
            }
        }.resume()
    }
}

extension WebhookEndpoints {
    /// Every app's endpoints, each with the secret read from its `secretFile` (whitespace at the ends
    /// dropped). A secret file others may read is refused: whoever reads it can forge deliveries.
    static func load(apps: [AppConfiguration]) throws(ConfigurationError) -> WebhookEndpoints {
        var endpoints = WebhookEndpoints()
        for (appIndex, app) in apps.enumerated() {
            for (index, webhook) in (app.webhooks ?? []).enumerated() {
                let field = "apps[\(appIndex)].webhooks[\(index)].secretFile"
                let path = webhook.secretFile
                let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
                guard let mode, let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(
                        key: field,
                        "\(field): cannot read \(path); droptrack apps webhook add writes a secret file beside the config"
                    )
                }
                guard mode & 0o077 == 0 else {
                    throw ConfigurationError(
                        key: field,
                        "\(field): \(path) is readable by others (mode \(String(mode, radix: 8))); chmod 600 \(path)")
                }
                let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !secret.isEmpty else {
                    throw ConfigurationError(key: field, "\(field): \(path) is empty; it must hold the signing secret")
                }
                endpoints.add(app: app.id, id: webhook.id, url: webhook.url, secret: Array(secret.utf8))
            }
        }
        return endpoints
    }
}
