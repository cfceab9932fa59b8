import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 5: environments and credentials (DT-059 … DT-070). The provider token in the
/// `authorization` header is read (its header, claims and signature length) but never echoed.
extension Doctor {
    static let credentialRules: [DoctorRule] = [
        DoctorRule("DT-059", "Token environment differs from the APNs host's environment") { e, r in
            guard e.isAPNs, !e.embedded, let tokenEnvironment = e.token?.environment,
                let hostEnvironment = e.endpointEnvironment, tokenEnvironment != hostEnvironment
            else { return }
            r.error(
                "token.environment",
                "the token is a \(tokenEnvironment.rawValue) token but the push goes to the \(hostEnvironment.rawValue) host: APNs answers BadDeviceToken, which is not a dead token",
                fix: "register every token with its environment, and route each send by it")
        },

        DoctorRule("DT-060", "Certificate (.p12) authentication used for Live Activity pushes") { e, r in
            guard e.isAPNs, e.isLiveActivity, !e.embedded,
                e.config?.authMode == .certificate || e.push.usesClientCertificate
            else { return }
            r.error(
                e.push.usesClientCertificate ? "--cert" : "config.authMode",
                "certificate authentication is not supported for Live Activity pushes; APNs answers TopicDisallowed",
                fix: "create an APNs auth key (.p8) and authenticate with an ES256 JWT")
        },

        DoctorRule("DT-061", "Auth key restricted to the other environment, or keys mixed on one connection") { e, r in
            guard e.isAPNs, !e.embedded else { return }
            if let keyEnvironment = e.config?.keyEnvironment, let host = e.endpointEnvironment, keyEnvironment != host {
                r.error(
                    "config.keyEnvironment",
                    "the key is restricted to \(keyEnvironment.rawValue) but the push goes to \(host.rawValue) (403 BadEnvironmentKeyIdInToken)",
                    fix: "choose credentials per (bundle id, environment)")
            }
            if let topics = e.config?.keyTopics, !topics.isEmpty, let bundle = e.bundleID, !topics.contains(bundle) {
                r.error(
                    "config.keyTopics", "the key covers \(topics.joined(separator: ", ")), not \(bundle)",
                    fix: "use a key whose topics include the app, or a team key")
            }
            if let reason = e.response?.reason,
                ["BadEnvironmentKeyIdInToken", "UnrelatedKeyIdInToken"].contains(reason)
            {
                r.error(
                    "response.reason",
                    "\(reason): the key does not fit this environment or this connection (a connection keeps the key of its first push)",
                    fix: "open one connection per (team, key, environment)")
            }
        },

        DoctorRule("DT-062", "Token minted by a different app than the configured topic") { e, r in
            if e.isAPNs, !e.embedded, let tokenBundle = e.token?.bundleId, let bundle = e.bundleID,
                tokenBundle != bundle
            {
                r.error(
                    "token.bundleId",
                    "the token was minted by \(tokenBundle), but the push is for \(bundle) (DeviceTokenNotForTopic)",
                    fix: "register every token with its bundle id and pick credentials by it")
            }
            if e.response?.reason == "TopicMismatch" {
                r.error(
                    "response.reason", "TopicMismatch: the channel belongs to another app than the one in the path",
                    fix: "broadcast to channels under the bundle id that created them")
            }
        },

        DoctorRule("DT-063", "Credentials or bundle id missing at runtime") { e, r in
            guard e.isAPNs, !e.embedded else { return }
            // A server that says it signs with a key adds the header when it sends; a pasted request
            // with no word on the auth mode is what APNs would see.
            if e.header("authorization") == nil, e.config?.authMode == nil, !e.push.usesClientCertificate,
                e.isDeviceRoute || e.isBroadcast || e.isChannelManagement
            {
                r.warning(
                    "authorization",
                    "no authorization header: APNs answers 403 MissingProviderToken (unless the connection uses a certificate, which Live Activities do not support)",
                    fix: "send authorization: bearer <ES256 JWT>, and check the credentials at startup")
            }
            for (name, value) in [("config.keyId", e.config?.keyId), ("config.teamId", e.config?.teamId)] {
                if let value, value.count != 10 {
                    r.error(
                        name, "\(name.dropFirst(7)) must be 10 characters, not \(value.count)",
                        fix: "copy the id from the developer account")
                }
            }
            if let variable = ProviderToken.unexpandedVariable(e.header("authorization")) {
                r.error(
                    "authorization",
                    "the provider token is the literal text \(variable): the shell variable was never expanded, so the credentials never reached this process",
                    fix:
                        "expand the variable (double quotes, not single) or read the key from the service's configuration, and check it at startup"
                )
            }
            if let jwt = ProviderToken(e.header("authorization")) {
                if let kid = jwt.header["kid"]?.stringValue, kid.count != 10 {
                    r.error(
                        "authorization", "the provider token's kid is not a 10-character key id",
                        fix: "put the key id in kid")
                }
                if let iss = jwt.claims["iss"]?.stringValue, iss.count != 10 {
                    r.error(
                        "authorization", "the provider token's iss is not a 10-character team id",
                        fix: "put the team id in iss")
                }
            }
            if e.response?.reason == "MissingProviderToken" {
                r.error(
                    "response.reason", "MissingProviderToken: the request reached APNs without a provider token",
                    fix: "validate the credentials at boot and refuse to start without them")
            }
        },

        DoctorRule("DT-064", "Provider JWT rejected (invalid, expired, or key revoked)") { e, r in
            guard e.isAPNs, !e.embedded else { return }
            // An unexpanded variable is missing credentials (DT-063), not a token APNs rejected.
            if let authorization = e.header("authorization"), ProviderToken.unexpandedVariable(authorization) == nil {
                guard let jwt = ProviderToken(authorization) else {
                    r.error(
                        "authorization",
                        "the authorization header is not \"bearer <header.claims.signature>\" (403 InvalidProviderToken)",
                        fix: "send authorization: bearer <ES256 JWT>")
                    return
                }
                if jwt.header["alg"]?.stringValue != "ES256" {
                    r.error(
                        "authorization",
                        "the provider token's alg is \(jwt.header["alg"]?.stringValue ?? "missing"), not ES256",
                        fix: "sign provider tokens with ES256")
                }
                if let iat = jwt.claims["iat"]?.numberValue {
                    if let now = e.now {
                        if iat < now - 3600 {
                            r.error(
                                "authorization",
                                "the provider token was issued \(Int(saturating: (now - iat) / 60)) min ago; after an hour APNs answers 403 ExpiredProviderToken",
                                fix: "mint a new provider token every 20 to 60 minutes (for example at 50)")
                        } else if iat > now + 300 {
                            r.warning(
                                "authorization",
                                "the provider token's iat is \(Int(saturating: iat - now)) s in the future: the clock is off",
                                fix: "fix the clock (NTP)")
                        }
                    }
                } else {
                    r.error(
                        "authorization", "the provider token has no iat claim",
                        fix: "put the issue time (Unix seconds) in iat")
                }
            }
            if let skew = e.config?.clockSkewSeconds, abs(skew) > 300 {
                r.warning(
                    "config.clockSkewSeconds",
                    "the local clock is \(Int(saturating: skew)) s off the provider's (its Date header), so provider tokens look expired or not yet valid",
                    fix: "fix the clock (NTP)")
            }
            if let reason = e.response?.reason,
                ["InvalidProviderToken", "ExpiredProviderToken", "Forbidden"].contains(reason)
            {
                r.error(
                    "response.reason", "\(reason): APNs rejected the provider token",
                    fix: reason == "ExpiredProviderToken"
                        ? "mint a new token every 20 to 60 minutes and keep the clock right"
                        : "check that key id, team id and key belong together, and that the key is not revoked")
            }
        },

        DoctorRule("DT-065", "ES256 signature in the wrong encoding (DER instead of raw r‖s)") { e, r in
            guard e.isAPNs, !e.embedded, let jwt = ProviderToken(e.header("authorization")),
                let signature = jwt.signature, signature.count != 64
            else { return }
            if signature.first == 0x30 && (68...72).contains(signature.count) {
                r.warning(
                    "authorization",
                    "the provider token's signature is a \(signature.count)-byte DER sequence; JWS wants the 64-byte raw r‖s form",
                    fix: "emit the raw r‖s signature (IEEE P1363), not DER")
            } else {
                r.error(
                    "authorization",
                    "the provider token's signature is \(signature.count) bytes; an ES256 signature is 64",
                    fix: "sign with ES256 and emit the raw 64-byte r‖s signature")
            }
        },

        DoctorRule("DT-066", "JWT minted again too often") { e, r in
            guard !e.isFCM else { return }
            if let mints = e.history?.jwtMintsLast20Minutes, mints > 1 {
                r.warning(
                    "history.jwtMintsLast20Minutes",
                    "\(mints) provider tokens in 20 minutes on one connection (429 TooManyProviderTokenUpdates)",
                    fix: "cache one provider token per (key, team) and reuse it for 20 to 55 minutes")
            }
            if let refresh = e.config?.jwtRefreshSeconds, refresh < 1200 {
                r.warning(
                    "config.jwtRefreshSeconds",
                    "provider tokens are minted every \(Int(saturating: refresh)) s; APNs wants at least 20 minutes between",
                    fix: "refresh the provider token every 20 to 55 minutes")
            }
            if e.response?.reason == "TooManyProviderTokenUpdates" {
                r.error(
                    "response.reason",
                    "TooManyProviderTokenUpdates: the provider token changed too often on this connection",
                    fix: "cache one provider token per (key, team) and reuse it for 20 to 55 minutes")
            }
        },

        DoctorRule("DT-067", "Broadcast capability not enabled, or removed") { e, r in
            guard e.isAPNs else { return }
            if e.isBroadcast || e.isChannelManagement || e.aps?["input-push-channel"] != nil,
                e.config?.broadcastEnabled == false
            {
                r.error(
                    "config.broadcastEnabled", "the broadcast capability is off for this app (400 FeatureNotEnabled)",
                    fix: "enable broadcast for the App ID at developer.apple.com, then recreate the channels")
            }
            if e.response?.reason == "FeatureNotEnabled" {
                r.error(
                    "response.reason", "FeatureNotEnabled: broadcast is not enabled for the app (or for the key)",
                    fix: "enable broadcast for the App ID at developer.apple.com, then recreate the channels")
            }
        },

        DoctorRule("DT-068", "Channel used in the wrong environment") { e, r in
            guard e.isAPNs else { return }
            if let channelEnvironment = e.context.channel?.environment, let host = e.endpointEnvironment,
                channelEnvironment != host, e.isBroadcast || e.isChannelManagement
            {
                r.error(
                    "channel.environment",
                    "the channel was created in \(channelEnvironment.rawValue) but the request goes to \(host.rawValue) (400 ChannelNotRegistered)",
                    fix: "store the environment with every channel and route by it")
            }
            if e.response?.reason == "ChannelNotRegistered" {
                r.warning(
                    "response.reason",
                    "ChannelNotRegistered: the channel is from the other environment, was deleted, or the broadcast capability was removed",
                    fix:
                        "check the channel's environment; if most channels answer this, re-enable broadcast and recreate them"
                )
            }
        },

        DoctorRule("DT-069", "TLS trust store or an intercepting proxy breaks the APNs connection") { e, r in
            guard !e.isFCM else { return }
            if e.config?.tlsVerified == false {
                r.error(
                    "config.tlsVerified",
                    "the TLS handshake with APNs did not verify (old CA bundle, or a proxy in between)",
                    fix: "ship a current CA bundle (USERTrust RSA root) and exempt APNs traffic from interception")
            }
            if let reason = e.response?.reason, ["BadCertificate", "BadCertificateEnvironment"].contains(reason),
                e.config?.authMode != .certificate
            {
                r.error(
                    "response.reason",
                    "\(reason) under JWT authentication: something between the server and APNs rewrites the TLS connection",
                    fix: "exempt APNs traffic from TLS interception")
            }
        },

        DoctorRule("DT-070", "Testing where Live Activity pushes can't work", .risk) { e, r in
            guard !e.isFCM, e.device?.isSimulator == true || e.device?.isDevClient == true else { return }
            r.warning(
                e.device?.isSimulator == true ? "device.isSimulator" : "device.isDevClient",
                "the token comes from a \(e.device?.isSimulator == true ? "simulator" : "development client"): a push that does nothing there may work on a device",
                fix: "test Live Activity pushes on real-device builds, and against DropTrack's emulator in CI")
        },
    ]
}

/// The provider token in an `authorization: bearer …` header, decoded but never kept as text.
struct ProviderToken {
    let header: JSONValue
    let claims: JSONValue
    let signature: [UInt8]?

    init?(_ authorization: String?) {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let segments = parts[1].trimmingCharacters(in: .whitespaces).split(
            separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let header = ProviderToken.json(segments[0]),
            let claims = ProviderToken.json(segments[1])
        else { return nil }
        self.header = header
        self.claims = claims
        signature = ProviderToken.base64URL(segments[2])
    }

    /// The credential of an `authorization` header when it is a shell variable or command
    /// substitution nobody expanded (`$APNS_AUTH_TOKEN`, `${TOKEN}`, `$(cat token)`), else nil.
    static func unexpandedVariable(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
        let credential = parts.count == 2 && parts[0].lowercased() == "bearer" ? parts[1] : parts.first ?? ""
        let trimmed = credential.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("$") ? trimmed : nil
    }

    static func json(_ segment: Substring) -> JSONValue? {
        guard let bytes = base64URL(segment), let value = try? JSONValue.parse(bytes: bytes), value.objectValue != nil
        else { return nil }
        return value
    }

    static func base64URL(_ segment: Substring) -> [UInt8]? {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map { Array($0) }
    }
}
