import DropTrackLive
import Foundation

/// `configure`'s arguments, checked: where the sync registers tokens, and as whom.
struct SyncSettings: Sendable, Equatable {
    var serverURL: URL
    var userID: String
    var deviceID: String
    var environment: DropTrackLive.APNsEnvironment
    /// Start the hidden placeholder at launch on iOS 17.x, so ActivityKit gives the push-to-start token.
    var pushToStartPlaceholder: Bool = false

    /// - Parameters:
    ///   - deviceID: nil makes one and keeps it in `defaults` (a stable id for this install).
    ///   - apnsEnvironment: `sandbox`, `production`, or nil for what this build's signing says.
    ///   - pushToStartPlaceholder: the iOS 17.x workaround (`PlaceholderStart`); nil is off.
    init(
        serverURL: String, userID: String, deviceID: String?, apnsEnvironment: String?,
        pushToStartPlaceholder: Bool? = nil, defaults: UserDefaults = .standard
    ) throws {
        guard let url = URL(string: serverURL), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw DropTrackExpoError(
                field: "serverUrl", "'serverUrl' must be the DropTrack server's URL, e.g. https://push.example.com")
        }
        guard !userID.isEmpty else {
            throw DropTrackExpoError(
                field: "userId", "'userId' must name the signed-in user (the device credential is for this user)")
        }
        switch apnsEnvironment {
        case nil: environment = .ofThisBuild
        case let name?:
            guard let named = DropTrackLive.APNsEnvironment(rawValue: name) else {
                throw DropTrackExpoError(
                    field: "apnsEnvironment",
                    "'apnsEnvironment' must be 'sandbox' or 'production', or left out to follow the build's signing")
            }
            environment = named
        }
        self.serverURL = url
        self.pushToStartPlaceholder = pushToStartPlaceholder ?? false
        self.userID = userID
        self.deviceID = deviceID ?? Self.installationID(defaults)
        guard !self.deviceID.isEmpty else {
            throw DropTrackExpoError(
                field: "deviceId", "'deviceId' must not be empty; leave it out to use one per install")
        }
    }

    /// One id per install, made at first use.
    static func installationID(_ defaults: UserDefaults) -> String {
        let key = "DropTrack.deviceId"
        if let kept = defaults.string(forKey: key) { return kept }
        let made = "ios-" + UUID().uuidString.lowercased()
        defaults.set(made, forKey: key)
        return made
    }

    /// The ledger's folder: one per server, user and device, so a token the ledger knows as registered
    /// for one user is registered again for the next user who signs in on this phone.
    func ledgerDirectory(under base: URL) -> URL {
        let key = "\(serverURL.host ?? "")-\(serverURL.port.map(String.init) ?? "")-\(userID)-\(deviceID)"
        let safe = String(key.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
        return base.appendingPathComponent("DropTrack", isDirectory: true).appendingPathComponent(
            safe, isDirectory: true)
    }
}
