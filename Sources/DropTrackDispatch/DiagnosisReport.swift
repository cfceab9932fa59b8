import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire

/// What the server knows of why a device might not show an activity's latest state (see
/// `ActivityRegistry.diagnose`): the activity's newest version, the findings, and how far each
/// device has got.
public struct Diagnosis: Sendable, Hashable {
    /// One reason a device may not show the latest state, with what to do about it.
    public struct Finding: Sendable, Hashable {
        /// The trap's id in the catalog (`DT-041`), or nil for what has no entry (a failed send).
        public var trap: String?
        public var severity: LintFinding.Severity
        public var message: String
        public var fix: String
        /// The token fingerprint (or `channel:<id>`) it concerns, when it concerns one.
        public var device: String?

        public init(
            trap: String?, severity: LintFinding.Severity, message: String, fix: String, device: String? = nil
        ) {
            self.trap = trap
            self.severity = severity
            self.message = message
            self.fix = fix
            self.device = device
        }
    }

    /// A token of the activity or its user, and the newest version its device accepted.
    public struct Device: Sendable, Hashable {
        public var fingerprint: Fingerprint
        public var kind: TokenKind
        public var valid: Bool
        /// The newest version a send to it was accepted for; nil when none was.
        public var lastAcceptedVersion: Int64?
        /// Valid and has the newest version (a push-to-start token: its start was accepted).
        public var upToDate: Bool

        public init(fingerprint: Fingerprint, kind: TokenKind, valid: Bool, lastAcceptedVersion: Int64?, upToDate: Bool)
        {
            self.fingerprint = fingerprint
            self.kind = kind
            self.valid = valid
            self.lastAcceptedVersion = lastAcceptedVersion
            self.upToDate = upToDate
        }
    }

    public var activityId: String
    public var state: ActivityState
    public var version: Int64
    public var timestamp: Int64
    public var findings: [Finding]
    /// Update tokens, then Android devices, then push-to-start tokens.
    public var devices: [Device]

    public init(
        activityId: String, state: ActivityState, version: Int64, timestamp: Int64, findings: [Finding],
        devices: [Device]
    ) {
        self.activityId = activityId
        self.state = state
        self.version = version
        self.timestamp = timestamp
        self.findings = findings
        self.devices = devices
    }
}
