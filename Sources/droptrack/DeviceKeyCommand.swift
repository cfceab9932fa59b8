import DropTrackCLI
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import Foundation

/// `droptrack apps device-key add`: registers the public half of a backend's device-credential key.
enum DeviceKeyAddCommand: Command {
    static let path = ["apps", "device-key", "add"]
    static let abstract = "register a backend's P-256 public key that signs device credentials"
    static let help = """
        USAGE: droptrack apps device-key add --config FILE --app ID --kid KID --public-key FILE.pem

        The app's backend mints device credentials (ES256 JWTs, docs/reference/device-api.md) with its own
        P-256 key; DropTrack verifies them with the public half registered here, by kid. To rotate,
        add the new key, switch the backend to it, then remove the old one. Restart the server after.

        OPTIONS:
          --config FILE       the configuration file
          --app ID            the app the key signs for
          --kid KID           the key id the credentials' header names (letters, digits, '-', '_', '.')
          --public-key FILE   the P-256 public key (-----BEGIN PUBLIC KEY-----)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "kid", "public-key"], switches: [],
            environmentPrefix: "DROPTRACK_DEVICE_KEY_")
        let kid = try AppEntryList.kid(try args.required("kid"))
        let file = try args.required("public-key")
        let key: PublicKey
        do {
            key = try PublicKey(pemFile: file)
        } catch {
            throw UsageError("--public-key: \(error); give the P-256 public key as a PEM file")
        }
        guard key.algorithm == .es256 else {
            throw UsageError("--public-key \(file) is an RSA key; device credentials are ES256, so give a P-256 key")
        }
        var document = try AppEntryList.deviceKeys(config: try args.required("config"), app: try args.required("app"))
        guard !document.names.contains(kid) else {
            throw UsageError(
                "--kid \(kid) is already a key of app \(document.app); pick another kid or remove it first")
        }
        // Absolute: the configuration's relative paths are taken from its directory, not this shell's.
        document.append(["kid": kid, "publicKeyFile": ConfigurationPaths.absolute(file)])
        try document.save()
        printError("device key \(kid) added to app \(document.app); restart the server to accept it")
        return 0
    }
}

/// `droptrack apps device-key remove`: stops accepting credentials signed with a key.
enum DeviceKeyRemoveCommand: Command {
    static let path = ["apps", "device-key", "remove"]
    static let abstract = "stop accepting device credentials signed with a key"
    static let help = """
        USAGE: droptrack apps device-key remove --config FILE --app ID --kid KID

        Removes the key from the app. A DropTrack-held key file is left on disk; delete it yourself.
        Restart the server after.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "kid"], switches: [], environmentPrefix: "DROPTRACK_DEVICE_KEY_")
        let kid = try AppEntryList.kid(try args.required("kid"))
        var document = try AppEntryList.deviceKeys(config: try args.required("config"), app: try args.required("app"))
        guard document.names.contains(kid) else {
            throw UsageError(
                "--kid \(kid) is not a key of app \(document.app); its kids are: \(document.names.joined(separator: ", "))"
            )
        }
        document.remove(kid)
        try document.save()
        printError("device key \(kid) removed from app \(document.app); restart the server to refuse it")
        return 0
    }
}

/// `droptrack apps device-key rotate`: makes a DropTrack-held signing key for `POST /v1/device-credentials`.
enum DeviceKeyRotateCommand: Command {
    static let path = ["apps", "device-key", "rotate"]
    static let abstract = "make a DropTrack-held key that mints device credentials"
    static let help = """
        USAGE: droptrack apps device-key rotate --config FILE --app ID

        Generates a P-256 key, writes it (0600) beside the configuration as <app>-device-<kid>.p8,
        and adds it to the app with a fresh kid, printed on stdout. The newest such key signs
        POST /v1/device-credentials; older keys keep verifying until removed with
        'droptrack apps device-key remove'. Restart the server after.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app"], switches: [], environmentPrefix: "DROPTRACK_DEVICE_KEY_")
        var document = try AppEntryList.deviceKeys(config: try args.required("config"), app: try args.required("app"))
        let kid = "dt-" + String(hexEncoding: (0..<6).map { _ in UInt8.random(in: 0...255) })
        let directory = (document.config as NSString).deletingLastPathComponent
        let name = "\(document.app)-device-\(kid).p8"
        let file = directory.isEmpty ? name : directory + "/" + name
        try PrivateFile.write(try PrivateKey.generate(.es256).pkcs8PEM, to: file)
        document.append(["kid": kid, "privateKeyFile": ConfigurationPaths.absolute(file)])
        try document.save()
        print(kid)
        printError("signing key \(kid) written to \(file) and added to app \(document.app); restart the server")
        return 0
    }
}

extension AppEntryList {
    /// An app's `deviceKeys`, named by `kid`.
    static func deviceKeys(config: String, app: String) throws -> AppEntryList {
        try AppEntryList(config: config, app: app, list: "deviceKeys", nameKey: "kid")
    }

    /// A kid as the configuration takes it, or a usage error naming `--kid`.
    static func kid(_ text: String) throws -> String {
        guard AppConfiguration.DeviceKey.isValidKid(text) else {
            throw UsageError("--kid must be 1-64 letters, digits, '-', '_' or '.', not '\(text.prefix(80))'")
        }
        return text
    }
}
