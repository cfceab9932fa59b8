import DropTrackCLI
import DropTrackCore
import DropTrackCrypto
import DropTrackDemo
import DropTrackProviders
import Foundation

/// `droptrack-dev keys dev`: development keys and certificates for running everything locally.
enum KeysDevCommand: Command {
    static let path = ["keys", "dev"]
    static let abstract = "make development keys: a TLS CA and server certificate, an APNs .p8 key"
    static let help = """
        USAGE: droptrack-dev keys dev [--out DIR] [--bundle-id ID] [--project ID] [--fcm-token-uri URL] [--force]

        Writes throwaway credentials for the local emulators (never for production):
          DIR/ca.pem                   the CA to trust (--ca-file) when talking to an emulator
          DIR/server.pem, server-key.pem   the emulators' TLS certificate (localhost, 127.0.0.1)
          DIR/apns/AuthKey_<KEYID>.p8      an APNs provider key (P-256, PKCS#8)
          DIR/apns/AuthKey_<KEYID>.pub.pem its public key, for `droptrack-dev emulate apns --auth-key-pub`
          DIR/apns/apns.json              {"keyId", "teamId", "bundleId"}
          DIR/fcm/service-account.json    a Google service-account key (RSA) whose token_uri is the FCM emulator
          DIR/fcm/service-account.pub.pem its public key, for `droptrack-dev emulate fcm --service-account-pub`

        OPTIONS:
          --out DIR        where to write (default ./droptrack-dev)
          --bundle-id ID   the app's bundle id (default com.droptrack.demo)
          --project ID     the Firebase project id (default droptrack-demo)
          --fcm-token-uri URL  token_uri written into the service account (default https://localhost:4443/token,
                           where `droptrack-dev emulate fcm --listen 127.0.0.1:4443` answers)
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
