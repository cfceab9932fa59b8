import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDoctor
import DropTrackModel
import DropTrackProviders
import DropTrackWire
import Foundation

/// `droptrack push apns`: one Live Activity push, done right, with the reason and remedy in words.
enum PushAPNsCommand: Command {
    static let path = ["push", "apns"]
    static let abstract = "send one Live Activity push to APNs (or the emulator) and explain the answer"
    static let help = """
        USAGE: droptrack push apns --token HEX --event start|update|end --state JSON|@FILE
                 [--attributes JSON|@FILE --attributes-type NAME --alert-title T --alert-body B]
                 [--stale-date UNIX] [--dismissal-date UNIX] [--relevance-score N] [--priority 5|10]
                 [--expiration UNIX] [--timestamp UNIX] [--apns-id UUID] [--collapse-id ID]
                 [--input-push-channel ID] [--no-input-push-token] [--token-environment ENV]
                 --key FILE.p8 --key-id ID --team-id ID --bundle-id ID
                 [--env sandbox|production | --host HOST:PORT] [--ca-file PEM] [--timeout SECONDS] [--dry-run]
                 [--force]

        Builds the push exactly as APNs requires (topic <bundle>.push-type.liveactivity, push type
        liveactivity, an integer Unix timestamp, the ES256 provider token), checks it before sending
        (4096-byte limit, token format, start fields), runs the doctor on it (the silent-failure traps
        of `droptrack doctor`, each with its id and fix, also with --dry-run), sends it over HTTP/2, and
        prints the status and apns-id. An error-level finding stops the push (exit 1) unless --force.
        On failure it prints the reason and what to do, and exits 1.

        --state takes any JSON object. For the DropTrack contract (DeliveryAttributes) it also takes the
        handbook's form with "etaEpochMillis" (Unix ms) and converts it to "eta" in seconds since
        2001-01-01, which is what ActivityKit decodes.

        OPTIONS:
          --token HEX              the activity's update token, or a push-to-start token for --event start
          --event EVENT            start, update or end
          --state JSON|@FILE       the content-state
          --attributes JSON|@FILE  start only: the static attributes
          --attributes-type NAME   start only: the ActivityAttributes type name (default DeliveryAttributes)
          --alert-title/--alert-body  the alert (required for start)
          --stale-date UNIX        when the card turns stale
          --dismissal-date UNIX    end only: when the ended card leaves the Lock Screen
          --relevance-score N      ordering among several activities
          --priority 5|10          default 10 for start and end, 5 for update
          --expiration UNIX        apns-expiration (0 = try once)
          --timestamp UNIX         aps.timestamp (default now)
          --input-push-channel ID  start only (iOS 18): subscribe to a broadcast channel
          --no-input-push-token    start only: leave out input-push-token
          --token-environment ENV  the environment the token was registered in (checks BadDeviceToken)
          --key FILE.p8            the APNs auth key
          --key-id/--team-id/--bundle-id   from your Apple developer account
          --env ENV                sandbox (default) or production: Apple's hosts
          --host HOST:PORT         a custom host instead, e.g. the emulator
          --ca-file PEM            trust this CA instead of the system store
          --timeout SECONDS        request deadline (default 10)
          --dry-run                print the headers and JSON instead of sending (secrets shown as fingerprints)
          --force                  send even when the doctor finds an error

        Every option can also be set as DROPTRACK_APNS_<OPTION>, e.g. DROPTRACK_APNS_KEY_ID.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "token", "event", "state", "attributes", "attributes-type", "alert-title", "alert-body", "stale-date",
                "dismissal-date", "relevance-score", "priority", "expiration", "timestamp", "apns-id", "collapse-id",
                "input-push-channel", "token-environment", "key", "key-id", "team-id", "bundle-id", "env", "host",
                "ca-file", "timeout",
            ],
            switches: ["dry-run", "no-input-push-token", "force"], environmentPrefix: "DROPTRACK_APNS_")
        let token = try args.required("token").lowercased()
        let eventName = try args.required("event")
        guard let event = LiveActivityEvent(rawValue: eventName) else {
            throw UsageError("--event must be start, update or end, not '\(eventName)'")
        }
        let attributesType = args.value("attributes-type") ?? DeliveryAttributes.typeName
        let state = try contentState(try args.jsonText("state"), attributesType: attributesType)
        var start: LiveActivityStart? = nil
        var alert: LiveActivityAlert? = nil
        if let title = args.value("alert-title") ?? args.value("alert-body").map({ _ in "" }) {
            alert = LiveActivityAlert(title: title, body: args.value("alert-body") ?? "")
        }
        if event == .start {
            guard let attributesText = try args.jsonText("attributes") else {
                throw UsageError("--event start needs --attributes (the static ActivityAttributes fields)")
            }
            guard let attributes = try? JSONValue.parse(attributesText), attributes.objectValue != nil else {
                throw UsageError("--attributes must be a JSON object")
            }
            guard alert != nil else {
                throw UsageError(
                    "--event start needs --alert-title (a start without an alert is accepted by APNs and never shown)")
            }
            start = LiveActivityStart(
                attributesType: attributesType, attributes: attributes,
                inputPushToken: !args.flag("no-input-push-token"),
                inputPushChannel: args.value("input-push-channel"))
        } else if args.value("attributes") != nil {
            throw UsageError("--attributes is only for --event start")
        }
        if let problem = TokenFormat.apnsProblem(token) { throw problem }
        let clock = SystemWallClock()
        let priority = try args.integer("priority") ?? (event == .update && alert == nil ? 5 : 10)
        let tokenEnvironment = try args.value("token-environment").map { name in
            guard let environment = APNsEnvironment(name: name) else {
                throw UsageError("--token-environment must be sandbox or production")
            }
            return environment
        }
        let payload = LiveActivityPayload(
            event: event, timestamp: try int64(args, "timestamp") ?? clock.unixSeconds(), contentState: state,
            staleDate: try int64(args, "stale-date"), dismissalDate: try int64(args, "dismissal-date"),
            relevanceScore: try args.value("relevance-score").map { text in
                guard let value = Double(text) else { throw UsageError("--relevance-score must be a number") }
                return value
            }, alert: alert, start: start)
        let push = APNsPush(
            deviceToken: token, bundleID: try args.required("bundle-id"), payload: try payload.encoded(),
            priority: priority,
            expiration: try int64(args, "expiration"), apnsID: args.value("apns-id"),
            collapseID: args.value("collapse-id"),
            tokenEnvironment: tokenEnvironment)
        do throws(APNsRequestError) { try push.validate() } catch {
            throw CommandFailure("not sent: \(error.message) [\(error.field)]")
        }
        let endpoint = try endpoint(args)
        let key: PrivateKey
        do { key = try PrivateKey(pemFile: try args.required("key"), expected: .es256) } catch let error as CryptoError
        {
            throw CommandFailure(error.message)
        }
        let providerToken: APNsProviderToken
        do {
            providerToken = try APNsProviderToken(
                key: key, keyID: try args.required("key-id"), teamID: try args.required("team-id"))
        } catch let error as APNsConfigurationError { throw UsageError("--\(error.field): \(error.message)") }

        let jwt = try providerToken.current()
        let findings = Doctor.examine(
            DoctorPush(push, authorization: "bearer \(jwt)"),
            context: doctorContext(
                push: push, environment: endpoint.environment, tokenEnvironment: tokenEnvironment,
                contract: usesContract(try args.jsonText("state"), attributesType: attributesType),
                now: clock.unixSeconds()))
        let redact = { (line: String) in line.replacingOccurrences(of: token, with: "<token \(Fingerprint(of: token))>")
        }
        if args.flag("dry-run") {
            print(":method: POST")
            print(":path: /3/device/<token \(Fingerprint(of: token))>")
            print(":authority: \(endpoint.pushHost):\(endpoint.pushPort)")
            print("authorization: bearer <provider token \(Fingerprint(of: jwt))>")
            for header in push.headers { print("\(header.name): \(header.value)") }
            print("")
            print(String(decoding: push.payload, as: UTF8.self))
            fflush(nil)
            return PushFindings.report(
                findings, command: "push apns", force: args.flag("force"), dryRun: true, redact: redact) ?? 0
        }
        if let stop = PushFindings.report(
            findings, command: "push apns", force: args.flag("force"), dryRun: false, redact: redact)
        {
            return stop
        }
        let timeout = try args.integer("timeout") ?? 10
        let watch = CertificateFailureWatch()
        let client = try APNsClient(
            configuration: APNsClientConfiguration(
                bundleID: push.bundleID, providerToken: providerToken, endpoint: endpoint,
                caFile: args.value("ca-file"),
                requestTimeout: .seconds(timeout), maxConnections: 1),
            logger: watch.logger)
        defer { client.shutdown() }
        let result: APNsSendResult
        switch await watch.race({ client.send(push, completion: $0) }) {
        case .success(let answer): result = answer
        case .failure(let failure):
            printError(failure.explanation)
            return 1
        }
        if result.isSuccess, let answer = result.result {
            print(
                "\(answer.status) accepted  apns-id: \(answer.apnsID ?? "-")\(answer.apnsUniqueID.map { "  apns-unique-id: \($0)" } ?? "")"
            )
            print("latency: \(result.latency)  payload: \(push.payload.count) bytes  priority: \(priority)")
            return 0
        }
        printError(result.explanation)
        if let id = result.result?.apnsID { printError("apns-id: \(id)") }
        return 1
    }

    /// Whether the doctor checks `--state` against the DropTrack contract: when the state is the
    /// contract's (it has "eta" or "etaEpochMillis"), as `contentState` reads it.
    static func usesContract(_ text: String?, attributesType: String) -> Bool {
        guard attributesType == DeliveryAttributes.typeName, let text,
            let object = (try? JSONValue.parse(text))?.objectValue
        else { return false }
        return object["etaEpochMillis"] != nil || object["eta"] != nil
    }

    /// What the doctor knows besides the push: the clock, the app, the environment, the contract.
    static func doctorContext(
        push: APNsPush, environment: APNsEnvironment, tokenEnvironment: APNsEnvironment?, contract: Bool, now: Int64
    ) -> DoctorContext {
        var context = DoctorContext(
            now: now, contract: contract ? DoctorContract.delivery : nil, contracts: DoctorContract.builtIn,
            config: DoctorContext.Configuration(bundleId: push.bundleID, environment: environment, authMode: .token))
        if let tokenEnvironment { context.token = DoctorContext.Token(environment: tokenEnvironment) }
        return context
    }

    static func int64(_ args: Arguments, _ name: String) throws -> Int64? {
        guard let text = args.value(name) else { return nil }
        guard let value = Int64(text) else {
            throw UsageError("--\(name) must be a Unix time in whole seconds, not '\(text)'")
        }
        return value
    }

    /// Reads `--state`, converting the handbook's `etaEpochMillis` for the DropTrack contract.
    static func contentState(_ text: String?, attributesType: String) throws -> JSONValue {
        guard let text else { throw UsageError("--state is required (a JSON object or @FILE)") }
        guard let value = try? JSONValue.parse(text), let object = value.objectValue else {
            throw UsageError("--state must be a JSON object")
        }
        guard attributesType == DeliveryAttributes.typeName, object["etaEpochMillis"] != nil || object["eta"] != nil
        else {
            return value
        }
        do {
            let state = try DeliveryAttributes.ContentState.fromFlexibleJSON(Data(text.utf8))
            return try JSONValue.parse(LiveActivityJSON.encode(state))
        } catch let error as ContentStateInputError {
            throw UsageError("--state: \(error.message)")
        }
    }

    static func endpoint(_ args: Arguments) throws -> APNsEndpoint {
        if let host = args.value("host") {
            guard let (name, port) = APNsEndpoint.parseHostPort(host) else {
                throw UsageError("--host must be HOST:PORT, e.g. 127.0.0.1:2197")
            }
            let environment = try args.value("env").map { text in
                guard let environment = APNsEnvironment(name: text) else {
                    throw UsageError("--env must be sandbox or production")
                }
                return environment
            }
            return .custom(host: name, port: port, environment: environment ?? .sandbox)
        }
        let name = args.value("env") ?? "sandbox"
        guard let environment = APNsEnvironment(name: name) else {
            throw UsageError("--env must be sandbox or production, not '\(name)'")
        }
        return .apple(environment)
    }
}
