import Foundation

/// What goes wrong in an APNs fault.
public enum APNsFaultKind: String, Codable, Sendable, CaseIterable {
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
    /// GOAWAY `{"reason":"Shutdown"}` naming the highest stream already handled: this request, and
    /// every later one the emulator has not handled yet, is refused (sent again elsewhere, never twice).
    case goAway
    /// The TCP connection is dropped with the request unanswered.
    case connectionReset
    /// The real answer, `delayMilliseconds` late.
    case delay
}

/// A fault the APNs emulator injects.
public typealias APNsFault = FaultRule<APNsFaultKind>

/// A fault an emulator injects: a wire answer, a connection event, or a delay. Applies to one
/// token, to every n-th request, or to everything, optionally a limited number of times.
public struct FaultRule<Kind: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// What goes wrong.
    public var kind: Kind
    /// Only requests to this device or registration token, when set.
    public var token: String?
    /// Only every n-th matching request, when set (1 = every one).
    public var everyNth: Int?
    /// `Retry-After` seconds, for answers that carry it.
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

/// The faults in force and how often each has matched; the first that fires wins.
struct FaultBook<Kind: Codable & Sendable & Hashable>: Sendable {
    private(set) var rules: [FaultRule<Kind>] = []
    private var matches: [Int] = []

    init(_ rules: [FaultRule<Kind>] = []) {
        self.rules = rules
        matches = Array(repeating: 0, count: rules.count)
    }

    /// The fault that fires for a request to `token` (nil for requests without one), if any.
    mutating func fire(token: String?) -> FaultRule<Kind>? {
        for index in rules.indices {
            let rule = rules[index]
            if let wanted = rule.token, wanted.lowercased() != token?.lowercased() { continue }
            if let times = rule.times, times <= 0 { continue }
            matches[index] += 1
            if let nth = rule.everyNth, nth > 1, matches[index] % nth != 0 { continue }
            if let times = rule.times { rules[index].times = times - 1 }
            return rule
        }
        return nil
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
        try loadScript(path: path, kinds: APNsFaultKind.allCases.map(\.rawValue))
    }
}

/// Reads a fault-script JSON file, naming the file, the key at fault and the valid kinds.
func loadScript<Script: Decodable>(path: String, kinds: [String]) throws -> Script {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw EmulatorError("cannot read faults file \(path)")
    }
    do {
        return try JSONDecoder().decode(Script.self, from: data)
    } catch let error as DecodingError {
        throw EmulatorError(
            "faults file \(path): \(EmulatorError.describe(error)); kinds are \(kinds.joined(separator: ", "))")
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
