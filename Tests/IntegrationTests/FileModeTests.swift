import DropTrackCore
import DropTrackDemo
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The permission bits of a file, or nil when it does not exist.
func fileMode(_ path: String) -> mode_t? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return status.st_mode & 0o777
}

/// Runs the built `droptrack` (or `droptrack-dev`) under `umask 000` (through sh, so this process's umask is
/// untouched).
func runDropTrackUnderUmask0(_ arguments: [String], program: String = "droptrack") throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments =
        ["-c", #"umask 000 && exec "$0" "$@""#, repositoryRoot + "/.build/debug/" + program] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

@Suite("Files with secrets or tokens are owner-only (0600) whatever the umask")
struct FileModeTests {
    @Test("the SQLite file, its -wal and -shm are 0600 under umask 000; an older 0644 file is tightened")
    func sqliteFiles() throws {
        let directory = makeTemporaryDirectory("modes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/droptrack.sqlite"
        // The umask is the process's: set only around the open and the first write, which create the files.
        let previous = umask(0)
        let store: SQLiteStore
        do {
            defer { umask(previous) }
            store = try SQLiteStore(path: path)
            try store.transaction { try $0.tokens(app: "a", deviceIds: ["d"]) }.forEach { _ in }
            try store.transaction { tx in
                try tx.invalidateTokens(app: "a", fingerprints: [fingerprint("e")], reason: .provider("r"), at: Date())
            }
        }
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(fileMode(file) == 0o600, "\(file): \(String(fileMode(file) ?? 0, radix: 8))")
        }
        _ = store

        let older = directory + "/older.sqlite"
        #expect(FileManager.default.createFile(atPath: older, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try SQLiteStore(path: older)
        #expect(fileMode(older) == 0o600)
    }

    @Test("apps add writes its config 0600 under umask 000, and keys dev its private keys")
    func cliFiles() throws {
        let directory = makeTemporaryDirectory("modes-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/droptrack.json"
        #expect(
            try runDropTrackUnderUmask0(["apps", "add", "--config", config, "--id", "shop", "--bundle-id", "com.x"])
                == 0)
        #expect(fileMode(config) == 0o600, "\(String(fileMode(config) ?? 0, radix: 8))")
        // Adding a key to an existing app rewrites the file: still 0600.
        #expect(try runDropTrackUnderUmask0(["apps", "add", "--config", config, "--id", "shop"]) == 0)
        #expect(fileMode(config) == 0o600)
        // The other apps commands that write secrets: a device signing key and a webhook secret.
        #expect(
            try runDropTrackUnderUmask0(["apps", "device-key", "rotate", "--config", config, "--app", "shop"]) == 0)
        #expect(
            try runDropTrackUnderUmask0([
                "apps", "webhook", "add", "--config", config, "--app", "shop", "--url", "https://hooks.example/dt",
                "--id", "h1",
            ]) == 0)
        let secrets = (try FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0 != "droptrack.json" }
        #expect(secrets.count == 2, "\(secrets)")
        for name in secrets {
            #expect(
                fileMode(directory + "/" + name) == 0o600,
                "\(name): \(String(fileMode(directory + "/" + name) ?? 0, radix: 8))")
        }
        #expect(fileMode(config) == 0o600)

        let keys = directory + "/keys"
        #expect(try runDropTrackUnderUmask0(["keys", "dev", "--out", keys], program: "droptrack-dev") == 0)
        let written = (FileManager.default.enumerator(atPath: keys)?.allObjects as? [String] ?? []).map {
            keys + "/" + $0
        }
        for file in written
        where file.hasSuffix(".p8") || file.hasSuffix("-key.pem") || file.hasSuffix("service-account.json") {
            #expect(fileMode(file) == 0o600, "\(file): \(String(fileMode(file) ?? 0, radix: 8))")
        }
        #expect(written.filter { $0.hasSuffix(".p8") || $0.hasSuffix("-key.pem") }.count == 2, "\(written)")
    }

    @Test(
        "keys dev under umask 000: its folders 0700 (a parent it makes 0755), private keys 0600, certificates and public keys 0644"
    )
    func keysDevModes() throws {
        let directory = makeTemporaryDirectory("modes-keys")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = directory + "/dev/keys"
        #expect(try runDropTrackUnderUmask0(["keys", "dev", "--out", keys], program: "droptrack-dev") == 0)
        let written = (FileManager.default.enumerator(atPath: keys)?.allObjects as? [String] ?? []).sorted()
        #expect(written.count == 10, "\(written)")
        func expected(_ name: String) -> mode_t {
            if name == "apns" || name == "fcm" { return 0o700 }
            if name.hasSuffix(".p8") || name.hasSuffix("-key.pem") || name.hasSuffix("service-account.json") {
                return 0o600
            }
            return 0o644
        }
        #expect(fileMode(directory + "/dev") == 0o755)
        #expect(fileMode(keys) == 0o700)
        for name in written {
            let mode = fileMode(keys + "/" + name)
            #expect(mode == expected(name), "\(name): \(String(mode ?? 0, radix: 8))")
        }
        #expect(written.filter { expected($0) == 0o644 }.count == 5, "ca, server cert, two public keys, apns.json")
    }

    @Test("the demo's data folder (store and keys) is 0700 whatever the umask")
    func demoDataFolder() throws {
        let directory = makeTemporaryDirectory("modes-demo")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let demo = try DemoStack(listen: "127.0.0.1:0", data: directory + "/data", logger: .disabled)
        defer { demo.stop() }
        #expect(fileMode(directory + "/data") == 0o700)
        #expect(fileMode(directory + "/data/keys") == 0o700)
    }

    @Test("PrivateFile.write replaces a file with a 0600 one, whatever mode the old one had")
    func privateFile() throws {
        let directory = makeTemporaryDirectory("modes-private")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o666]))
        try PrivateFile.write("new", to: path)
        #expect(fileMode(path) == 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
        #expect(throws: PrivateFileError.self) { try PrivateFile.write("x", to: directory + "/missing/secret") }
        let certificate = directory + "/ca.pem"
        #expect(
            FileManager.default.createFile(atPath: certificate, contents: nil, attributes: [.posixPermissions: 0o666]))
        try PrivateFile.writePublic("cert", to: certificate)
        #expect(fileMode(certificate) == 0o644)
        #expect(throws: PrivateFileError.self) { try PrivateFile.makeDirectory(certificate + "/inside") }
        #expect(throws: PrivateFileError.self) { try PrivateFile.makeDirectory(path) }
    }
}
