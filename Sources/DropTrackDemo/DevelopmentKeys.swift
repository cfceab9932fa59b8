import DropTrackCore
import DropTrackCrypto
import DropTrackProviders
import Foundation

/// Why development keys could not be written or read.
public struct DevelopmentKeysError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the file.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The throwaway credentials for the local emulators (never for production): a TLS CA and server
/// certificate, an APNs key and a Google service account. `droptrack-dev keys dev` and the demo write them.
public struct DevelopmentKeys: CustomStringConvertible, Sendable {
    public var directory: String
    public var keyID: String
    public var teamID: String
    public var bundleID: String
    public var caFile: String { directory + "/ca.pem" }
    public var certificateFile: String { directory + "/server.pem" }
    public var certificateKeyFile: String { directory + "/server-key.pem" }
    public var apnsKeyFile: String { directory + "/apns/AuthKey_\(keyID).p8" }
    public var apnsPublicKeyFile: String { directory + "/apns/AuthKey_\(keyID).pub.pem" }
    public var projectID = "droptrack-demo"
    public var serviceAccountFile: String { directory + "/fcm/service-account.json" }
    public var serviceAccountPublicKeyFile: String { directory + "/fcm/service-account.pub.pem" }
    public var clientEmail: String { "droptrack-dev@\(projectID).iam.gserviceaccount.com" }
    /// Where the service account's `token_uri` says the FCM emulator answers: the address the next
    /// step's `emulate fcm --listen` must use.
    public var fcmListen = "127.0.0.1:4443"

    static func randomID(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<length).map { _ in alphabet.randomElement()! })
    }

    public static func write(
        to directory: String, bundleID: String, projectID: String = "droptrack-demo",
        fcmTokenURI: String = "https://localhost:4443/token", overwrite: Bool
    ) throws -> DevelopmentKeys {
        if FileManager.default.fileExists(atPath: directory + "/ca.pem") && !overwrite {
            throw DevelopmentKeysError("\(directory) already holds development keys; pass --force to replace them")
        }
        do {
            // Each folder holds a private key: owner-only, whatever the umask.
            for folder in [directory, directory + "/apns", directory + "/fcm"] {
                try PrivateFile.makeDirectory(folder, mode: 0o700)
            }
        } catch {
            throw DevelopmentKeysError("cannot create \(directory): \(error)")
        }
        var keys = DevelopmentKeys(directory: directory, keyID: randomID(10), teamID: randomID(10), bundleID: bundleID)
        keys.projectID = projectID
        if let port = URL(string: fcmTokenURI)?.port { keys.fcmListen = "127.0.0.1:\(port)" }
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
            // The mode is set explicitly, never left to the umask: private keys 0600 (set before the
            // first byte is written), certificates and public keys 0644.
            if secret {
                try PrivateFile.write(text, to: path)
            } else {
                try PrivateFile.writePublic(text, to: path)
            }
        } catch {
            throw DevelopmentKeysError(error.description)
        }
    }

    /// Rewrites the service account's `token_uri`: an emulator's port is known only once it listens.
    public func pointServiceAccount(at tokenURI: String) throws {
        guard let data = FileManager.default.contents(atPath: serviceAccountFile),
            var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw DevelopmentKeysError("cannot read \(serviceAccountFile)") }
        object["token_uri"] = tokenURI
        let updated = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        try Self.save(String(decoding: updated, as: UTF8.self), serviceAccountFile, secret: true)
    }

    /// Reads `DIR/apns/apns.json` back.
    public static func load(from directory: String) throws -> DevelopmentKeys {
        let path = directory + "/apns/apns.json"
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
            let keyID = object["keyId"], let teamID = object["teamId"], let bundleID = object["bundleId"]
        else {
            throw DevelopmentKeysError("cannot read \(path); run `droptrack-dev keys dev --out \(directory)` first")
        }
        return DevelopmentKeys(directory: directory, keyID: keyID, teamID: teamID, bundleID: bundleID)
    }

    public var description: String {
        """
        wrote development keys to \(directory)
          CA to trust:      \(caFile)
          TLS certificate:  \(certificateFile) (key \(certificateKeyFile))
          APNs key:         \(apnsKeyFile)  key id \(keyID), team id \(teamID), bundle id \(bundleID)
          APNs public key:  \(apnsPublicKeyFile)
          FCM account:      \(serviceAccountFile)  project \(projectID)
          FCM public key:   \(serviceAccountPublicKeyFile)

        next:
          droptrack-dev emulate apns --listen 127.0.0.1:2197 --auth-key-pub \(apnsPublicKeyFile) \\
            --key-id \(keyID) --team-id \(teamID) --bundle-id \(bundleID) \\
            --tls-cert \(certificateFile) --tls-key \(certificateKeyFile)
          droptrack-dev emulate fcm --listen \(fcmListen) --service-account-pub \(serviceAccountPublicKeyFile) \
            --project \(projectID) --tls-cert \(certificateFile) --tls-key \(certificateKeyFile)
        """
    }
}
