/// A device's push token: an APNs device, update or push-to-start token, or an FCM registration
/// token. Whoever holds one can push to that phone, so it is a secret: interpolating, printing,
/// `String(reflecting:)` and `dump` all show only its fingerprint (`token:` and 16 hex digits, the
/// same fingerprint logs and events use). The raw token is read through `wireValue`, only where it
/// goes into a request.
public struct DeviceToken: Hashable, Sendable {
    private let raw: String

    /// Wraps a token as received from a device or a registration.
    public init(_ raw: String) { self.raw = raw }

    /// The token itself, for the one place it belongs: the request path or body sent to APNs or FCM.
    public var wireValue: String { raw }

    /// The token's fingerprint, safe to log.
    public var fingerprint: Fingerprint { Fingerprint(of: raw) }

    /// True for the empty string (a request then fails validation, naming the field).
    public var isEmpty: Bool { raw.isEmpty }
}

extension DeviceToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `token:` and the fingerprint; never the token.
    public var description: String { "token:\(fingerprint.value)" }

    /// The same as `description`, so `String(reflecting:)` and debuggers do not show the token either.
    public var debugDescription: String { description }

    /// `dump` and `Mirror` see only the fingerprint, not the stored token.
    public var customMirror: Mirror {
        Mirror(self, children: ["fingerprint": fingerprint.value], displayStyle: .struct)
    }
}
