import DropTrackCore
import DropTrackCrypto
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
        let summary = try DevelopmentKeys.write(
            to: out, bundleID: bundleID, projectID: args.value("project") ?? "droptrack-demo", fcmTokenURI: tokenURI,
            overwrite: args.flag("force"))
        print(summary.description)
        return 0
    }
}

/// The files `keys dev` writes, and the code that writes them (also used by the demo).
struct DevelopmentKeys: CustomStringConvertible {
    var directory: String
    var keyID: String
    var teamID: String
    var bundleID: String
    var caFile: String { directory + "/ca.pem" }
    var certificateFile: String { directory + "/server.pem" }
    var certificateKeyFile: String { directory + "/server-key.pem" }
    var apnsKeyFile: String { directory + "/apns/AuthKey_\(keyID).p8" }
    var apnsPublicKeyFile: String { directory + "/apns/AuthKey_\(keyID).pub.pem" }
    var projectID = "droptrack-demo"
    var serviceAccountFile: String { directory + "/fcm/service-account.json" }
    var serviceAccountPublicKeyFile: String { directory + "/fcm/service-account.pub.pem" }
    var clientEmail: String { "droptrack-dev@\(projectID).iam.gserviceaccount.com" }

    static func randomID(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<length).map { _ in alphabet.randomElement()! })
    }

    static func write(
        to directory: String, bundleID: String, projectID: String = "droptrack-demo",
        fcmTokenURI: String = "https://localhost:4443/token", overwrite: Bool
    ) throws -> DevelopmentKeys {
        let manager = FileManager.default
        if manager.fileExists(atPath: directory + "/ca.pem") && !overwrite {
            throw CommandFailure("\(directory) already holds development keys; pass --force to replace them")
        }
        do {
            try manager.createDirectory(atPath: directory + "/apns", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: directory + "/fcm", withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create \(directory): \(error.localizedDescription)")
        }
        var keys = DevelopmentKeys(directory: directory, keyID: randomID(10), teamID: randomID(10), bundleID: bundleID)
        keys.projectID = projectID
        let certificates = try DevelopmentCertificates.generate()
        let apnsKey = try PrivateKey.generate(.es256)
        try save(certificates.caCertificatePEM, keys.caFile)
        try save(certificates.serverCertificatePEM, keys.certificateFile)
        try save(certificates.serverKeyPEM, keys.certificateKeyFile, secret: true)
        try save(apnsKey.pkcs8PEM, keys.apnsKeyFile, secret: true)
        try save(apnsKey.publicKeyPEM, keys.apnsPublicKeyFile)
        let json = try JSONSerialization.data(
            withJSONObject: ["keyId": keys.keyID, "teamId": keys.teamID, "bundleId": bundleID],
            options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        try save(String(decoding: json, as: UTF8.self), directory + "/apns/apns.json")
        let serviceKey = try PrivateKey.generate(.rs256)
        let account = GoogleServiceAccount.document(
            projectID: projectID, privateKeyID: randomID(40).lowercased(), clientEmail: keys.clientEmail,
            tokenURI: fcmTokenURI, privateKeyPEM: serviceKey.pkcs8PEM)
        try save(String(decoding: account, as: UTF8.self), keys.serviceAccountFile, secret: true)
        try save(serviceKey.publicKeyPEM, keys.serviceAccountPublicKeyFile)
        return keys
    }

    private static func save(_ text: String, _ path: String, secret: Bool = false) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
        } catch {
            throw CommandFailure("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Reads `DIR/apns/apns.json` back.
    static func load(from directory: String) throws -> DevelopmentKeys {
        let path = directory + "/apns/apns.json"
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
            let keyID = object["keyId"], let teamID = object["teamId"], let bundleID = object["bundleId"]
        else { throw CommandFailure("cannot read \(path); run `droptrack keys dev --out \(directory)` first") }
        return DevelopmentKeys(directory: directory, keyID: keyID, teamID: teamID, bundleID: bundleID)
    }

    var description: String {
        """
        wrote development keys to \(directory)
          CA to trust:      \(caFile)
          TLS certificate:  \(certificateFile) (key \(certificateKeyFile))
          APNs key:         \(apnsKeyFile)  key id \(keyID), team id \(teamID), bundle id \(bundleID)
          APNs public key:  \(apnsPublicKeyFile)
          FCM account:      \(serviceAccountFile)  project \(projectID)
          FCM public key:   \(serviceAccountPublicKeyFile)

        next:
          droptrack emulate apns --listen 127.0.0.1:2197 --auth-key-pub \(apnsPublicKeyFile) \\
            --key-id \(keyID) --team-id \(teamID) --bundle-id \(bundleID) \\
            --tls-cert \(certificateFile) --tls-key \(certificateKeyFile)
          droptrack emulate fcm --listen 127.0.0.1:4443 --service-account-pub \(serviceAccountPublicKeyFile) \
            --project \(projectID) --tls-cert \(certificateFile) --tls-key \(certificateKeyFile)
        """
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
        let tokens: APNsProviderToken
        do {
            tokens = try APNsProviderToken(
                key: key, keyID: try args.required("key-id"), teamID: try args.required("team-id"), clock: clock)
        } catch let error as APNsConfigurationError { throw UsageError("--\(error.field): \(error.message)") }
        for _ in 0..<max(1, try args.integer("count") ?? 1) {
            print(try tokens.current())
            clock.advance(by: 3600)
        }
        return 0
    }
}
