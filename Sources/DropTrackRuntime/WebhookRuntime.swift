import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackOutbound
import Foundation

/// HMAC-SHA256 for webhook signatures, from OpenSSL.
struct OpenSSLWebhookSigner: WebhookSigner {
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { HMACSHA256.mac(key: key, message: message) }
}

/// Webhook POSTs on libcurl (`OutboundHTTP`): each attempt ends at `webhookTimeoutSeconds`, follows no
/// redirect, reads at most 4 KiB of the answer undecoded, and connects only to public addresses unless the
/// operator allows loopback (`allowLoopbackWebhooks`) or lists networks (`webhookAllowedNetworks`).
struct CurlWebhookTransport: WebhookTransport {
    let limits: OutboundLimits

    init(configuration: ServerConfiguration) {
        limits = OutboundLimits(
            deadlineSeconds: configuration.webhookTimeoutSeconds,
            addresses: configuration.webhookAddressPolicy,
            // Configuration takes http:// only for 127.0.0.1, and only with allowLoopbackWebhooks.
            allowPlainHTTP: configuration.allowLoopbackWebhooks)
    }

    func post(_ request: WebhookRequest, completion: @escaping @Sendable (WebhookResponse) -> Void) {
        var limits = limits
        limits.deadlineSeconds = request.timeoutSeconds
        limits.connectSeconds = min(limits.connectSeconds, request.timeoutSeconds)
        let post = OutboundPost(
            url: request.url, headers: request.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: request.body, limits: limits)
        OutboundHTTP.shared.post(post) { completion(Self.response($0)) }
    }

    /// The answer as the worker records it; a failure says what to change when configuration can fix it.
    static func response(_ answer: OutboundAnswer) -> WebhookResponse {
        switch answer {
        case .status(let code, let location) where (300..<400).contains(code):
            let target = location.map { " to \(printable($0, limit: 200))" } ?? ""
            return .failed(
                "the receiver answered \(code), a redirect\(target): redirects are not followed (they would carry the "
                    + "signed body wherever the receiver points); configure the final URL as the endpoint's url")
        case .status(let code, _): return .status(code)
        case .failed(let failure):
            switch failure {
            case .timedOut(let seconds): return .timedOut(after: seconds)
            case .refusedAddress(_, .loopback):
                return .failed("\(failure): allowed only with allowLoopbackWebhooks: true (tests, local development)")
            case .refusedAddress:
                return .failed(
                    "\(failure): webhooks go to public addresses only; to allow a receiver on your own network, "
                        + "list its network in webhookAllowedNetworks")
            case .schemeNotAllowed:
                return .failed(
                    "\(failure): webhooks go to https:// (http://127.0.0.1 only with allowLoopbackWebhooks: true)")
            case .headersTooLarge, .transport: return .failed("\(failure)")
            }
        }
    }

    /// At most `limit` characters of `text`, control characters dropped: a receiver's words go into logs.
    static func printable(_ text: String, limit: Int) -> String {
        let kept = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }
        let cut = String(String.UnicodeScalarView(kept.prefix(limit)))
        return kept.count > limit ? cut + "…" : cut
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
