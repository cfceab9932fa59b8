import DropTrackAPI
import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import Foundation
import Synchronization

/// `droptrack serve`: the dispatch server.
enum ServeCommand: Command {
    static let path = ["serve"]
    static let abstract = "run the dispatch server: token registry, activities, durable delivery, HTTP API"
    static let help = """
        USAGE: droptrack serve [--config FILE] [--listen HOST:PORT] [--store SPEC] [--apns-host HOST:PORT]
                 [--fcm-base-url URL] [--ca-file FILE] [--log-level LEVEL] [--drain-seconds N]

        Serves the HTTP API (see /openapi.json), sends through APNs and FCM with each app's own
        credentials, and keeps the outbox in the store so a crash loses nothing. Logs are JSON lines
        on stderr; with SWIFT_BACKTRACE=enable=no (as the Debian unit sets it) a crash is one line too,
        server.crashed with the signal. On SIGTERM, SIGINT or SIGHUP it logs server.stopping, stops accepting requests, lets
        the sends in flight finish (showing progress), and exits 0; SIGHUP does not reload the
        configuration (restart to apply a change). HTTP handlers still running get 10 s more; one stuck
        past that is abandoned. Should shutdown still not be over 15 s after the drain, it exits 1 anyway.

        OPTIONS:
          --config FILE        the configuration file (JSON; `droptrack apps add` writes apps into it)
          --listen HOST:PORT   API address (default 127.0.0.1:8787)
          --store SPEC         sqlite:PATH (default sqlite:droptrack.sqlite), memory or postgres://…
          --apns-host H:P      send every app's APNs traffic here (an emulator)
          --fcm-base-url URL   send every app's FCM traffic here (an emulator)
          --ca-file FILE       CA to trust for APNs and FCM (an emulator's)
          --log-level LEVEL    trace, debug, info, notice, warning or error
          --drain-seconds N    how long to wait for sends in flight on shutdown (default 20)

        Every option can also be set as DROPTRACK_<OPTION> (DROPTRACK_CONFIG, DROPTRACK_STORE, …);
        options win over variables, which win over the file. `droptrack config keys` lists every key.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "config", "listen", "store", "apns-host", "fcm-base-url", "ca-file", "log-level", "drain-seconds",
            ],
            switches: [], environmentPrefix: "DROPTRACK_")
        if let listen = args.value("listen"), parseListenAddress(listen) == nil {
            throw UsageError("--listen must be HOST:PORT, e.g. 127.0.0.1:8787, not '\(listen)'")
        }
        let configuration = try loadConfiguration(args)
        guard (Double(args.value("drain-seconds") ?? "20") ?? -1) >= 0 else {
            throw UsageError("--drain-seconds must be a number of seconds")
        }
        let level = LogLevel(name: configuration.logLevel) ?? .info
        let logger = Logger(handler: JSONLinesLogHandler(), minimumLevel: level, metadata: [:])
        CrashLine.install()
        if configuration.apps.isEmpty {
            logger.warning(
                "config.no_apps", ["hint": "add one with: droptrack apps add --config FILE --id ID --bundle-id ID"])
        }
        let termination = TerminationSignal()
        let server: DropTrackServer
        do {
            server = try DropTrackServer(configuration: configuration, logger: logger)
        } catch {
            throw CommandFailure("\(error)")
        }
        let port: Int
        do { port = try server.start() } catch { throw CommandFailure("\(error)\(listenHint(error))") }
        print(
            "droptrack serving on http://\(parseListenAddress(configuration.listen)?.host ?? "127.0.0.1"):\(port)"
                + " (store \(PostgresStore.redactingPassword(in: configuration.store)))")
        fflush(nil)
        let signalName = await termination.wait()
        let drain = Double(args.value("drain-seconds") ?? "20") ?? 20
        logger.notice(
            "server.stopping",
            [
                "signal": signalName, "sends_in_flight": String(server.dispatcher.inFlight),
                "drain_seconds": String(Int(drain)),
                "note": signalName == "SIGHUP"
                    ? "SIGHUP drains and exits like SIGTERM; it does not reload the configuration: start the server again to apply a change"
                    : "draining the sends in flight, then exiting",
            ])
        let finished = ShutdownWatchdog(after: .seconds(drain) + HTTPServerLimits().stopDeadline + .seconds(5))
        let inFlight = server.dispatcher.inFlight
        let drainProgress = inFlight > 0 ? DrainProgress(inFlight: inFlight) : nil
        let left = server.shutdown(timeout: .seconds(drain)) { drainProgress?.update(inFlight: $0) }
        drainProgress?.reporter.finish()
        if left > 0 {
            printError("droptrack serve: \(left) sends were still in flight; they go again after their lease")
        }
        finished.disarm()
        return 0
    }

    /// The file (`--config` or `DROPTRACK_CONFIG`), then `DROPTRACK_*` variables, then options.
    static func loadConfiguration(_ args: Arguments) throws -> ServerConfiguration {
        do {
            var configuration = try ServerConfiguration.load(file: args.value("config"))
            if let value = args.value("listen") { configuration.listen = value }
            if let value = args.value("store") { configuration.store = value }
            if let value = args.value("apns-host") { configuration.apnsHost = value }
            if let value = args.value("fcm-base-url") { configuration.fcmBaseURL = value }
            if let value = args.value("ca-file") { configuration.caFile = value }
            if let value = args.value("log-level") { configuration.logLevel = value }
            try configuration.validate()
            return configuration
        } catch {
            throw CommandFailure("configuration: \(error)")
        }
    }
}

/// Ends the process if shutdown is not over in time: the HTTP server's stop is bounded, but SIGTERM must finish
/// whatever else hangs (a store or a provider connection that never answers).
final class ShutdownWatchdog: Sendable {
    private let disarmed = Mutex(false)

    init(after limit: Duration) {
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(min(max(0, seconds), 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            guard !disarmed.withLock({ $0 }) else { return }
            printError("droptrack serve: shutdown did not finish within \(limit); exiting anyway")
            // _exit, not exit: whatever hangs may hold locks that exit's handlers would wait for.
            _exit(1)
        }
    }

    func disarm() { disarmed.withLock { $0 = true } }
}

/// Turns the falling count of sends in flight into progress lines.
final class DrainProgress: Sendable {
    let reporter: ProgressReporter
    private let last: Mutex<Int>

    init(inFlight: Int) {
        reporter = ProgressReporter(label: "draining sends", total: max(inFlight, 1))
        last = Mutex(inFlight)
    }

    func update(inFlight: Int) {
        let done = last.withLock { last -> Int in
            defer { last = inFlight }
            return max(0, last - inFlight)
        }
        if done > 0 { reporter.advance(by: done) }
    }
}

/// `droptrack tokens import`: registers many tokens straight into the store.
enum TokensImportCommand: Command {
    static let path = ["tokens", "import"]
    static let abstract = "register many tokens from a JSON-lines file straight into the store"
    static let help = """
        USAGE: droptrack tokens import --config FILE --app ID --file TOKENS.jsonl [--store SPEC]

        Each line is one registration, as the API takes it plus its kind:
          {"kind": "push-to-start", "userId", "deviceId", "token", "environment", "attributesType"}
          {"kind": "activity", "activityId", "deviceId", "token", "environment"}
          {"kind": "fcm", "userId", "deviceId", "token"}
        Every line is checked first; if any is wrong, the errors are printed with their line numbers
        and nothing is written. Registration is an upsert, so importing a file again is harmless.
        Shows a count, a rate and an ETA while it writes. Safe while the server runs (SQLite WAL).

        OPTIONS:
          --config FILE   the server's configuration file (for the app and the store)
          --app ID        the app the tokens belong to
          --file FILE     the JSON-lines file (- for stdin)
          --store SPEC    override the configured store

        Every option can also be set as DROPTRACK_TOKENS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "file", "store"], switches: [],
            environmentPrefix: "DROPTRACK_TOKENS_")
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: try args.required("config"))
        } catch let error as ConfigurationError {
            throw CommandFailure("configuration: \(error)")
        }
        if let store = args.value("store") { configuration.store = store }
        let appID = try args.required("app")
        guard configuration.apps.contains(where: { $0.id == appID }) else {
            throw CommandFailure("no app '\(appID)' in the configuration")
        }
        let path = try args.required("file")
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("cannot read \(path)")
            }
            data = contents
        }
        let store = try DropTrackServer.openStore(configuration.store)
        // Late tokens get sends queued by the database's clock, as the replicas keep time.
        let clock = StoreClock(store: store)
        clock.synchronizeIfDue()
        let registry = ActivityRegistry(
            store: store, configuration: configuration, clock: clock, examiner: DoctorDeviceExaminer())
        var registrations: [ActivityRegistry.TokenRegistration] = []
        var problems: [String] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { continue }
            do {
                let value = try JSONValue.parse(bytes: Array(line))
                guard var object = value.objectValue else {
                    throw Refusal.invalid(code: .invalidBody, message: "each line must be a JSON object")
                }
                // The route's spelling (`push-to-start`, as the help shows) or the stored one (`push_to_start`).
                guard case .string(let kindName)? = object.removeValue(forKey: "kind"),
                    let kind = TokenKind(rawValue: kindName.replacingOccurrences(of: "-", with: "_"))
                else {
                    throw Refusal.invalid(
                        "kind", "'kind' is \"push-to-start\" (or \"push_to_start\"), \"activity\" or \"fcm\"")
                }
                registrations.append(
                    try registry.checkToken(app: appID, RegisterToken(kind: kind, json: .object(object))))
            } catch let error as Refusal {
                problems.append("line \(lineNumber): \(error.field.map { "\($0): " } ?? "")\(error.message)")
            } catch {
                problems.append("line \(lineNumber): not JSON (\(error))")
            }
        }
        guard problems.isEmpty else {
            for problem in problems.prefix(20) { printError(problem) }
            if problems.count > 20 { printError("… and \(problems.count - 20) more") }
            throw CommandFailure("\(problems.count) of \(lineNumber) lines are wrong; nothing was written")
        }
        let reporter = ProgressReporter(label: "importing tokens", total: registrations.count)
        let created: Int
        do {
            created = try registry.importTokens(app: appID, registrations) { reporter.advance(by: $0) }
        } catch {
            throw CommandFailure("\(error.message) (the lines before the failing batch are stored; run again)")
        }
        reporter.finish()
        print("\(registrations.count) tokens: \(created) new, \(registrations.count - created) already registered")
        return 0
    }
}
