import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDoctor
import DropTrackModel
import DropTrackProviders
import DropTrackWire
import Foundation
import Synchronization

/// `droptrack push fcm`: one FCM data message, with the error code and remedy in words.
enum PushFCMCommand: Command {
    static let path = ["push", "fcm"]
    static let abstract = "send one FCM data message (an Android Live Update) and explain the answer"
    static let help = """
        USAGE: droptrack push fcm --token T --service-account FILE
                 (--event start|update|end --activity-id ID --state JSON|@FILE [--order-id ID] [--sequence N]
                  | --data JSON|@FILE)
                 [--priority high|normal] [--ttl SECONDS] [--collapse-key K] [--base-url URL] [--ca-file PEM]
                 [--validate-only] [--dry-run] [--force]

        Gets an OAuth2 access token for the service account (RS256 assertion to its token_uri), then
        POSTs {base}/v1/projects/{project}/messages:send. --event builds the DropTrack Live Update data map
        (every value a string; --state takes the contract's content-state, with "eta" or the handbook's
        "etaEpochMillis"). --data sends your own map; every value must be a string.

        Before sending (and with --dry-run) it runs the doctor on the message and prints every
        silent-failure trap it hits, with the trap id and the fix; an error-level finding stops the
        message (exit 1) unless --force. On success it prints the message name. On failure it prints the FCM error code and what to do,
        and exits 1.

        OPTIONS:
          --token T               the FCM registration token
          --service-account FILE  the service-account key JSON
          --event EVENT           start, update or end
          --activity-id ID        your activity id (the app keys its notification on it)
          --state JSON|@FILE      the content-state
          --order-id ID           the order (default: the activity id)
          --sequence N            a number that only goes up per activity (default: now, Unix seconds)
          --data JSON|@FILE       a raw data map instead of --event/--state
          --priority P            high (default) or normal
          --ttl SECONDS           android.ttl (0 = now or never)
          --collapse-key K        android.collapse_key
          --base-url URL          FCM's base URL (default https://fcm.googleapis.com)
          --ca-file PEM           trust this CA instead of the system store
          --validate-only         ask FCM to validate without delivering
          --dry-run               print the JSON instead of sending
          --force                 send even when the doctor finds an error

        Every option can also be set as DROPTRACK_FCM_<OPTION>, e.g. DROPTRACK_FCM_SERVICE_ACCOUNT.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "token", "service-account", "event", "activity-id", "state", "order-id", "sequence", "data", "priority",
                "ttl", "collapse-key", "base-url", "ca-file",
            ],
            switches: ["dry-run", "validate-only", "force"], environmentPrefix: "DROPTRACK_FCM_")
        let token = try args.required("token")
        if let problem = TokenFormat.fcmProblem(token) { throw problem }
        let data = try dataMap(args)
        let priority: FCMMessage.Priority
        switch (args.value("priority") ?? "high").lowercased() {
        case "high": priority = .high
        case "normal": priority = .normal
        default: throw UsageError("--priority must be high or normal")
        }
        let ttl = try args.value("ttl").map { text in
            guard let seconds = Double(text), seconds >= 0 else { throw UsageError("--ttl must be seconds, 0 or more") }
            return seconds
        }
        let message = FCMMessage(
            target: .token(token), data: data, priority: priority, ttl: ttl, collapseKey: args.value("collapse-key"))
        do throws(FCMRequestError) { try message.validate() } catch {
            throw CommandFailure("not sent: \(error.message) [\(error.field)]")
        }
        let redact = { (line: String) in line.replacingOccurrences(of: token, with: "<token \(Fingerprint(of: token))>")
        }
        // The doctor reads the project from the URL; a dry run may have no service account at hand.
        let project = args.value("service-account").flatMap { try? GoogleServiceAccount(file: $0).projectID } ?? "-"
        let findings = Doctor.examine(
            DoctorPush(message, projectID: project),
            context: DoctorContext(
                now: SystemWallClock().unixSeconds(),
                contract: args.value("event") != nil ? DoctorContract.delivery : nil,
                contracts: DoctorContract.builtIn))
        if args.flag("dry-run") {
            let body = message.requestBody(validateOnly: args.flag("validate-only"))
            print(redact(String(decoding: body, as: UTF8.self)))
            fflush(nil)
            return PushFindings.report(
                findings, command: "push fcm", force: args.flag("force") || args.value("data") != nil, dryRun: true,
                redact: redact) ?? 0
        }
        if let stop = PushFindings.report(
            findings, command: "push fcm", force: args.flag("force") || args.value("data") != nil, dryRun: false,
            redact: redact)
        {
            return stop
        }
        let account: GoogleServiceAccount
        do { account = try GoogleServiceAccount(file: try args.required("service-account")) } catch let error
            as ServiceAccountError
        {
            throw CommandFailure(error.message)
        }
        let watch = CertificateFailureWatch()
        let client = try FCMClient(
            configuration: FCMClientConfiguration(
                account: account, baseURL: args.value("base-url") ?? "https://fcm.googleapis.com",
                caFile: args.value("ca-file"), maxConnections: 1),
            logger: watch.logger)
        defer { client.shutdown() }
        let result: FCMSendResult
        switch await watch.race({ client.send(message, validateOnly: args.flag("validate-only"), completion: $0) }) {
        case .success(let answer): result = answer
        case .failure(let failure):
            printError(failure.explanation)
            return 1
        }
        if result.isSuccess, let answer = result.result {
            print("\(answer.status) accepted  name: \(answer.messageName ?? "-")")
            print("latency: \(result.latency)  data: \(FCMLimits.size(of: data)) bytes  priority: \(priority.rawValue)")
            return 0
        }
        printError(result.explanation.replacingOccurrences(of: token, with: "<token \(Fingerprint(of: token))>"))
        return 1
    }

    static func dataMap(_ args: Arguments) throws -> [String: String] {
        if let raw = try args.jsonText("data") {
            guard args.value("event") == nil, args.value("state") == nil else {
                throw UsageError("give either --data or --event with --state, not both")
            }
            guard let object = (try? JSONValue.parse(raw))?.objectValue else {
                throw UsageError("--data must be a JSON object")
            }
            var map: [String: String] = [:]
            for (key, value) in object {
                guard let text = value.stringValue else {
                    throw UsageError(
                        "--data: the value of '\(key)' is a \(value.typeName); FCM data values must be strings (write \"\(String(decoding: value.serialized(), as: UTF8.self))\")"
                    )
                }
                map[key] = text
            }
            return map
        }
        let eventName = try args.required("event")
        guard let event = DeliveryLiveUpdate.Event(rawValue: eventName) else {
            throw UsageError("--event must be start, update or end, not '\(eventName)'")
        }
        let activityID = try args.required("activity-id")
        guard let stateText = try args.jsonText("state") else { throw UsageError("--state is required with --event") }
        let state: DeliveryAttributes.ContentState
        do { state = try DeliveryAttributes.ContentState.fromFlexibleJSON(Data(stateText.utf8)) } catch let error
            as ContentStateInputError
        {
            throw UsageError("--state: \(error.message)")
        }
        let sequence = try args.value("sequence").map { text in
            guard let value = Int64(text) else { throw UsageError("--sequence must be a whole number") }
            return value
        }
        return DeliveryLiveUpdate.encode(
            .init(
                activityId: activityID, event: event, orderId: args.value("order-id") ?? activityID, state: state,
                sequence: sequence ?? SystemWallClock().unixSeconds()))
    }
}
