import DropTrackCore
import DropTrackDispatch
import DropTrackProviders
import DropTrackRuntime
import DropTrackWire
import Foundation
import Synchronization

/// The version `droptrack --version` prints.
package let dropTrackVersion = "0.9.0"

/// One of DropTrack's two programs: `droptrack` (what production runs) or `droptrack-dev` (the demo, the
/// emulators and the benchmarks, which production never links). Each runs its own commands; between them they
/// share the arguments, the guidance and the environment check.
package struct CommandLineTool {
    /// The program's name, as a user types it.
    package let name: String
    /// One line under the name in `--help`.
    package let summary: String
    /// Its commands, in the order `--help` lists them.
    package let commands: [any Command.Type]
    /// The other program: its name and the variable prefixes its commands read, which this one must not call
    /// misspelt.
    package let sibling: (name: String, prefixes: [String])

    package init(
        name: String, summary: String, commands: [any Command.Type], sibling: (name: String, prefixes: [String])
    ) {
        self.name = name
        self.summary = summary
        self.commands = commands
        self.sibling = sibling
    }

    /// `--help` with no command.
    package var overview: String {
        let column = max(16, (commands.map { $0.path.joined(separator: " ").count }.max() ?? 0) + 2)
        let lines = commands.map {
            "  " + $0.path.joined(separator: " ").padding(toLength: column, withPad: " ", startingAt: 0) + $0.abstract
        }
        return """
            \(name): \(summary)

            USAGE: \(name) <command> [options]     \(name) <command> --help     \(name) --version

            COMMANDS:
            \(lines.joined(separator: "\n"))

            \(sibling.name) has the others.
            """
    }

    /// Parses the command line, runs the command it names and exits with its code.
    package func main() async -> Never {
        let argv = Array(processArguments().dropFirst())
        if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
            print(overview)
            exit(argv.isEmpty ? 2 : 0)
        }
        if argv == ["--version"] || argv == ["-V"] || argv == ["version"] {
            print("\(name) \(dropTrackVersion)")
            exit(0)
        }
        for warning in environmentWarnings(ProcessInfo.processInfo.environment) { printError(warning) }
        guard let command = commands.first(where: { Array(argv.prefix($0.path.count)) == $0.path }) else {
            printError(unknownCommandMessage(argv))
            exit(2)
        }
        let words = "\(name) \(command.path.joined(separator: " "))"
        let rest = Array(argv.dropFirst(command.path.count))
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help)
            exit(0)
        }
        do {
            exit(try await command.run(rest))
        } catch let error as UsageError {
            printError("\(words): \(error.message)\nrun '\(words) --help' for usage")
            exit(2)
        } catch let error as CommandFailure {
            printError("\(words): \(error.message)")
            exit(1)
        } catch {
            printError("\(words): \(error)")
            exit(1)
        }
    }

    // MARK: Guidance

    /// The full paths (`push apns`) of the commands that start with `word`.
    package func subcommands(of word: String) -> [String] {
        commands.filter { $0.path.count > 1 && $0.path[0] == word }.map { $0.path.joined(separator: " ") }
    }

    /// The message for arguments that select no command: the nearest command, or the other program's.
    package func unknownCommandMessage(_ argv: [String]) -> String {
        let first = argv[0]
        if let elsewhere = CommandLineTool.elsewhere[argv.prefix(2).joined(separator: " ")]
            ?? CommandLineTool.elsewhere[first], elsewhere != name
        {
            return "\(name): '\(argv.prefix(2).joined(separator: " "))' is a command of \(elsewhere): run "
                + "'\(elsewhere) \(argv.joined(separator: " "))'"
        }
        let under = subcommands(of: first)
        if !under.isEmpty {
            let second = argv.count > 1 && !argv[1].hasPrefix("-") ? argv[1] : nil
            let known = under.map { "'\(name) \($0)'" }.joined(separator: ", ")
            guard let second else {
                return "\(name): '\(first)' needs a subcommand: \(known)"
            }
            let names = under.map { String($0.split(separator: " ").last ?? "") }
            let hint = KeySuggestion.nearest(second, among: names).map { "; did you mean '\(first) \($0)'?" } ?? ""
            return "\(name): unknown command '\(first) \(second)'\(hint)\n'\(first)' has: \(known)"
        }
        let words = Set(commands.map { $0.path[0] })
        let hint = KeySuggestion.nearest(first, among: words).map { "; did you mean '\($0)'?" } ?? ""
        return "\(name): unknown command '\(argv.prefix(2).joined(separator: " "))'\(hint)\n\n\(overview)"
    }

    /// `droptrack-dev`, as `droptrack` sees it: the variable prefixes of its commands.
    package static let developmentSibling = (
        name: "droptrack-dev",
        prefixes: [
            "DROPTRACK_DEMO_", "DROPTRACK_EMULATE_APNS_", "DROPTRACK_EMULATE_FCM_", "DROPTRACK_BENCH_",
            "DROPTRACK_KEYS_",
        ]
    )

    /// `droptrack`, as `droptrack-dev` sees it: the variable prefixes of its commands (the server's own
    /// `DROPTRACK_*` keys are known to both).
    package static let productionSibling = (
        name: "droptrack",
        prefixes: [
            "DROPTRACK_APPS_", "DROPTRACK_DEVICE_KEY_", "DROPTRACK_DOCTOR_", "DROPTRACK_APNS_", "DROPTRACK_FCM_",
            "DROPTRACK_TOKENS_", "DROPTRACK_WEBHOOK_",
        ]
    )

    /// The commands that moved to `droptrack-dev`, so `droptrack emulate apns` says where it went.
    static let elsewhere: [String: String] = [
        "demo": "droptrack-dev", "emulate": "droptrack-dev", "emulate apns": "droptrack-dev",
        "emulate fcm": "droptrack-dev", "bench": "droptrack-dev", "bench apns": "droptrack-dev",
        "bench fcm": "droptrack-dev", "bench broadcast": "droptrack-dev", "keys dev": "droptrack-dev",
    ]

    // MARK: The environment

    /// Every variable this program's commands or the server configuration read.
    package var knownVariables: Set<String> {
        var names = Set(ServerConfiguration.keys.map(\.variable))
        names.insert("DROPTRACK_CONFIG")
        for command in commands {
            for prefix in EnvironmentCheck.prefixes(in: command.help) {
                for flag in EnvironmentCheck.flags(in: command.help) {
                    names.insert(Arguments.environmentName(prefix: prefix, flag: flag))
                }
            }
        }
        return names
    }

    /// One warning per `DROPTRACK_` variable nothing reads, with the nearest known name when there is one.
    /// Variables under the other program's prefixes are its business.
    package func environmentWarnings(_ environment: [String: String]) -> [String] {
        let known = knownVariables
        let left = EnvironmentCheck.reservedPrefixes + sibling.prefixes
        return environment.keys.sorted().compactMap { variable -> String? in
            guard variable.hasPrefix("DROPTRACK_"), !known.contains(variable),
                !left.contains(where: { variable.hasPrefix($0) })
            else { return nil }
            let hint = KeySuggestion.nearest(variable, among: known).map { "; did you mean \($0)?" } ?? ""
            return "\(name): warning: no command reads the environment variable \(variable)\(hint)"
        }
    }
}

/// Reads the variables a command's help names.
package enum EnvironmentCheck {
    /// Prefixes reserved for tools other than the CLI (the test suites).
    package static let reservedPrefixes = ["DROPTRACK_TEST_"]

    /// `DROPTRACK_APNS_` from "Every option can also be set as DROPTRACK_APNS_<OPTION>".
    package static func prefixes(in help: String) -> [String] {
        var found: [String] = []
        var rest = Substring(help)
        while let range = rest.range(of: "<OPTION>") {
            let before = rest[..<range.lowerBound]
            let word = before.reversed().prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
            let prefix = String(word.reversed())
            if prefix.hasPrefix("DROPTRACK_") { found.append(prefix) }
            rest = rest[range.upperBound...]
        }
        return found
    }

    /// Every `--flag` a help text names.
    package static func flags(in help: String) -> Set<String> {
        var flags: Set<String> = []
        let characters = Array(help)
        var index = 0
        while index + 2 < characters.count {
            if characters[index] == "-", characters[index + 1] == "-", characters[index + 2].isLetter,
                index == 0 || !(characters[index - 1].isLetter || characters[index - 1] == "-")
            {
                var end = index + 2
                while end < characters.count,
                    characters[end].isLowercase || characters[end].isNumber || characters[end] == "-"
                {
                    end += 1
                }
                flags.insert(String(characters[(index + 2)..<end]).trimmingCharacters(in: ["-"]))
                index = end
            } else {
                index += 1
            }
        }
        return flags
    }
}

/// What the doctor finds in a push before the CLI sends it.
package enum PushFindings {
    /// The findings as lines for standard error, with the trap id, the message and the fix.
    package static func lines(_ findings: [LintFinding]) -> [String] {
        findings.flatMap { finding -> [String] in
            [
                "\(finding.severity.rawValue) \(finding.trap): \(finding.field.map { "\($0): " } ?? "")\(finding.message)",
                "    fix: \(finding.fix)",
            ]
        }
    }

    /// Prints the findings; returns the exit code that stops the command (1 on an error-level
    /// finding unless `force`), or nil to go on.
    package static func report(
        _ findings: [LintFinding], command: String, force: Bool, dryRun: Bool, redact: (String) -> String = { $0 }
    ) -> Int32? {
        for line in lines(findings) { printError(redact(line)) }
        let errors = findings.filter { $0.severity == .error }.count
        guard errors > 0 else { return nil }
        if force {
            printError(
                "droptrack \(command): the doctor found \(errors) error\(errors == 1 ? "" : "s"); --force: going on")
            return nil
        }
        let what = dryRun ? "this push would fail" : "not sent"
        printError(
            "droptrack \(command): \(what): the doctor found \(errors) error\(errors == 1 ? "" : "s") (above; `droptrack doctor --explain DT-nnn` for more); fix the push, or pass --force to send it anyway"
        )
        return 1
    }
}

/// Watches an HTTP/2 client's log for a TLS certificate-verification failure, so a send that
/// can only fail the same way again does not wait out its deadline.
package final class CertificateFailureWatch: LogHandler {
    package init() {}

    private let state = Mutex<(failure: String?, listener: (@Sendable (String) -> Void)?)>((nil, nil))

    /// A logger over this watch for a client.
    package var logger: Logger { Logger(handler: self, minimumLevel: .warning) }

    package func log(_ entry: LogEntry) {
        guard entry.message == "http2.connect_failed", let error = entry.metadata["error"],
            TLSFailure.isCertificateVerification(error)
        else { return }
        let listener = state.withLock { state -> (@Sendable (String) -> Void)? in
            guard state.failure == nil else { return nil }
            state.failure = error
            return state.listener
        }
        listener?(error)
    }

    /// Runs `send`, resolving with its result or, sooner, with the certificate failure.
    package func race<Result: Sendable>(_ send: (@escaping @Sendable (Result) -> Void) -> Void) async
        -> Swift.Result<
            Result, CertificateFailure
        >
    {
        await withCheckedContinuation { continuation in
            let once = OnceFlag()
            let failure = state.withLock { state -> String? in
                state.listener = { error in
                    if once.claim() { continuation.resume(returning: .failure(CertificateFailure(message: error))) }
                }
                return state.failure
            }
            if let failure, once.claim() {
                continuation.resume(returning: .failure(CertificateFailure(message: failure)))
                return
            }
            send { result in
                if once.claim() { continuation.resume(returning: .success(result)) }
            }
        }
    }

    /// The handshake failed on the server's certificate.
    package struct CertificateFailure: Error {
        package var message: String

        /// What to print: the failure, then the flag that fixes it.
        package var explanation: String {
            "not sent: \(message).\n\(TLSFailure.advice)\nThis is configuration, not a passing fault, so droptrack did not retry."
        }
    }
}

/// Token formats as the server checks them at registration.
package enum TokenFormat {
    /// APNs tokens: hex of the token bytes, 32 bytes or more (Live Activity tokens run longer).
    package static let apnsHexDigits = 64...1024

    /// A usage error for an APNs `--token` that cannot be a token, or nil.
    package static func apnsProblem(_ token: String) -> UsageError? {
        guard APNsPush.isHexToken(token) else {
            let shown = token.count > 12 ? "\(token.count) characters" : "'\(token)'"
            return UsageError(
                "--token must be the hex of the token's bytes (an even number of 0-9a-f digits), not \(shown); copy the token the app logged, e.g. from pushTokenUpdates as %02x hex"
            )
        }
        guard apnsHexDigits.contains(token.count) else {
            return UsageError(
                "--token has \(token.count) hex digits; APNs tokens have \(apnsHexDigits.lowerBound) to \(apnsHexDigits.upperBound) (32 bytes or more; Live Activity tokens are often 80); pass the whole token, not a part of it"
            )
        }
        return nil
    }

    /// A usage error for an FCM `--token` that cannot be a registration token, or nil.
    package static func fcmProblem(_ token: String) -> UsageError? {
        guard FCMMessage.isPlausibleToken(token) else {
            return UsageError(
                "--token must be an FCM registration token (printable ASCII, no spaces, at most 4096 bytes); copy the one FirebaseMessaging.getToken() returned"
            )
        }
        guard token.utf8.count >= 32 else {
            return UsageError(
                "--token has \(token.utf8.count) characters; FCM registration tokens are much longer (usually over 140); pass the whole token"
            )
        }
        return nil
    }
}

/// Words after a failure to listen: when the port is taken, how to pick another.
package func listenHint(_ error: any Error, flag: String = "--listen") -> String {
    let text = "\(error)".lowercased()
    guard text.contains("in use") else { return "" }
    return
        "\nanother process is listening on that port: pick another with \(flag) 127.0.0.1:PORT (or stop the other process)"
}
