import DropTrackContract
import DropTrackCore
import DropTrackStore
import Foundation

extension AppConfiguration {
    /// An endpoint told about this app's outcomes, signed with its own secret.
    public struct Webhook: Sendable, Codable, Equatable {
        /// Names the endpoint in the queue, logs and metrics (letters, digits, '-', '_').
        public var id: String
        /// `https://…` (or `http://127.0.0.1…` with `allowLoopbackWebhooks`).
        public var url: String
        /// A file (mode 0600) holding the signing secret.
        public var secretFile: String
        /// The events it wants (`WebhookEvent` raw values); nil or absent means all.
        public var events: [String]?

        public init(id: String, url: String, secretFile: String, events: [String]? = nil) {
            self.id = id
            self.url = url
            self.secretFile = secretFile
            self.events = events
        }

        /// Whether this endpoint wants `event`.
        public func wants(_ event: WebhookEvent) -> Bool { events?.contains(event.rawValue) ?? true }
    }
}

/// The outcomes a webhook reports.
public enum WebhookEvent: String, Sendable, CaseIterable {
    /// A send was given up for good (a rejected request, or retries exhausted).
    case deadLetter = "dead_letter"
    /// A token was invalidated, by the provider or by the device's lifecycle report.
    case tokenInvalidated = "token_invalidated"
    /// An activity ended (through the API or automatically).
    case activityEnded = "activity_ended"
    /// A start may or may not have reached the device, and is never sent again.
    case startInDoubt = "start_in_doubt"
    /// The user dismissed the activity on a device.
    case activityDismissed = "activity_dismissed"
    /// A person pressed a button in the Live Activity (`POST /v1/activities/{id}/actions`).
    case activityAction = "activity_action"
}

extension ServerConfiguration {
    /// The addresses a webhook may connect to: public ones, loopback with `allowLoopbackWebhooks`, and the
    /// networks in `webhookAllowedNetworks` (those that parse: `validateWebhookLimits` refuses the others).
    public var webhookAddressPolicy: OutboundAddressPolicy {
        OutboundAddressPolicy(
            allowLoopback: allowLoopbackWebhooks, allowedNetworks: webhookAllowedNetworks.compactMap(IPNetwork.init))
    }

    /// The timeout and attempts are positive; each allowed network is a CIDR network.
    func validateWebhookLimits() throws(ConfigurationError) {
        guard webhookTimeoutSeconds > 0, webhookTimeoutSeconds <= 300 else {
            throw ConfigurationError(
                key: "webhookTimeoutSeconds", "webhookTimeoutSeconds must be more than 0 and at most 300 seconds")
        }
        guard webhookMaxAttempts > 0 else {
            throw ConfigurationError(key: "webhookMaxAttempts", "webhookMaxAttempts must be 1 or more")
        }
        for (index, network) in webhookAllowedNetworks.enumerated() where IPNetwork(network) == nil {
            throw ConfigurationError(
                key: "webhookAllowedNetworks[\(index)]",
                "webhookAllowedNetworks[\(index)] '\(network)' is not a network: write ADDRESS/PREFIX with the bits "
                    + "past the prefix zero, like 10.20.0.0/16 or fd00:1::/64")
        }
    }

    /// Each id once, a URL the server may call, a secret file, known events.
    func validateWebhooks(_ webhooks: [AppConfiguration.Webhook], at path: String) throws(ConfigurationError) {
        var ids = Set<String>()
        for (index, webhook) in webhooks.enumerated() {
            let field = "\(path)[\(index)]"
            guard !webhook.id.isEmpty, webhook.id.count <= 64,
                webhook.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw ConfigurationError(key: "\(field).id", "\(field).id must be 1-64 letters, digits, '-' or '_'")
            }
            guard ids.insert(webhook.id).inserted else {
                throw ConfigurationError(
                    key: "\(field).id",
                    "\(field).id '\(webhook.id)' appears twice; remove one (droptrack apps webhook remove)")
            }
            let url = URLComponents(string: webhook.url)
            let loopback = url?.scheme == "http" && url?.host == "127.0.0.1"
            guard url?.scheme == "https" && !(url?.host ?? "").isEmpty || loopback && allowLoopbackWebhooks else {
                throw ConfigurationError(
                    key: "\(field).url",
                    loopback
                        ? "\(field).url is http://127.0.0.1, allowed only with allowLoopbackWebhooks: true (tests, local development)"
                        : "\(field).url must be an https:// URL, not '\(webhook.url)'")
            }
            // A literal address is checked now; a name is checked on each address it resolves to, at each attempt.
            if let host = url?.host, let address = IPAddress(host),
                let scope = webhookAddressPolicy.refusal(of: address)
            {
                throw ConfigurationError(
                    key: "\(field).url",
                    "\(field).url points at \(address), \(scope.explanation): "
                        + (scope == .loopback
                            ? "allowed only with allowLoopbackWebhooks: true (tests, local development)"
                            : "webhooks go to public addresses only; list its network in webhookAllowedNetworks to allow it")
                )
            }
            guard !webhook.secretFile.isEmpty else {
                throw ConfigurationError(
                    key: "\(field).secretFile",
                    "\(field).secretFile must name the file holding the signing secret (droptrack apps webhook add writes one)"
                )
            }
            for event in webhook.events ?? [] where WebhookEvent(rawValue: event) == nil {
                throw ConfigurationError(
                    key: "\(field).events",
                    "\(field).events: unknown event '\(event)'; known: \(WebhookEvent.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
    }
}

/// Queues an outcome for every endpoint of its app that wants it, in the transaction of the outcome
/// itself: a crash keeps both or neither.
public struct WebhookOutcomes: Sendable {
    private let endpoints: [String: [AppConfiguration.Webhook]]
    private let queued: @Sendable () -> Void

    /// The endpoints of every app in `configuration`; `queued` runs after a transaction that queued
    /// deliveries commits (the server wakes its `WebhookWorker` there).
    public init(configuration: ServerConfiguration, queued: @escaping @Sendable () -> Void = {}) {
        var endpoints: [String: [AppConfiguration.Webhook]] = [:]
        for app in configuration.apps { endpoints[app.id] = app.webhooks ?? [] }
        self.endpoints = endpoints
        self.queued = queued
    }

    /// Whether any endpoint of `app` wants `event` (callers skip building `data` otherwise).
    public func wanted(app: String, event: WebhookEvent) -> Bool {
        endpoints[app]?.contains { $0.wants(event) } ?? false
    }

    /// Queues `event` about `activityId` for each endpoint of `app` that wants it. `data` must hold
    /// tokens only as fingerprints.
    public func record(
        _ tx: any StoreTransaction, app: String, activityId: String, event: WebhookEvent, data: [String: JSONValue],
        at now: Date
    ) throws {
        let wanting = endpoints[app]?.filter { $0.wants(event) } ?? []
        guard !wanting.isEmpty else { return }
        let deliveries = wanting.map { endpoint in
            let id = UUID().uuidString.lowercased()
            let body: JSONValue = .object([
                "id": .string(id), "type": .string(event.rawValue), "app": .string(app),
                "activityId": .string(activityId),
                "occurredAt": .string(now.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
                "data": .object(data),
            ])
            return WebhookDelivery(
                app: app, endpoint: endpoint.id, activityId: activityId, deliveryId: id, event: event.rawValue,
                body: String(decoding: body.serialized(), as: UTF8.self), createdAt: now, availableAt: now)
        }
        try tx.enqueueWebhooks(deliveries)
        tx.afterCommit(queued)
    }
}
