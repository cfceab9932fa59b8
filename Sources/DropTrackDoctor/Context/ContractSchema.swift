import DropTrackContract
import DropTrackWire
import Foundation

/// An app's Live Activity contract as a field map: what its `ContentState` and static attributes
/// decode, and what its Android data map carries. The doctor checks payloads against it when the
/// Swift type itself is not compiled into the server.
///
/// The JSON shape is a superset of the server's per-app `schemas` entries (`contentState`,
/// `attributes`, `output`, `widgetName`, and per field `type`, `optional`, `values`), so a registered
/// schema can be handed to the doctor as it is.
public struct ContractSchema: Sendable, Codable, Equatable {
    /// One field's rule.
    public struct Field: Sendable, Codable, Equatable {
        /// `string`, `number`, `integer`, `boolean`, `date`, `object` or `array`; in an Android data
        /// map also `epoch-millis` and `epoch-seconds` (all values there are strings).
        public var type: String
        /// May be absent or null (a Swift optional).
        public var optional: Bool?
        /// For strings: the cases the app build knows (a Swift enum's raw values).
        public var values: [String]?
        /// Smallest value the layout expects (numbers).
        public var minimum: Double?
        /// Largest value the layout expects (numbers).
        public var maximum: Double?
        /// Longest string the layout shows without clipping.
        public var maxLength: Int?
        /// For `date` fields: `reference` (Swift's default, seconds since 2001; the default here),
        /// `unix-seconds`, `unix-milliseconds` or `iso8601`, when the app decodes dates itself.
        public var dateEncoding: String?
        /// For objects: the nested fields (a nested Codable struct), as the server's schemas declare them.
        public var fields: [String: Field]?
        /// For arrays: every item's rule.
        public var items: Indirect<Field>?
        /// For objects with `fields`: groups of optional fields of which exactly one must be set.
        public var oneOf: [[String]]?

        /// Creates a field rule.
        public init(
            type: String, optional: Bool? = nil, values: [String]? = nil, minimum: Double? = nil,
            maximum: Double? = nil, maxLength: Int? = nil, dateEncoding: String? = nil,
            fields: [String: Field]? = nil, items: Field? = nil, oneOf: [[String]]? = nil
        ) {
            self.fields = fields
            self.items = items.map(Indirect.init)
            self.oneOf = oneOf
            self.type = type
            self.optional = optional
            self.values = values
            self.minimum = minimum
            self.maximum = maximum
            self.maxLength = maxLength
            self.dateEncoding = dateEncoding
        }

        /// The types a content-state or attributes field may have.
        public static let activityTypes: Set<String> = [
            "string", "number", "integer", "boolean", "date", "object", "array",
        ]
        /// The types an Android data-map value may be parsed as.
        public static let androidTypes: Set<String> = [
            "string", "number", "integer", "boolean", "epoch-millis", "epoch-seconds",
        ]
        /// The date encodings a `date` field may declare.
        public static let dateEncodings: Set<String> = ["reference", "unix-seconds", "unix-milliseconds", "iso8601"]
    }

    /// The `attributes-type` name (the Swift type's name).
    public var attributesType: String?
    /// This contract's version, as the app build reports it with its tokens.
    public var version: String?
    /// Older versions whose builds still decode payloads of this shape (only optional fields added).
    public var compatibleVersions: [String]?
    /// The ContentState's fields, by JSON key.
    public var contentState: [String: Field]
    /// The static attributes' fields, by JSON key.
    public var attributes: [String: Field]?
    /// `activitykit` (default) or `expo-widgets`, whose content-state is `{name, props: "<JSON>"}`.
    public var output: String?
    /// For expo-widgets: the widget name the content-state's `name` must carry.
    public var widgetName: String?
    /// For expo-widgets: further widget names the content-state's `name` may carry.
    public var widgetNames: [String]?
    /// The static attribute carrying the backend's id, so tokens can be matched to their activity.
    public var correlationKey: String?
    /// Static attributes whose domain value can change during the activity (a design mistake: they
    /// belong in the ContentState).
    public var mutableAttributes: [String]?
    /// The Android data map's keys and how the app parses each string.
    public var androidData: [String: Field]?
    /// The Android data key whose epoch-millisecond value the app posts as the notification's `when`.
    public var androidWhenKey: String?
    /// The Android data key the app shows as `shortCriticalText` in the status-bar chip.
    public var androidShortTextKey: String?
    /// Groups of optional top-level content-state fields of which exactly one must be set.
    public var oneOf: [[String]]?
    /// The server's declarative mapper, carried along unread (a registered schema is taken as it is).
    public var mapper: JSONValue?

    /// Creates a schema.
    public init(
        attributesType: String? = nil, version: String? = nil, compatibleVersions: [String]? = nil,
        contentState: [String: Field], attributes: [String: Field]? = nil, output: String? = nil,
        widgetName: String? = nil, correlationKey: String? = nil, mutableAttributes: [String]? = nil,
        androidData: [String: Field]? = nil, androidWhenKey: String? = nil, androidShortTextKey: String? = nil,
        widgetNames: [String]? = nil,
        oneOf: [[String]]? = nil, mapper: JSONValue? = nil
    ) {
        self.oneOf = oneOf
        self.mapper = mapper
        self.attributesType = attributesType
        self.version = version
        self.compatibleVersions = compatibleVersions
        self.contentState = contentState
        self.attributes = attributes
        self.output = output
        self.widgetName = widgetName
        self.widgetNames = widgetNames
        self.correlationKey = correlationKey
        self.mutableAttributes = mutableAttributes
        self.androidData = androidData
        self.androidWhenKey = androidWhenKey
        self.androidShortTextKey = androidShortTextKey
    }

    /// True when the content-state travels in expo-widgets' `{name, props}` wrapper.
    public var isExpoWidgets: Bool { output == "expo-widgets" }

    /// Every expo-widgets widget name the contract registers (`widgetName`, then `widgetNames`).
    public var expoWidgetNames: [String] { (widgetName.map { [$0] } ?? []) + (widgetNames ?? []) }

    /// DropTrack's delivery contract (`DeliveryAttributes` and `DeliveryLiveUpdate`) as a field map.
    public static let delivery: ContractSchema = {
        typealias Key = DeliveryLiveUpdate.Key
        return ContractSchema(
            attributesType: DeliveryAttributes.typeName,
            contentState: [
                "status": Field(type: "string"), "progress": Field(type: "number", minimum: 0, maximum: 1),
                "eta": Field(type: "date"), "stopsRemaining": Field(type: "integer", minimum: 0),
                "courierName": Field(type: "string"), "riderReassigned": Field(type: "boolean"),
                "step": Field(type: "integer", optional: true, minimum: 0),
                "stepCount": Field(
                    type: "integer", optional: true, minimum: 1, maximum: Double(DeliveryWidgetLogic.maximumStepCount)),
            ],
            attributes: ["orderId": Field(type: "string")], correlationKey: "orderId",
            androidData: [
                Key.activityId: Field(type: "string"),
                Key.event: Field(type: "string", values: DeliveryLiveUpdate.Event.allCases.map(\.rawValue)),
                Key.orderId: Field(type: "string"), Key.status: Field(type: "string"),
                Key.progress: Field(type: "number", minimum: 0, maximum: 1),
                Key.etaEpochMillis: Field(type: "epoch-millis"),
                Key.stopsRemaining: Field(type: "integer", minimum: 0), Key.courierName: Field(type: "string"),
                Key.riderReassigned: Field(type: "boolean"),
                Key.schemaVersion: Field(type: "string", values: [DeliveryLiveUpdate.schemaVersion]),
                Key.sequence: Field(type: "integer"),
                Key.step: Field(type: "integer", optional: true, minimum: 0),
                Key.stepCount: Field(
                    type: "integer", optional: true, minimum: 1, maximum: Double(DeliveryWidgetLogic.maximumStepCount)),
            ],
            androidWhenKey: Key.etaEpochMillis)
    }()
}

/// The contract the doctor checks a payload against: a field map, plus the compiled Swift type
/// when the server has it (then content-state and attributes are decoded exactly as the device does).
public struct DoctorContract: Sendable, Equatable, Codable {
    /// The `attributes-type` name, when known.
    public var attributesType: String?
    /// The fields.
    public var schema: ContractSchema
    /// The compiled type, decoded with ActivityKit's rules; nil for apps known only by a field map.
    public var compiled: LiveActivityContract?

    /// A contract known only by its field map.
    public init(schema: ContractSchema, attributesType: String? = nil) {
        self.schema = schema
        self.attributesType = attributesType ?? schema.attributesType
        self.compiled = nil
    }

    /// A compiled contract with its field map (for ranges, the correlation key and the Android map).
    public init(_ compiled: LiveActivityContract, schema: ContractSchema) {
        self.schema = schema
        self.attributesType = compiled.attributesType
        self.compiled = compiled
    }

    /// `DeliveryAttributes`, built in.
    public static let delivery = DoctorContract(LiveActivityContract.delivery, schema: .delivery)

    /// The contracts known by name (`--contract NAME`).
    public static let builtIn: [String: DoctorContract] = [DeliveryAttributes.typeName: .delivery]

    public static func == (a: DoctorContract, b: DoctorContract) -> Bool {
        a.attributesType == b.attributesType && a.schema == b.schema
            && a.compiled?.attributesType == b.compiled?.attributesType
    }

    /// Reads a built-in name (`"DeliveryAttributes"`) or a field map object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self) {
            guard let known = DoctorContract.builtIn[name] else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription:
                        "no built-in contract '\(name)' (built in: \(DoctorContract.builtIn.keys.sorted().joined(separator: ", "))); give a field map object instead"
                )
            }
            self = known
        } else {
            self.init(schema: try container.decode(ContractSchema.self))
        }
    }

    /// Writes the built-in name, or the field map.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let name = attributesType, let known = DoctorContract.builtIn[name], known == self {
            try container.encode(name)
        } else {
            var schema = self.schema
            schema.attributesType = schema.attributesType ?? attributesType
            try container.encode(schema)
        }
    }
}
