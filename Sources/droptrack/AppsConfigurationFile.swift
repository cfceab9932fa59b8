import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackModel
import DropTrackProviders
import DropTrackRuntime
import Foundation

/// The configuration file as the `apps` commands edit it: the JSON document as written, so keys these
/// commands do not touch stay as they are. A change is saved only once the server's own loader accepts
/// the result, atomically (a reader sees the old file or the new, never half) and owner-only (0600).
struct AppsConfigurationFile {
    let path: String
    private let document: [String: Any]
    /// The apps, each as its JSON object.
    var apps: [[String: Any]]

    /// Reads `path`. A missing file is an empty configuration when `creating` (for `apps add`), else
    /// a usage error naming `--config`.
    init(path: String, creating: Bool) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            guard creating else {
                throw UsageError("--config \(path): no such file; check the path (droptrack apps add creates it)")
            }
            document = [:]
            apps = []
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--config \(path) cannot be read; check its permissions")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure("\(path) is not a JSON object; fix or remove it")
        }
        document = object
        apps = object["apps"] as? [[String: Any]] ?? []
    }

    /// The ids of the apps, in file order.
    var ids: [String] { apps.compactMap { $0["id"] as? String } }

    /// Where app `id` is in ``apps``, or a usage error naming `--id` and the ids there are.
    func index(of id: String) throws -> Int {
        guard let index = apps.firstIndex(where: { $0["id"] as? String == id }) else {
            let known = ids.isEmpty ? "it has no apps" : "its apps are \(ids.joined(separator: ", "))"
            throw UsageError("--id \(id): no such app in \(path); \(known) (see droptrack apps list --config FILE)")
        }
        return index
    }

    /// Writes the apps back. The server's loader checks the result first; if it refuses, nothing changes.
    func save() throws {
        var document = self.document
        document["apps"] = apps
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        let staged = path + ".new"
        // Owner-only whatever the umask: the file holds the apps' API key hashes and key file paths.
        try PrivateFile.write(data, to: staged)
        do {
            _ = try ServerConfiguration.load(file: staged, environment: [:])
        } catch {
            unlink(staged)
            throw CommandFailure("the change would make the configuration invalid, so \(path) is unchanged: \(error)")
        }
        guard rename(staged, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw CommandFailure("cannot replace \(path): \(reason); check the folder is writable")
        }
    }
}

/// What `apps add` checks before it writes anything: each key file exists, is readable and is of the
/// kind its flag expects, and Apple's ids are shaped as Apple issues them. Found here, a wrong file is
/// a usage error naming the flag; found by `serve`, it would stop every app from starting.
enum AppCredentialChecks {
    /// An app id as the configuration takes it: letters, digits and '-'.
    static func checkAppID(_ id: String) throws {
        guard AppID(id) != nil else {
            throw UsageError("--id '\(id)' is not an app id; use letters, digits and '-', e.g. --id shop")
        }
    }

    /// A key id or a team id: ten characters, A–Z and 0–9.
    static func checkAppleID(_ value: String, flag: String, whereShown: String) throws {
        let isAppleID =
            value.utf8.count == 10 && value.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
        guard isAppleID else {
            throw UsageError(
                "--\(flag) '\(value)' is not an Apple id: it has exactly ten characters, A–Z and 0–9; copy it from \(whereShown)"
            )
        }
    }

    /// The APNs `.p8`: a PEM P-256 private key, and not a service account given by mistake.
    static func checkAPNsKey(_ path: String) throws {
        let data = try readable(path, flag: "apns-key-file")
        if isServiceAccount(data) {
            throw UsageError(
                "--apns-key-file \(path) is a Firebase service-account JSON, not an APNs key; pass it as --fcm-service-account, and Apple's AuthKey_<key id>.p8 as --apns-key-file"
            )
        }
        do {
            _ = try PrivateKey(pem: data, expected: .es256, source: "--apns-key-file \(path)")
        } catch {
            throw UsageError(
                "\(error); pass the AuthKey_<key id>.p8 downloaded from Certificates, Identifiers & Profiles → Keys")
        }
    }

    /// The FCM service account: a `service_account` JSON with its email, key and project, and not an
    /// APNs key given by mistake.
    static func checkServiceAccount(_ path: String) throws {
        let data = try readable(path, flag: "fcm-service-account")
        let text = String(decoding: data.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("-----BEGIN") {
            throw UsageError(
                "--fcm-service-account \(path) is a PEM key (an APNs .p8?), not a service-account JSON; pass an APNs key as --apns-key-file, and the JSON from Firebase console → Project settings → Service accounts as --fcm-service-account"
            )
        }
        do {
            _ = try GoogleServiceAccount(json: data, source: "--fcm-service-account \(path)")
        } catch {
            throw UsageError(
                "\(error); generate a key under Firebase console → Project settings → Service accounts and pass that JSON"
            )
        }
    }

    /// The file's bytes, or a usage error naming the flag: missing, a directory, or unreadable.
    private static func readable(_ path: String, flag: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError("--\(flag) \(path): no such file; check the path")
        }
        guard !isDirectory.boolValue else {
            throw UsageError("--\(flag) \(path) is a directory; pass the key file itself")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(
                "--\(flag) \(path) cannot be read; check its permissions (the user running droptrack serve reads it too)"
            )
        }
        return data
    }

    private static func isServiceAccount(_ data: Data) -> Bool {
        (try? JSONValue.parse(data))?["type"]?.stringValue == "service_account"
    }
}

/// One list of an app's entries in a configuration file, each named by one of its keys (`deviceKeys` by
/// `kid`, `webhooks` by `id`), edited through ``AppsConfigurationFile``: keys it does not know stay as they
/// are, and the file is saved only when the whole configuration still loads.
struct AppEntryList {
    let config: String
    let app: String
    private let list: String
    private let nameKey: String
    private var file: AppsConfigurationFile
    private let index: Int

    /// The `list` of app `app` in `config`, whose entries are named by `nameKey`.
    init(config: String, app: String, list: String, nameKey: String) throws {
        file = try AppsConfigurationFile(path: config, creating: false)
        guard let index = file.apps.firstIndex(where: { $0["id"] as? String == app }) else {
            throw UsageError("--app \(app) is not in \(config); add it with 'droptrack apps add' or fix the id")
        }
        self.config = config
        self.app = app
        self.list = list
        self.nameKey = nameKey
        self.index = index
    }

    private var entries: [[String: Any]] {
        get { file.apps[index][list] as? [[String: Any]] ?? [] }
        set { file.apps[index][list] = newValue }
    }

    /// The entries' names, in file order.
    var names: [String] { entries.compactMap { $0[nameKey] as? String } }

    mutating func append(_ entry: [String: Any]) { entries.append(entry) }

    /// Removes the entry named `name`; returns it, or nil when there is none by that name.
    @discardableResult
    mutating func remove(_ name: String) -> [String: Any]? {
        let nameKey = self.nameKey
        guard let found = entries.first(where: { $0[nameKey] as? String == name }) else { return nil }
        entries.removeAll { $0[nameKey] as? String == name }
        return found
    }

    /// Writes the file (0600: it names key files and holds API key hashes) once the result loads.
    func save() throws { try file.save() }
}
