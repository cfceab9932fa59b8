import DropTrackCLI
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import Foundation

/// `droptrack apps webhook add`: registers an endpoint for an app's outcomes, with a fresh secret.
enum WebhookAddCommand: Command {
    static let path = ["apps", "webhook", "add"]
    static let abstract = "register an HTTPS endpoint told about an app's outcomes, with a new signing secret"
    static let help = """
        USAGE: droptrack apps webhook add --config FILE --app ID --url URL [--id NAME] [--events a,b]

        Writes a fresh random signing secret (0600) beside the configuration as
        <app>-webhook-<id>.secret, adds the endpoint to the app, and prints the secret once on stdout:
        give it to the receiver, which checks each DropTrack-Signature with it (docs/how-to/webhooks.md).
        Restart the server after.

        OPTIONS:
          --config FILE   the configuration file
          --app ID        the app whose outcomes the endpoint hears about
          --url URL       https://… (http://127.0.0.1… only with allowLoopbackWebhooks: true)
          --id NAME       the endpoint's name (letters, digits, '-', '_'; default hook-<random>)
          --events LIST   comma-separated: \(WebhookEvent.allCases.map(\.rawValue).joined(separator: ", "))
                          (default: all)
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "url", "id", "events"], switches: [],
            environmentPrefix: "DROPTRACK_WEBHOOK_")
        let url = try args.required("url")
        let id = args.value("id") ?? "hook-" + String(hexEncoding: (0..<3).map { _ in UInt8.random(in: 0...255) })
        let events = args.value("events").map { $0.split(separator: ",").map(String.init) }
        for event in events ?? [] where WebhookEvent(rawValue: event) == nil {
            throw UsageError(
                "--events: unknown event '\(event)'; known: \(WebhookEvent.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        var document = try AppEntryList.webhooks(config: try args.required("config"), app: try args.required("app"))
        guard !document.names.contains(id) else {
            throw UsageError(
                "--id \(id) is already an endpoint of app \(document.app); pick another or remove it first")
        }
        let secret = "whsec_" + String(hexEncoding: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let directory = (document.config as NSString).deletingLastPathComponent
        let name = "\(document.app)-webhook-\(id).secret"
        let file = directory.isEmpty ? name : directory + "/" + name
        try PrivateFile.write(secret + "\n", to: file)
        var entry: [String: Any] = ["id": id, "url": url, "secretFile": ConfigurationPaths.absolute(file)]
        if let events { entry["events"] = events }
        document.append(entry)
        do {
            try document.save()
        } catch {
            unlink(file)
            throw error
        }
        print(secret)
        printError(
            "webhook \(id) added to app \(document.app); its secret (above, shown once) is in \(file); restart the server"
        )
        return 0
    }
}

/// `droptrack apps webhook remove`: stops telling an endpoint about an app's outcomes.
enum WebhookRemoveCommand: Command {
    static let path = ["apps", "webhook", "remove"]
    static let abstract = "stop telling an endpoint about an app's outcomes"
    static let help = """
        USAGE: droptrack apps webhook remove --config FILE --app ID --id NAME

        Removes the endpoint and deletes its secret file. Deliveries still queued for it are given up
        (kept as failed) once the server restarts without it.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "id"], switches: [], environmentPrefix: "DROPTRACK_WEBHOOK_")
        let id = try args.required("id")
        var document = try AppEntryList.webhooks(config: try args.required("config"), app: try args.required("app"))
        guard let removed = document.remove(id) else {
            throw UsageError(
                "--id \(id) is not an endpoint of app \(document.app); its endpoints are: \(document.names.joined(separator: ", "))"
            )
        }
        try document.save()
        if let secretFile = removed["secretFile"] as? String {
            unlink(ConfigurationPaths.resolve(secretFile, relativeToDirectoryOf: document.config))
        }
        printError("webhook \(id) removed from app \(document.app); restart the server")
        return 0
    }
}

extension AppEntryList {
    /// An app's `webhooks`, named by `id`.
    static func webhooks(config: String, app: String) throws -> AppEntryList {
        try AppEntryList(config: config, app: app, list: "webhooks", nameKey: "id")
    }
}
