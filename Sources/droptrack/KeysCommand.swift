import DropTrackCore
import DropTrackCrypto
import DropTrackDemo
import DropTrackProviders
import Foundation

/// `droptrack keys dev`: development keys and certificates for running everything locally.
enum KeysDevCommand: Command {
    static let path = ["keys", "dev"]
    static let abstract = "make development keys: a TLS CA and server certificate, an APNs .p8 key"
    static let help = """
        USAGE: droptrack keys dev [--out DIR] [--bundle-id ID] [--project ID] [--fcm-token-uri URL] [--force]

        Writes throwaway credentials for the local emulators (never for production):
          DIR/ca.pem                   the CA to trust (--ca-file) when talking to an emulator
          DIR/server.pem, server-key.pem   the emulators' TLS certificate (localhost, 127.0.0.1)
          DIR/apns/AuthKey_<KEYID>.p8      an APNs provider key (P-256, PKCS#8)
          DIR/apns/AuthKey_<KEYID>.pub.pem its public key, for `droptrack emulate apns --auth-key-pub`
          DIR/apns/apns.json              {"keyId", "teamId", "bundleId"}
          DIR/fcm/service-account.json    a Google service-account key (RSA) whose token_uri is the FCM emulator
          DIR/fcm/service-account.pub.pem its public key, for `droptrack emulate fcm --service-account-pub`

        OPTIONS:
          --out DIR        where to write (default ./droptrack-dev)
          --bundle-id ID   the app's bundle id (default com.droptrack.demo)
          --project ID     the Firebase project id (default droptrack-demo)
          --fcm-token-uri URL  token_uri written into the service account (default https://localhost:4443/token,
                           where `droptrack emulate fcm --listen 127.0.0.1:4443` answers)
          --force          overwrite existing files

        Every option can also be set as DROPTRACK_KEYS_<OPTION>, e.g. DROPTRACK_KEYS_OUT.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["out", "bundle-id", "project", "fcm-token-uri"], switches: ["force"],
            environmentPrefix: "DROPTRACK_KEYS_")
        let out = args.value("out") ?? "droptrack-dev"
        let bundleID = args.value("bundle-id") ?? "com.droptrack.demo"
        let tokenURI = args.value("fcm-token-uri") ?? "https://localhost:4443/token"
        guard tokenURI.hasPrefix("https://") else { throw UsageError("--fcm-token-uri must be an https URL") }
        let summary: DevelopmentKeys
        do {
            summary = try DevelopmentKeys.write(
                to: out, bundleID: bundleID, projectID: args.value("project") ?? "droptrack-demo",
                fcmTokenURI: tokenURI, overwrite: args.flag("force"))
        } catch let error as DevelopmentKeysError {
            throw CommandFailure(error.message)
        }
        print(summary.description)
        return 0
    }
}

/// `droptrack keys apns-token`: prints provider tokens, for curl and h2load against APNs or the
/// emulator, and for checking our JWTs with an outside verifier.
enum KeysAPNsTokenCommand: Command {
    static let path = ["keys", "apns-token"]
    static let abstract = "print an APNs provider token (ES256 JWT) for curl or h2load"
    static let help = """
        USAGE: droptrack keys apns-token --key FILE.p8 --key-id ID --team-id ID [--count N] [--iat UNIX]

        Prints provider tokens made exactly as `push apns` and `serve` make them, one per line. The
        token is a credential for up to an hour: treat the output as a secret.

        OPTIONS:
          --key FILE.p8   the APNs auth key
          --key-id ID     its key id
          --team-id ID    your team id
          --count N       tokens to print, each issued one hour after the previous (default 1)
          --iat UNIX      issue time of the first token (default now)

        Every option can also be set as DROPTRACK_APNS_<OPTION> (shared with `push apns`).
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["key", "key-id", "team-id", "count", "iat"], switches: [],
            environmentPrefix: "DROPTRACK_APNS_")
        let key: PrivateKey
        do { key = try PrivateKey(pemFile: try args.required("key"), expected: .es256) } catch let error as CryptoError
        {
            throw CommandFailure(error.message)
        }
        let clock = ManualWallClock(unixSeconds: Int64(try args.integer("iat") ?? Int(Date().timeIntervalSince1970)))
        // A token is renewed by its age on the monotonic clock: both clocks move an hour per token.
        let monotonic = ManualMonotonicClock()
        let tokens: APNsProviderToken
        do {
            tokens = try APNsProviderToken(
                key: key, keyID: try args.required("key-id"), teamID: try args.required("team-id"), clock: clock,
                monotonic: monotonic.now)
        } catch let error as APNsConfigurationError { throw UsageError("--\(error.field): \(error.message)") }
        for _ in 0..<max(1, try args.integer("count") ?? 1) {
            print(try tokens.current())
            clock.advance(by: 3600)
            monotonic.advance(by: .seconds(3600))
        }
        return 0
    }
}
