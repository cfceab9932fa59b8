import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation

/// Catalog group 7, the FCM project's side: token rotation, the service account, scopes and iOS through FCM
/// (DT-102 … DT-105).
extension Doctor {
    static let fcmProjectRules: [DoctorRule] = [
        DoctorRule("DT-102", "FCM token rotation, and mapping errors to token actions") { e, r in
            guard e.isFCM else { return }
            r.adopt(e.fcmRequestErrors)
            if let seen = e.token?.lastSeenAt, let now = e.now, now - Double(seen) > 30 * 86400 {
                r.warning(
                    "token.lastSeenAt",
                    "the FCM token was last refreshed \(Int(saturating: (now - Double(seen)) / 86400)) days ago; tokens rotate and expire after 270 idle days",
                    fix: "forward every onNewToken to the server")
            }
            switch e.response?.fcmError {
            case "UNREGISTERED":
                r.info(
                    "response.fcmError", "UNREGISTERED: the token is gone",
                    fix: "delete the token; the app registers a new one")
            case "INVALID_ARGUMENT":
                let aboutToken = (e.response?.message ?? "").lowercased().contains("token")
                r.warning(
                    "response.fcmError",
                    aboutToken
                        ? "INVALID_ARGUMENT naming the registration token: the token is invalid"
                        : "INVALID_ARGUMENT about the payload, not the token: keep the token",
                    fix: aboutToken
                        ? "delete the token" : "fix the message; delete tokens only when the error names the token")
            default:
                break
            }
        },

        DoctorRule("DT-103", "Service-account assertion rejected (invalid_grant)") { e, r in
            guard e.isFCM else { return }
            if let assertion = e.config?.fcmAssertion {
                if let alg = assertion.alg, alg != "RS256" {
                    r.error(
                        "config.fcmAssertion.alg", "the assertion is signed \(alg); Google takes RS256",
                        fix: "sign the assertion with RS256")
                }
                if let padding = assertion.padding, padding.lowercased() != "pkcs1" {
                    r.error(
                        "config.fcmAssertion.padding",
                        "RS256 needs PKCS#1 v1.5 padding, not \(padding) (invalid_grant: Invalid JWT Signature)",
                        fix: "request PKCS#1 v1.5 padding explicitly")
                }
                if let lifetime = assertion.lifetimeSeconds, lifetime > 3600 {
                    r.error(
                        "config.fcmAssertion.lifetimeSeconds",
                        "exp − iat is \(Int(saturating: lifetime)) s; Google allows 3600",
                        fix: "set exp to at most iat + 3600")
                }
                if let audience = assertion.audience, audience != "https://oauth2.googleapis.com/token" {
                    r.error(
                        "config.fcmAssertion.audience", "aud is \(audience), not https://oauth2.googleapis.com/token",
                        fix: "set aud to https://oauth2.googleapis.com/token")
                }
            }
            if e.response?.fcmError == "invalid_grant" {
                r.error(
                    "response.fcmError",
                    "invalid_grant: Google refused the service-account assertion, so nothing can be sent",
                    fix:
                        "verify the assertion locally (RS256, PKCS#1 v1.5, exp − iat ≤ 3600, the fixed aud) and fix the clock"
                )
            }
        },

        DoctorRule("DT-104", "Missing scope, IAM role, or a disabled API (403 on every send)") { e, r in
            guard e.isFCM else { return }
            let messaging = [
                "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
            ]
            if let scopes = e.config?.fcmScopes, !scopes.contains(where: { messaging.contains($0) }) {
                r.error(
                    "config.fcmScopes",
                    "the access token has no firebase.messaging (or cloud-platform) scope: every send gets 403",
                    fix: "request the https://www.googleapis.com/auth/firebase.messaging scope")
            }
            if e.response?.fcmError == "PERMISSION_DENIED" {
                r.error(
                    "response.fcmError",
                    "PERMISSION_DENIED: the scope, the service account's role, or the FCM API is missing",
                    fix: "grant the role, enable the FCM API, and dry-run (validate_only) at startup")
            }
        },

        DoctorRule("DT-105", "iOS Live Activities sent through FCM") { e, r in
            guard e.isFCM, let apns = e.message?["apns"]?.objectValue, apns["live_activity_token"] != nil else {
                return
            }
            if e.message?["token"]?.stringValue == nil {
                r.error(
                    "message.token",
                    "a Live Activity through FCM still targets the app's FCM registration token in message.token",
                    fix: "send to message.token and put the Live Activity token in apns.live_activity_token")
            }
            if apns["headers"]?["apns-push-type"]?.stringValue != "liveactivity" {
                r.error(
                    "message.apns.headers.apns-push-type",
                    "apns.headers lacks apns-push-type: liveactivity, so APNs takes it as an alert",
                    fix: "set apns-push-type: liveactivity in apns.headers")
            }
            if apns["payload"]?["aps"] == nil {
                r.error(
                    "message.apns.payload", "apns.payload has no aps: nothing reaches ActivityKit",
                    fix: "put the whole Live Activity payload ({\"aps\": …}) in apns.payload")
            }
            if e.response?.fcmError == "THIRD_PARTY_AUTH_ERROR" {
                r.error(
                    "response.fcmError", "THIRD_PARTY_AUTH_ERROR: APNs refused FCM's credentials for the app",
                    fix: "upload a .p8 APNs auth key to the Firebase project")
            }
        },
    ]
}
