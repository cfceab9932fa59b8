import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackSHA256
import DropTrackStore
import Foundation

/// One app (tenant): its bundle, provider credentials, API keys and schemas.
public struct AppConfiguration: Sendable, Codable, Equatable {
    /// APNs credentials.
    public struct APNs: Sendable, Codable, Equatable {
        /// The `.p8` key file.
        public var keyFile: String
        public var keyId: String
        public var teamId: String
        /// `sandbox` or `production`: which APNs host this app's tokens go to.
        public var environment: String
        public init(keyFile: String, keyId: String, teamId: String, environment: String) {
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
            self.environment = environment
        }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case keyFile, keyId, teamId, environment }
    }

    /// FCM credentials.
    public struct FCM: Sendable, Codable, Equatable {
        /// The service-account JSON file.
        public var serviceAccountFile: String
        public init(serviceAccountFile: String) { self.serviceAccountFile = serviceAccountFile }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case serviceAccountFile }
    }

    /// A key that signs or verifies this app's device credentials (docs/reference/device-api.md): exactly one
    /// of a public key (the app's backend mints with the private half) or a private key (DropTrack
    /// mints, and verifies with its public half).
    public struct DeviceKey: Sendable, Codable, Equatable {
        /// The JWS `kid` naming this key.
        public var kid: String
        /// A P-256 `-----BEGIN PUBLIC KEY-----` PEM file.
        public var publicKeyFile: String?
        /// A P-256 PKCS#8 private key file (`droptrack apps device-key rotate` writes one).
        public var privateKeyFile: String?
        public init(kid: String, publicKeyFile: String? = nil, privateKeyFile: String? = nil) {
            self.kid = kid
            self.publicKeyFile = publicKeyFile
            self.privateKeyFile = privateKeyFile
        }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case kid, publicKeyFile, privateKeyFile }

        /// A kid is what a JWS header carries and a file name may hold: 1–64 letters, digits, '-', '_' or '.'.
        public static func isValidKid(_ kid: String) -> Bool {
            !kid.isEmpty && kid.utf8.count <= 64 && kid != "." && kid != ".."
                && kid.unicodeScalars.allSatisfy {
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
                }
        }
    }

    /// The app's id, used in API keys and logs.
    public var id: String
    /// The iOS bundle id (the APNs topic is `<bundleId>.push-type.liveactivity`).
    public var bundleId: String?
    public var apns: APNs?
    public var fcm: FCM?
    /// `sha256:<hex>` of each API key; the keys themselves are never stored.
    public var apiKeyHashes: [String]
    /// Content-state schemas by `attributes-type`, for the generic mapper.
    public var schemas: [String: AttributesSchema]?
    /// Priority-10 sends per activity per hour before extra ones go at 5 (default from the server).
    public var priority10PerHour: Int?
    /// The keys that sign or verify this app's device credentials.
    public var deviceKeys: [DeviceKey]?
    /// Endpoints told about outcomes (dead letters, invalidated tokens, ended activities, …).
    public var webhooks: [Webhook]?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, bundleId, apns, fcm, apiKeyHashes, schemas, priority10PerHour, deviceKeys, webhooks
    }

    public init(
        id: String, bundleId: String? = nil, apns: APNs? = nil, fcm: FCM? = nil, apiKeyHashes: [String] = [],
        schemas: [String: AttributesSchema]? = nil, priority10PerHour: Int? = nil, deviceKeys: [DeviceKey]? = nil,
        webhooks: [Webhook]? = nil
    ) {
        self.deviceKeys = deviceKeys
        self.webhooks = webhooks
        self.id = id
        self.bundleId = bundleId
        self.apns = apns
        self.fcm = fcm
        self.apiKeyHashes = apiKeyHashes
        self.schemas = schemas
        self.priority10PerHour = priority10PerHour
    }

    /// A new API key for an app: `dt_<app>_<32 hex>`, and the hash to store.
    public static func newAPIKey(app: String) -> (key: String, hash: String) {
        let random = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let key = "dt_\(app)_\(String(hexEncoding: random))"
        return (key, hash(of: key))
    }

    /// The stored form of an API key.
    public static func hash(of key: String) -> String { "sha256:" + String(hexEncoding: SHA256.hash(Array(key.utf8))) }
}

/// The fields of a content-state (or attributes) a generic app declares, so the server refuses
/// wrong keys and types before anything is sent.
public struct AttributesSchema: Sendable, Codable, Equatable {
    /// One field's rule.
    public struct Field: Sendable, Codable, Equatable {
        /// `string`, `number`, `integer`, `boolean`, `date`, `object` or `array`.
        public var type: String
        /// May be absent or null.
        public var optional: Bool?
        /// For strings: the allowed values (a Swift enum's raw values).
        public var values: [String]?
        /// For objects: the nested fields (a nested Codable struct); without it, any object is taken.
        public var fields: [String: Field]?
        /// For arrays: every item's rule.
        public var items: Indirect<Field>?
        /// For objects with `fields`: groups of optional fields of which exactly one must be set.
        public var oneOf: [[String]]?
        public init(
            type: String, optional: Bool? = nil, values: [String]? = nil, fields: [String: Field]? = nil,
            items: Field? = nil, oneOf: [[String]]? = nil
        ) {
            self.type = type
            self.optional = optional
            self.values = values
            self.fields = fields
            self.items = items.map(Indirect.init)
            self.oneOf = oneOf
        }
    }

    /// The content-state's fields.
    public var contentState: [String: Field]
    /// The static attributes' fields (optional: without it, any object is taken).
    public var attributes: [String: Field]?
    /// `activitykit` (default) or `expo-widgets`, whose content-state is `{name, props: "<JSON>"}`.
    public var output: String?
    /// For expo-widgets: the widget name put in `name`.
    public var widgetName: String?
    /// For expo-widgets: several widgets sharing these props; a start picks one with `widget`.
    public var widgetNames: [String]?
    /// For expo-widgets: the app's build is patched so that `LiveActivityAttributes` carries
    /// `activityId` (the receipt write-up's patch). Every start then sends the server's activity id
    /// there, and the app reports it with the update token of an activity started by push.
    public var activityIdAttribute: Bool?
    /// Groups of optional top-level content-state fields of which exactly one must be set.
    public var oneOf: [[String]]?
    /// A declarative mapper: how events change a per-activity record, and how the content-state is
    /// computed from it (DeclarativeMapper.swift, docs/how-to/declarative-mappers.md).
    public var mapper: JSONValue?

    public init(
        contentState: [String: Field], attributes: [String: Field]? = nil, output: String? = nil,
        widgetName: String? = nil, widgetNames: [String]? = nil, activityIdAttribute: Bool? = nil,
        oneOf: [[String]]? = nil, mapper: JSONValue? = nil
    ) {
        self.activityIdAttribute = activityIdAttribute
        self.oneOf = oneOf
        self.mapper = mapper
        self.contentState = contentState
        self.attributes = attributes
        self.output = output
        self.widgetName = widgetName
        self.widgetNames = widgetNames
    }

    /// True when the content-state travels in expo-widgets' `{name, props}` wrapper.
    public var isExpoWidgets: Bool { output == "expo-widgets" }

    /// True when the app's `LiveActivityAttributes` carries `activityId` (see `activityIdAttribute`).
    public var carriesActivityId: Bool { isExpoWidgets && activityIdAttribute == true }

    /// The expo-widgets widget names a start may show, `widgetName` first; empty when neither is given
    /// (the schema's own name is the widget's then).
    public var expoWidgetNames: [String] {
        var names = widgetName.map { [$0] } ?? []
        for name in widgetNames ?? [] where !names.contains(name) { names.append(name) }
        return names
    }
}
