import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackDoctor
import DropTrackModel
import DropTrackWire
import Foundation

/// `droptrack doctor`: every known silent-failure trap a push hits, each with its catalog id and a
/// one-line fix; or the app-build checklist.
enum DoctorCommand: Command {
    static let path = ["doctor"]
    static let abstract = "list the silent-failure traps a push hits, each with a one-line fix"
    static let help = """
        USAGE: droptrack doctor FILE|- [--now UNIX] [--token-environment sandbox|production]
                 [--contract NAME] [--client activitykit|expo-widgets] [--context FILE] [--json]
                 [--show-request]
               droptrack doctor --checklist [--json]
               droptrack doctor --explain DT-nnn

        Reads one push and lists every trap from the silent-failure catalog (DT-001 … DT-123) that
        it hits: APNs answers 200 and the phone shows nothing, FCM accepts and nothing is promoted.
        Each finding has the trap id, a severity, the header or JSON path at fault, what is wrong,
        and the fix. Nothing is sent anywhere.

        FILE (or - for standard input) is either
          - an HTTP-style dump: an optional request line (POST /3/device/<hex>, or a full URL),
            `name: value` header lines, a blank line, then the JSON body; or
          - a curl command line: -H/--header, -d/--data/--data-raw/--data-binary (with @file),
            -X, --cert and the URL, with shell quoting and backslash-newline continuations.
        An FCM push is recognised by its URL (/v1/projects/…/messages:send) or by a body shaped
        {"message": …}; anything else is taken as APNs.

        Device tokens appear only as fingerprints, and the authorization header is read (its claims
        and signature) but never printed.

        OPTIONS:
          --now UNIX               the moment of sending (default: now)
          --token-environment ENV  the environment the token was registered in: sandbox or production
          --contract NAME          check content-state against a contract: DeliveryAttributes is built in;
                                   other names must be defined under "contracts" in --context
          --client NAME            activitykit (default) or expo-widgets
          --context FILE           a JSON document of what a push alone cannot show: the token record,
                                   the device, the activity, the send history, the configuration, the
                                   channel, the provider's answer (keys: docs/how-to/troubleshooting.md)
          --json                   print a JSON array of {id, severity, field, message, fix}
          --show-request           first show the request as read (method, path, headers, body; tokens
                                   and credentials as fingerprints); with --json, print
                                   {"request": …, "findings": […]}
          --checklist              print the app-build checklist (traps only the app build shows)
          --explain DT-nnn         print the catalog's entry for one trap: what goes wrong, why,
                                   how DropTrack catches it, and the fix (docs/reference/traps.md)

        EXIT STATUS:
          0  no error-severity finding (warnings and notes may be listed)
          1  at least one error-severity finding
          2  a usage mistake (unknown option, unreadable file, bad --context, unknown trap id)

        Every option can also be set as DROPTRACK_DOCTOR_<OPTION>, e.g. DROPTRACK_DOCTOR_CONTEXT.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["now", "token-environment", "contract", "client", "context", "explain"],
            switches: ["json", "checklist", "show-request"], environmentPrefix: "DROPTRACK_DOCTOR_")
        let json = args.flag("json")
        if let id = args.value("explain") {
            guard args.positional.isEmpty else { throw UsageError("--explain takes no FILE") }
            do {
                print(try TrapCatalog.entry(id))
            } catch {
                throw UsageError("--explain: \(error)")
            }
            return 0
        }
        if args.flag("checklist") {
            guard args.positional.isEmpty else { throw UsageError("--checklist takes no FILE") }
            print(json ? checklistJSON() : checklistText())
            return 0
        }
        guard args.positional.count == 1, let file = args.positional.first else {
            throw UsageError(args.positional.isEmpty ? "FILE is required (or - for standard input)" : "give one FILE")
        }
        let context = try makeContext(args)
        let text = try readInput(file)
        let push: DoctorPush
        do {
            push = try DoctorRequestText.parse(text) { path in
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw DoctorInputError("cannot read \(path)")
                }
                return Array(data)
            }
        } catch {
            throw UsageError("\(file): \(error)")
        }
        let findings = Doctor.examine(push, context: context)
        let showRequest = args.flag("show-request")
        if json {
            let output: JSONValue =
                showRequest
                ? .object(["request": push.display, "findings": Doctor.json(findings)]) : Doctor.json(findings)
            print(String(decoding: output.serialized(), as: UTF8.self))
        } else {
            if showRequest { print(requestText(push.display)) }
            print(report(push, findings))
        }
        return findings.contains { $0.severity == .error } ? 1 : 0
    }

    /// The context file with the flags laid over it; `now` defaults to the clock.
    static func makeContext(_ args: Arguments) throws -> DoctorContext {
        var context = DoctorContext()
        if let file = args.value("context") {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("--context: cannot read file \(file)")
            }
            do {
                context = try DoctorContext.decode(from: Array(data))
            } catch {
                throw UsageError("--context \(file): \(error)")
            }
        }
        if let now = try args.integer("now") {
            context.now = Int64(now)
        } else if context.now == nil {
            context.now = Int64(Date().timeIntervalSince1970)
        }
        if let name = args.value("token-environment") {
            guard let environment = APNsEnvironment(name: name) else {
                throw UsageError("--token-environment must be sandbox or production, not '\(name)'")
            }
            var token = context.token ?? DoctorContext.Token()
            token.environment = environment
            context.token = token
        }
        if let name = args.value("client") {
            guard let client = DoctorContext.Client(rawValue: name) else {
                throw UsageError("--client must be activitykit or expo-widgets, not '\(name)'")
            }
            context.client = client
        }
        if let name = args.value("contract") {
            guard let contract = context.contracts?[name] ?? DoctorContract.builtIn[name] else {
                let known = Set(DoctorContract.builtIn.keys).union(context.contracts.map { Array($0.keys) } ?? [])
                    .sorted()
                throw UsageError(
                    "--contract: no contract '\(name)' (known: \(known.joined(separator: ", ")); define others under \"contracts\" in --context)"
                )
            }
            context.contract = contract
        }
        return context
    }

    static func readInput(_ file: String) throws -> String {
        if file == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UsageError("cannot read file \(file)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The request as read, for `--show-request`.
    static func requestText(_ display: JSONValue) -> String {
        var lines = ["request as read:"]
        let host = display["host"]?.stringValue.map {
            " \($0)\(display["port"]?.numberValue.map { ":\(JSONInteger.text($0))" } ?? "")"
        }
        lines.append("  \(display["method"]?.stringValue ?? "")\(host ?? "") \(display["path"]?.stringValue ?? "")")
        for header in display["headers"]?.arrayValue ?? [] {
            lines.append(
                "  \(header.arrayValue?.first?.stringValue ?? ""): \(header.arrayValue?.last?.stringValue ?? "")")
        }
        lines.append("")
        lines.append("  " + (display["body"]?.stringValue ?? ""))
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// Findings for a terminal: one block per finding, then the counts.
    static func report(_ push: DoctorPush, _ findings: [LintFinding]) -> String {
        var lines = [push.summary]
        if findings.isEmpty {
            lines.append("no known trap found")
            return lines.joined(separator: "\n")
        }
        for finding in findings {
            let severity = finding.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            lines.append("\(severity) \(finding.trap)  \(finding.field.map { "\($0): " } ?? "")\(finding.message)")
            lines.append("                 fix: \(finding.fix)")
        }
        func count(_ severity: LintFinding.Severity, _ word: String) -> String {
            let n = findings.filter { $0.severity == severity }.count
            return "\(n) \(word)\(n == 1 ? "" : "s")"
        }
        lines.append("")
        lines.append(
            [count(.error, "error"), count(.warning, "warning"), count(.info, "note")].joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    static func checklistText() -> String {
        var lines = [
            "App-build checklist: \(Doctor.checklist.count) traps only the app build shows (a server cannot see them)."
        ]
        for item in Doctor.checklist {
            lines.append("")
            lines.append("\(item.id) [\(item.platform)] \(item.title)")
            lines.append("       check: \(item.check)")
            if let symptom = item.serverSymptom { lines.append("       server sees: \(symptom)") }
        }
        lines.append("")
        lines.append(
            "Seen only on a device or in DropTrack's simulators: \(Doctor.simulatedTraps.joined(separator: ", ")).")
        return lines.joined(separator: "\n")
    }

    static func checklistJSON() -> String {
        let items = Doctor.checklist.map { item -> JSONValue in
            .object([
                "id": .string(item.id), "platform": .string(item.platform), "title": .string(item.title),
                "check": .string(item.check), "serverSymptom": item.serverSymptom.map(JSONValue.string) ?? .null,
            ])
        }
        return String(decoding: JSONValue.array(items).serialized(), as: UTF8.self)
    }
}
