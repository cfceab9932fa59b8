import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// What the doctor knows beyond the push itself: the token record, the device, the activity, the
/// send history, the server's configuration, the broadcast channel and (to explain a send
/// afterwards) the provider's answer. Every part is optional; a rule that needs a fact it is not
/// given stays silent rather than guess.
///
/// It is Codable from the JSON document `droptrack doctor --context FILE` reads (keys as the
/// properties below; docs/how-to/troubleshooting.md, "The doctor", lists them). ``decode(from:)`` refuses unknown keys and
/// names the nearest known one, because a misspelled fact would silently switch a check off.
public struct DoctorContext: Sendable, Codable, Equatable {
    /// Which client library renders the activity.
    public enum Client: String, Sendable, Codable, CaseIterable {
        /// A Swift `ActivityAttributes` type decoding the content-state itself.
        case activitykit
        /// expo-widgets: the content-state is `{name, props: "<JSON>"}`, the type `LiveActivityAttributes`.
        case expoWidgets = "expo-widgets"
    }

    /// The token record the push goes to.
    public struct Token: Sendable, Codable, Equatable {
        /// What a token is for.
        public enum Kind: String, Sendable, Codable, CaseIterable {
            /// The app's ordinary APNs device token: alerts only.
            case apnsDevice = "apns-device"
            /// An iOS 17.2+ push-to-start token, one per attributes type.
            case pushToStart = "push-to-start"
            /// The update token of one activity on one device.
            case perActivity = "per-activity"
            /// An FCM registration token.
            case fcm

            /// Also accepts the store's names (`push_to_start`, `activity`) and `device`.
            public init(from decoder: any Decoder) throws {
                let text = try decoder.singleValueContainer().decode(String.self)
                let aliases: [String: Kind] = [
                    "device": .apnsDevice, "push_to_start": .pushToStart, "pushToStart": .pushToStart,
                    "activity": .perActivity, "update": .perActivity, "per_activity": .perActivity,
                ]
                guard let kind = Kind(rawValue: text) ?? aliases[text] else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: decoder.codingPath,
                            debugDescription:
                                "'\(text)' is not a token kind: use \(Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                        ))
                }
                self = kind
            }
        }

        /// What the token is for.
        public var kind: Kind?
        /// The APNs environment it was minted in; nil (or `"unknown"` in JSON) when not known.
        public var environment: APNsEnvironment?
        /// The bundle id of the app that registered it.
        public var bundleId: String?
        /// The Firebase project of an FCM token.
        public var firebaseProject: String?
        /// The Android package of an FCM token.
        public var package: String?
        /// For push-to-start tokens: the attributes type it starts.
        public var attributesType: String?
        /// For per-activity tokens: the activity it belongs to.
        public var activityId: String?
        /// The backend id the app echoed with the token (the contract's correlation key).
        public var correlationId: String?
        /// The contract version (or hash) of the app build that minted it.
        public var contractVersion: String?
        /// The device it lives on.
        public var deviceId: String?
        /// The user, when the registration named one.
        public var userId: String?
        /// Unix seconds: registered (or registered again).
        public var registeredAt: Int64?
        /// Unix seconds: last reported or used successfully.
        public var lastSeenAt: Int64?
        /// The fingerprint of the token that replaced this one, when it was rotated.
        public var supersededBy: String?
        /// Set when the token was marked dead.
        public var dead: Dead?
        /// Sends to it that succeeded.
        public var successCount: Int?

        /// Why and when a token was marked dead.
        public struct Dead: Sendable, Codable, Equatable {
            /// The provider's reason (`Unregistered`, `ExpiredToken`, `BadDeviceToken`, `UNREGISTERED`, …).
            public var reason: String
            /// Unix seconds.
            public var at: Int64?

            /// Creates the record.
            public init(reason: String, at: Int64? = nil) {
                self.reason = reason
                self.at = at
            }
        }

        /// Creates a token record.
        public init(
            kind: Kind? = nil, environment: APNsEnvironment? = nil, bundleId: String? = nil,
            firebaseProject: String? = nil, package: String? = nil, attributesType: String? = nil,
            activityId: String? = nil, correlationId: String? = nil, contractVersion: String? = nil,
            deviceId: String? = nil, userId: String? = nil, registeredAt: Int64? = nil, lastSeenAt: Int64? = nil,
            supersededBy: String? = nil, dead: Dead? = nil, successCount: Int? = nil
        ) {
            self.kind = kind
            self.environment = environment
            self.bundleId = bundleId
            self.firebaseProject = firebaseProject
            self.package = package
            self.attributesType = attributesType
            self.activityId = activityId
            self.correlationId = correlationId
            self.contractVersion = contractVersion
            self.deviceId = deviceId
            self.userId = userId
            self.registeredAt = registeredAt
            self.lastSeenAt = lastSeenAt
            self.supersededBy = supersededBy
            self.dead = dead
            self.successCount = successCount
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case kind, environment, bundleId, firebaseProject, package, attributesType, activityId, correlationId
            case contractVersion, deviceId, userId, registeredAt, lastSeenAt, supersededBy, dead, successCount
        }
    }

    /// What the app reports about the device it runs on: the model's facts, as tokens carry them.
    public typealias Device = DeviceFacts

    /// The activity the push belongs to.
    public struct Activity: Sendable, Codable, Equatable {
        /// Where an activity is in its life.
        public enum State: String, Sendable, Codable, CaseIterable {
            /// Created; the start has not gone out.
            case pendingStart = "pending-start"
            /// Started; the per-activity token has not arrived.
            case pendingToken = "pending-token"
            case active, stale, ended, dismissed

            /// Also accepts the store's `pending`.
            public init(from decoder: any Decoder) throws {
                let text = try decoder.singleValueContainer().decode(String.self)
                let aliases: [String: State] = [
                    "pending": .pendingStart, "pendingStart": .pendingStart, "pendingToken": .pendingToken,
                ]
                guard let state = State(rawValue: text) ?? aliases[text] else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: decoder.codingPath,
                            debugDescription:
                                "'\(text)' is not an activity state: use \(State.allCases.map(\.rawValue).joined(separator: ", "))"
                        ))
                }
                self = state
            }
        }

        /// The server's activity id.
        public var id: String?
        /// Where it is in its life.
        public var state: State?
        /// Unix seconds: the activity started on the device.
        public var startedAt: Int64?
        /// Unix seconds: it ended.
        public var endedAt: Int64?
        /// Unix seconds: APNs accepted the start.
        public var startAcceptedAt: Int64?
        /// Unix seconds: the app reported the activity running.
        public var startConfirmedAt: Int64?
        /// Unix seconds: the per-activity token arrived.
        public var tokenReceivedAt: Int64?
        /// The newest `timestamp` (APNs) already sent for the activity.
        public var lastTimestampSent: Int64?
        /// The newest timestamp of an update the app made locally.
        public var lastLocalTimestamp: Int64?
        /// The newest `sequence` already sent in an Android data map.
        public var lastSequence: Int64?
        /// The body last sent (`{"aps": …}`), to spot identical and partial updates.
        public var lastSent: JSONValue?
        /// The domain object is finished (delivered, cancelled).
        public var domainTerminal: Bool?
        /// Unix seconds: since when it is finished.
        public var terminalSince: Int64?
        /// The static attributes sent with the start.
        public var staticAttributes: JSONValue?
        /// The current domain values of the fields that feed static attributes.
        public var domainAttributes: JSONValue?
        /// The caller asked for the ended card to leave at once.
        public var immediateDismissal: Bool?
        /// This change is one the user must notice (an alert is wanted).
        public var significant: Bool?
        /// Devices the activity runs on.
        public var deviceCount: Int?
        /// Live per-activity tokens bound to it.
        public var liveTokenCount: Int?

        /// Creates activity facts.
        public init(
            id: String? = nil, state: State? = nil, startedAt: Int64? = nil, endedAt: Int64? = nil,
            startAcceptedAt: Int64? = nil, startConfirmedAt: Int64? = nil, tokenReceivedAt: Int64? = nil,
            lastTimestampSent: Int64? = nil, lastLocalTimestamp: Int64? = nil, lastSequence: Int64? = nil,
            lastSent: JSONValue? = nil, domainTerminal: Bool? = nil, terminalSince: Int64? = nil,
            staticAttributes: JSONValue? = nil, domainAttributes: JSONValue? = nil, immediateDismissal: Bool? = nil,
            significant: Bool? = nil, deviceCount: Int? = nil, liveTokenCount: Int? = nil
        ) {
            self.id = id
            self.state = state
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.startAcceptedAt = startAcceptedAt
            self.startConfirmedAt = startConfirmedAt
            self.tokenReceivedAt = tokenReceivedAt
            self.lastTimestampSent = lastTimestampSent
            self.lastLocalTimestamp = lastLocalTimestamp
            self.lastSequence = lastSequence
            self.lastSent = lastSent
            self.domainTerminal = domainTerminal
            self.terminalSince = terminalSince
            self.staticAttributes = staticAttributes
            self.domainAttributes = domainAttributes
            self.immediateDismissal = immediateDismissal
            self.significant = significant
            self.deviceCount = deviceCount
            self.liveTokenCount = liveTokenCount
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, state, startedAt, endedAt, startAcceptedAt, startConfirmedAt, tokenReceivedAt
            case lastTimestampSent, lastLocalTimestamp, lastSequence, lastSent, domainTerminal, terminalSince
            case staticAttributes, domainAttributes, immediateDismissal, significant, deviceCount, liveTokenCount
        }

        /// True once the device stopped listening.
        public var isOver: Bool { state == .ended || state == .dismissed }
    }

    /// Counts from the send log.
    public struct History: Sendable, Codable, Equatable {
        /// Priority-10 sends to this activity and device in the last hour.
        public var priority10LastHour: Int?
        /// Starts for this activity and device that got a 2xx.
        public var startsAccepted: Int?
        /// Unix seconds: the last update of this activity that carried an alert.
        public var lastAlertAt: Int64?
        /// This send retries the one with this `apns-id`.
        public var retryOfApnsId: String?
        /// Attempts of this send so far.
        public var retryCount: Int?
        /// Accepted send jobs with no recorded outcome (neither a status nor "retries exhausted").
        public var sendsWithoutOutcome: Int?
        /// The share of 4xx answers on the connection (0 to 1), 410s excluded.
        public var connectionErrorRate: Double?
        /// APNs connections opened in the last minute.
        public var connectionsOpenedLastMinute: Int?
        /// Provider tokens minted in the last 20 minutes for one connection.
        public var jwtMintsLast20Minutes: Int?
        /// Seconds from accepting the change to sending it.
        public var lagSeconds: Double?
        /// Messages sent to this device in the last minute (FCM allows 240).
        public var sendsToDeviceLastMinute: Int?
        /// Messages sent to this device in the last hour (FCM allows 5,000).
        public var sendsToDeviceLastHour: Int?

        /// Creates history counts.
        public init(
            priority10LastHour: Int? = nil, startsAccepted: Int? = nil, lastAlertAt: Int64? = nil,
            retryOfApnsId: String? = nil, retryCount: Int? = nil, sendsWithoutOutcome: Int? = nil,
            connectionErrorRate: Double? = nil, connectionsOpenedLastMinute: Int? = nil,
            jwtMintsLast20Minutes: Int? = nil, lagSeconds: Double? = nil, sendsToDeviceLastMinute: Int? = nil,
            sendsToDeviceLastHour: Int? = nil
        ) {
            self.priority10LastHour = priority10LastHour
            self.startsAccepted = startsAccepted
            self.lastAlertAt = lastAlertAt
            self.retryOfApnsId = retryOfApnsId
            self.retryCount = retryCount
            self.sendsWithoutOutcome = sendsWithoutOutcome
            self.connectionErrorRate = connectionErrorRate
            self.connectionsOpenedLastMinute = connectionsOpenedLastMinute
            self.jwtMintsLast20Minutes = jwtMintsLast20Minutes
            self.lagSeconds = lagSeconds
            self.sendsToDeviceLastMinute = sendsToDeviceLastMinute
            self.sendsToDeviceLastHour = sendsToDeviceLastHour
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case priority10LastHour, startsAccepted, lastAlertAt, retryOfApnsId, retryCount, sendsWithoutOutcome
            case connectionErrorRate, connectionsOpenedLastMinute, jwtMintsLast20Minutes, lagSeconds
            case sendsToDeviceLastMinute, sendsToDeviceLastHour
        }
    }

    /// Unix seconds at the moment of sending; rules that compare against now are skipped without it.
    public var now: Int64?
    /// The client library rendering the activity.
    public var client: Client?
    /// The contract for this push's activity (the token's attributes type).
    public var contract: DoctorContract?
    /// Every contract the app registered, by `attributes-type` (for starts).
    public var contracts: [String: DoctorContract]?
    /// The token record.
    public var token: Token?
    /// The device.
    public var device: Device?
    /// The activity.
    public var activity: Activity?
    /// The send log.
    public var history: History?
    /// The sender's configuration.
    public var config: Configuration?
    /// The broadcast channel.
    public var channel: Channel?
    /// The provider's answer, when explaining a send afterwards.
    public var response: Response?

    /// Creates a context; every part is optional.
    public init(
        now: Int64? = nil, client: Client? = nil, contract: DoctorContract? = nil,
        contracts: [String: DoctorContract]? = nil, token: Token? = nil, device: Device? = nil,
        activity: Activity? = nil, history: History? = nil, config: Configuration? = nil, channel: Channel? = nil,
        response: Response? = nil
    ) {
        self.now = now
        self.client = client
        self.contract = contract
        self.contracts = contracts
        self.token = token
        self.device = device
        self.activity = activity
        self.history = history
        self.config = config
        self.channel = channel
        self.response = response
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case now, client, contract, contracts, token, device, activity, history, config, channel, response
    }
}
