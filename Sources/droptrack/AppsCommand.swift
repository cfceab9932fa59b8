import DropTrackCLI
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import Foundation

/// `droptrack apps add`: adds an app (tenant) to a configuration file and prints its API key once.
enum AppsAddCommand: Command {
    static let path = ["apps", "add"]
    static let abstract = "add an app to a config file and print its new API key (only its hash is stored)"
    static let help = """
        USAGE: droptrack apps add --config FILE --id ID [--bundle-id ID]
                 [--apns-key-file FILE --apns-key-id ID --apns-team-id ID] [--apns-environment sandbox|production]
                 [--fcm-service-account FILE] [--priority10-per-hour N]

        Adds the app to FILE (creating it when missing), stores the SHA-256 hash of a new API key, and
        prints the key on stdout: it is shown once and cannot be recovered. Each key file is checked
        first (there, readable, a P-256 .p8 for APNs, a service-account JSON for FCM), and the key and
        team ids must be ten characters A–Z and 0–9; on any mistake nothing is written. Key paths are
        written absolute. Running it again for an existing id, with no other options, adds another
        key to that app; `droptrack apps rotate-key` replaces them.

        OPTIONS:
          --config FILE              the configuration file to write
          --id ID                    the app id (letters, digits, '-')
          --bundle-id ID             the iOS bundle id (needed with APNs credentials)
          --apns-key-file FILE       the APNs auth key (AuthKey_<key id>.p8)
          --apns-key-id ID           its key id (ten characters)
          --apns-team-id ID          the Apple team id (ten characters)
          --apns-environment ENV     sandbox (default) or production
          --fcm-service-account FILE the Firebase service-account JSON
          --priority10-per-hour N    this app's cap on priority-10 updates per activity per hour

        Every option can also be set as DROPTRACK_APPS_<OPTION>.
        """

    /// The options that describe a new app; given for an existing one, they would be ignored.
    static let appOptions = [
        "bundle-id", "apns-key-file", "apns-key-id", "apns-team-id", "apns-environment", "fcm-service-account",
        "priority10-per-hour",
    ]

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: Set(["config", "id"] + appOptions), switches: [],
            environmentPrefix: "DROPTRACK_APPS_")
        let configPath = try args.required("config")
        let id = try args.required("id")
        try AppCredentialChecks.checkAppID(id)
        var file = try AppsConfigurationFile(path: configPath, creating: true)
        let key = AppConfiguration.newAPIKey(app: id)
        if let index = file.apps.firstIndex(where: { $0["id"] as? String == id }) {
            if let given = appOptions.first(where: { args.value($0) != nil }) {
                throw UsageError(
                    "app \(id) is already in \(configPath), so --\(given) would be ignored; run droptrack apps remove first to change its settings, or drop --\(given) to add another API key"
                )
            }
            file.apps[index]["apiKeyHashes"] = (file.apps[index]["apiKeyHashes"] as? [String] ?? []) + [key.hash]
        } else {
            file.apps.append(try newApp(id: id, keyHash: key.hash, args))
        }
        try file.save()
        print(key.key)
        printError(
            "app \(id) saved in \(configPath); the API key above is shown once (its hash is stored); its fingerprint, the kfp of device credentials minted under it, is \(Fingerprint(of: key.key))"
        )
        return 0
    }

    /// The app's JSON object, every credential checked first.
    static func newApp(id: String, keyHash: String, _ args: Arguments) throws -> [String: Any] {
        var app: [String: Any] = ["id": id, "apiKeyHashes": [keyHash]]
        let bundle = args.value("bundle-id")
        if let bundle { app["bundleId"] = bundle }
        let apnsFlags = ["apns-key-file", "apns-key-id", "apns-team-id"]
        let apnsValues = apnsFlags.map { args.value($0) }
        if apnsValues.contains(where: { $0 != nil }) || args.value("apns-environment") != nil {
            let missing = zip(apnsFlags, apnsValues).filter { $0.1 == nil }.map { "--" + $0.0 }
            guard missing.isEmpty else {
                throw UsageError(
                    "APNs needs --apns-key-file, --apns-key-id and --apns-team-id together; add \(missing.joined(separator: ", "))"
                )
            }
            guard bundle != nil else {
                throw UsageError("APNs credentials need --bundle-id: the APNs topic is built from it")
            }
            let keyFile = ConfigurationPaths.absolute(apnsValues[0]!)
            try AppCredentialChecks.checkAPNsKey(keyFile)
            try AppCredentialChecks.checkAppleID(
                apnsValues[1]!, flag: "apns-key-id", whereShown: "Certificates, Identifiers & Profiles → Keys")
            try AppCredentialChecks.checkAppleID(
                apnsValues[2]!, flag: "apns-team-id", whereShown: "the developer account's Membership details")
            let environment = args.value("apns-environment") ?? "sandbox"
            guard environment == "sandbox" || environment == "production" else {
                throw UsageError("--apns-environment is sandbox or production, not '\(environment)'")
            }
            app["apns"] = [
                "keyFile": keyFile, "keyId": apnsValues[1]!, "teamId": apnsValues[2]!, "environment": environment,
            ]
        }
        if let account = args.value("fcm-service-account") {
            let accountFile = ConfigurationPaths.absolute(account)
            try AppCredentialChecks.checkServiceAccount(accountFile)
            app["fcm"] = ["serviceAccountFile": accountFile]
        }
        if let cap = try args.integer("priority10-per-hour") { app["priority10PerHour"] = cap }
        return app
    }
}

/// `droptrack apps list`: the apps in a configuration file, without any key material.
enum AppsListCommand: Command {
    static let path = ["apps", "list"]
    static let abstract = "list the apps in a config file: ids, bundle ids, providers, number of API keys"
    static let help = """
        USAGE: droptrack apps list --config FILE

        One line per app: its id, bundle id, the providers it has credentials for (with the APNs
        environment) and how many API keys it has. Keys and key files are never printed.

        OPTIONS:
          --config FILE   the configuration file to read

        Every option can also be set as DROPTRACK_APPS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["config"], switches: [], environmentPrefix: "DROPTRACK_APPS_")
        let configPath = try args.required("config")
        guard FileManager.default.fileExists(atPath: configPath) else {
            throw UsageError("--config \(configPath): no such file; check the path (droptrack apps add creates it)")
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: configPath, environment: [:])
        } catch {
            throw CommandFailure("configuration: \(error)")
        }
        guard !configuration.apps.isEmpty else {
            printError("no apps in \(configPath); add one with: droptrack apps add --config \(configPath) --id ID")
            return 0
        }
        let rows =
            [["ID", "BUNDLE ID", "PROVIDERS", "API KEYS"]]
            + configuration.apps.map { app in
                let providers = [app.apns.map { "apns (\($0.environment))" }, app.fcm.map { _ in "fcm" }]
                    .compactMap { $0 }
                return [
                    app.id, app.bundleId ?? "-", providers.isEmpty ? "-" : providers.joined(separator: ", "),
                    String(app.apiKeyHashes.count),
                ]
            }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            print((padded + [row[3]]).joined(separator: "  "))
        }
        return 0
    }
}

/// `droptrack apps remove`: takes an app out of a configuration file.
enum AppsRemoveCommand: Command {
    static let path = ["apps", "remove"]
    static let abstract = "remove an app (its credentials and API keys) from a config file"
    static let help = """
        USAGE: droptrack apps remove --config FILE --id ID

        Removes the app from FILE. Its API keys stop working, and its pushes stop being sent, once
        droptrack serve is restarted. Its records in the store are kept.

        OPTIONS:
          --config FILE   the configuration file to change
          --id ID         the app to remove

        Every option can also be set as DROPTRACK_APPS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "id"], switches: [], environmentPrefix: "DROPTRACK_APPS_")
        let configPath = try args.required("config")
        let id = try args.required("id")
        var file = try AppsConfigurationFile(path: configPath, creating: false)
        file.apps.remove(at: try file.index(of: id))
        try file.save()
        printError("app \(id) removed from \(configPath); restart droptrack serve to apply it")
        return 0
    }
}

/// `droptrack apps rotate-key`: a new API key for an app, printed once.
enum AppsRotateKeyCommand: Command {
    static let path = ["apps", "rotate-key"]
    static let abstract = "give an app a new API key (printed once); the old ones stop working unless --keep-old"
    static let help = """
        USAGE: droptrack apps rotate-key --config FILE --id ID [--keep-old]

        Stores the hash of a new API key for the app and prints the key on stdout, once. By default it
        replaces the app's other keys, which stop working when droptrack serve is restarted, and with
        them the console sessions signed in with them and the device credentials minted under them
        (those whose kfp claim names them: all that POST /v1/device-credentials minted, and those
        your backend signs with kfp). With --keep-old the old keys keep working beside the new one, so
        clients can move over; run rotate-key again without --keep-old to retire them (that makes yet
        another key). To take back one user's device credentials, see apps revoke-user.

        OPTIONS:
          --config FILE   the configuration file to change
          --id ID         the app
          --keep-old      keep the app's current keys working too

        Every option can also be set as DROPTRACK_APPS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "id"], switches: ["keep-old"], environmentPrefix: "DROPTRACK_APPS_")
        let configPath = try args.required("config")
        let id = try args.required("id")
        var file = try AppsConfigurationFile(path: configPath, creating: false)
        let index = try file.index(of: id)
        let old = file.apps[index]["apiKeyHashes"] as? [String] ?? []
        let key = AppConfiguration.newAPIKey(app: id)
        let keepOld = args.flag("keep-old")
        file.apps[index]["apiKeyHashes"] = (keepOld ? old : []) + [key.hash]
        try file.save()
        print(key.key)
        var others = ""
        if !old.isEmpty {
            others =
                keepOld
                ? "; its \(old.count) other key(s) keep working"
                : "; its \(old.count) old key(s) are revoked, with the console sessions opened with them and the device credentials minted under them"
        }
        printError(
            "app \(id) has a new API key, shown above once (fingerprint \(Fingerprint(of: key.key)), the kfp of device credentials minted under it)\(others); restart droptrack serve to apply it"
        )
        return 0
    }
}
