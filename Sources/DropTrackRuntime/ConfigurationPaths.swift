import DropTrackContract
import DropTrackDispatch
import Foundation

/// Paths written in a configuration file are the file's, not the shell's: `keys/AuthKey.p8` next to
/// `/etc/droptrack/droptrack.json` means `/etc/droptrack/keys/AuthKey.p8` whichever directory `serve`
/// was started from. Every file path the configuration holds (the APNs key, the FCM service account,
/// device and webhook keys, the CA file and a SQLite store) goes through ``resolve(_:relativeToDirectoryOf:)``.
public enum ConfigurationPaths {
    /// `path` as written in `configFile`: unchanged when absolute, else joined to the configuration
    /// file's directory (itself made absolute against the working directory).
    ///
    /// - Parameters:
    ///   - path: A path from the configuration file.
    ///   - configFile: The configuration file's own path, absolute or relative to the working directory.
    public static func resolve(_ path: String, relativeToDirectoryOf configFile: String) -> String {
        guard !path.hasPrefix("/"), !path.isEmpty else { return path }
        let directory = URL(fileURLWithPath: absolute(configFile)).deletingLastPathComponent()
        return directory.appendingPathComponent(path).standardizedFileURL.path
    }

    /// `path` made absolute against the working directory (for a path given on the command line,
    /// before it is written into a configuration file that may be read from elsewhere).
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), !path.isEmpty else { return path }
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return workingDirectory.appendingPathComponent(path).standardizedFileURL.path
    }
}

extension ServerConfiguration {
    /// Every path the file itself wrote (the apps' key files, `caFile`, a `sqlite:` store), resolved
    /// against the file's directory. A path that only the defaults or the command line gave stays the
    /// shell's.
    mutating func resolvePaths(writtenIn configFile: String, data: Data) {
        apps = apps.map { $0.resolvingPaths(relativeToDirectoryOf: configFile) }
        let written = (try? JSONValue.parse(bytes: Array(data)))?.objectValue ?? [:]
        if written["caFile"] != nil, let caFile {
            self.caFile = ConfigurationPaths.resolve(caFile, relativeToDirectoryOf: configFile)
        }
        if written["store"] != nil, store.hasPrefix("sqlite:") {
            store =
                "sqlite:" + ConfigurationPaths.resolve(String(store.dropFirst(7)), relativeToDirectoryOf: configFile)
        }
    }
}

extension AppConfiguration {
    /// The app with each of its key file paths resolved against the configuration file's directory.
    func resolvingPaths(relativeToDirectoryOf configFile: String) -> AppConfiguration {
        var app = self
        if let keyFile = apns?.keyFile {
            app.apns?.keyFile = ConfigurationPaths.resolve(keyFile, relativeToDirectoryOf: configFile)
        }
        if let account = fcm?.serviceAccountFile {
            app.fcm?.serviceAccountFile = ConfigurationPaths.resolve(account, relativeToDirectoryOf: configFile)
        }
        app.deviceKeys = deviceKeys?.map { entry in
            var entry = entry
            entry.publicKeyFile = entry.publicKeyFile.map {
                ConfigurationPaths.resolve($0, relativeToDirectoryOf: configFile)
            }
            entry.privateKeyFile = entry.privateKeyFile.map {
                ConfigurationPaths.resolve($0, relativeToDirectoryOf: configFile)
            }
            return entry
        }
        app.webhooks = webhooks?.map { webhook in
            var webhook = webhook
            webhook.secretFile = ConfigurationPaths.resolve(webhook.secretFile, relativeToDirectoryOf: configFile)
            return webhook
        }
        return app
    }
}
