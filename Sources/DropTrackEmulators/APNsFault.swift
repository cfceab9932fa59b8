import Foundation

/// A fault the APNs emulator injects: a wire answer, a connection event, or a delay. Applies to
/// one token, to every n-th request, or to everything, optionally a limited number of times.
public struct APNsFault: Codable, Sendable, Hashable {
    /// What goes wrong.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// 410 Unregistered with a timestamp: the token is dead.
        case unregistered
        /// 410 ExpiredToken.
        case expiredToken
        /// 400 BadDeviceToken.
        case badDeviceToken
        /// 429 TooManyRequests, with `Retry-After` when `retryAfterSeconds` is set.
        case tooManyRequests
        /// 500 InternalServerError.
        case internalServerError
        /// 503 ServiceUnavailable.
        case serviceUnavailable
        /// 503 Shutdown.
        case shutdown
        /// GOAWAY `{"reason":"Shutdown"}`: this request and later ones on the connection are refused.
        case goAway
        /// The TCP connection is dropped with the request unanswered.
        case connectionReset
        /// The real answer, `delayMilliseconds` late.
        case delay
    }

    /// What goes wrong.
    public var kind: Kind
    /// Only requests to this device token (hex), when set.
    public var token: String?
    /// Only every n-th matching request, when set (1 = every one).
    public var everyNth: Int?
    /// `Retry-After` seconds for 429/503.
    public var retryAfterSeconds: Int?
    /// For `delay`.
    public var delayMilliseconds: Int?
    /// How many times the fault fires before it is used up; nil = forever.
    public var times: Int?

    /// Creates a fault.
    public init(
        kind: Kind, token: String? = nil, everyNth: Int? = nil, retryAfterSeconds: Int? = nil,
        delayMilliseconds: Int? = nil, times: Int? = nil
    ) {
        self.kind = kind
        self.token = token
        self.everyNth = everyNth
        self.retryAfterSeconds = retryAfterSeconds
        self.delayMilliseconds = delayMilliseconds
        self.times = times
    }
}

/// The `--faults FILE` document: faults plus connection settings.
public struct APNsFaultScript: Codable, Sendable {
    /// The faults, checked in order; the first that fires wins.
    public var faults: [APNsFault]
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` to advertise.
    public var maxConcurrentStreams: UInt32?
    /// Advertise 1 stream until the connection's first valid provider token, as APNs does.
    public var oneStreamUntilValidToken: Bool?

    /// Creates a script.
    public init(faults: [APNsFault] = [], maxConcurrentStreams: UInt32? = nil, oneStreamUntilValidToken: Bool? = nil) {
        self.faults = faults
        self.maxConcurrentStreams = maxConcurrentStreams
        self.oneStreamUntilValidToken = oneStreamUntilValidToken
    }

    /// Reads a script file, naming the file and the problem in errors.
    public static func load(path: String) throws -> APNsFaultScript {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmulatorError("cannot read faults file \(path)")
        }
        do {
            return try JSONDecoder().decode(APNsFaultScript.self, from: data)
        } catch let error as DecodingError {
            throw EmulatorError(
                "faults file \(path): \(EmulatorError.describe(error)); kinds are \(APNsFault.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
    }
}

/// An emulator set-up problem, in words.
public struct EmulatorError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and how to fix it.
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "missing key '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "'\(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))': \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }
}
