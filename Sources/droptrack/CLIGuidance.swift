import DropTrackCore
import DropTrackDispatch
import DropTrackProviders
import DropTrackRuntime
import DropTrackWire
import Foundation
import Synchronization

/// The version `droptrack --version` prints.
let dropTrackVersion = "0.9.0"

/// What the command line can be told when it names no command: the words that start a command,
/// the subcommands under a word, and the nearest command for a misspelling.
@MainActor enum CommandWords {
    /// The full paths (`push apns`) of the commands that start with `word`.
    static func subcommands(of word: String) -> [String] {
        commands.filter { $0.path.count > 1 && $0.path[0] == word }.map { $0.path.joined(separator: " ") }
    }

    /// The message for arguments that select no command, or nil to show the overview.
    static func unknownCommandMessage(_ argv: [String]) -> String {
        let first = argv[0]
        let under = subcommands(of: first)
        if !under.isEmpty {
            let second = argv.count > 1 && !argv[1].hasPrefix("-") ? argv[1] : nil
            let known = under.map { "'droptrack \($0)'" }.joined(separator: ", ")
            guard let second else {
                return "droptrack: '\(first)' needs a subcommand: \(known)"
            }
            let names = under.map { String($0.split(separator: " ").last ?? "") }
            let hint = KeySuggestion.nearest(second, among: names).map { "; did you mean '\(first) \($0)'?" } ?? ""
            return "droptrack: unknown command '\(first) \(second)'\(hint)\n'\(first)' has: \(known)"
        }
        let words = Set(commands.map { $0.path[0] })
        let hint = KeySuggestion.nearest(first, among: words).map { "; did you mean '\($0)'?" } ?? ""
        return "droptrack: unknown command '\(argv.prefix(2).joined(separator: " "))'\(hint)\n\n\(overview)"
    }
}

/// Warns about `DROPTRACK_*` variables that no command reads: a misspelt variable is otherwise
/// ignored without a word.
@MainActor enum EnvironmentCheck {
    /// Every variable some command or the server configuration reads.
    static let known: Set<String> = {
        var names = Set(ServerConfiguration.keys.map(\.variable))
        names.insert("DROPTRACK_CONFIG")
        for command in commands {
            for prefix in prefixes(in: command.help) {
                for flag in flags(in: command.help) {
                    names.insert(Arguments.environmentName(prefix: prefix, flag: flag))
                }
            }
        }
        return names
    }()

    /// Prefixes reserved for tools other than the CLI (the test suites).
    static let reservedPrefixes = ["DROPTRACK_TEST_"]

    /// One warning per unknown `DROPTRACK_` variable, with the nearest known name when there is one.
    static func warnings(_ environment: [String: String]) -> [String] {
        environment.keys.sorted().compactMap { name -> String? in
            guard name.hasPrefix("DROPTRACK_"), !known.contains(name),
                !reservedPrefixes.contains(where: { name.hasPrefix($0) })
            else { return nil }
            let hint = KeySuggestion.nearest(name, among: known).map { "; did you mean \($0)?" } ?? ""
            return "droptrack: warning: no command reads the environment variable \(name)\(hint)"
        }
    }

    /// `DROPTRACK_APNS_` from "Every option can also be set as DROPTRACK_APNS_<OPTION>".
    static func prefixes(in help: String) -> [String] {
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
    static func flags(in help: String) -> Set<String> {
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
enum PushFindings {
    /// The findings as lines for standard error, with the trap id, the message and the fix.
    static func lines(_ findings: [LintFinding]) -> [String] {
        findings.flatMap { finding -> [String] in
            [
                "\(finding.severity.rawValue) \(finding.trap): \(finding.field.map { "\($0): " } ?? "")\(finding.message)",
                "    fix: \(finding.fix)",
            ]
        }
    }

    /// Prints the findings; returns the exit code that stops the command (1 on an error-level
    /// finding unless `force`), or nil to go on.
    static func report(
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
final class CertificateFailureWatch: LogHandler {
    private let state = Mutex<(failure: String?, listener: (@Sendable (String) -> Void)?)>((nil, nil))

    /// A logger over this watch for a client.
    var logger: Logger { Logger(handler: self, minimumLevel: .warning) }

    func log(_ entry: LogEntry) {
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
    func race<Result: Sendable>(_ send: (@escaping @Sendable (Result) -> Void) -> Void) async
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
    struct CertificateFailure: Error {
        var message: String

        /// What to print: the failure, then the flag that fixes it.
        var explanation: String {
            "not sent: \(message).\n\(TLSFailure.advice)\nThis is configuration, not a passing fault, so droptrack did not retry."
        }
    }
}

/// Token formats as the server checks them at registration.
enum TokenFormat {
    /// APNs tokens: hex of the token bytes, 32 bytes or more (Live Activity tokens run longer).
    static let apnsHexDigits = 64...1024

    /// A usage error for an APNs `--token` that cannot be a token, or nil.
    static func apnsProblem(_ token: String) -> UsageError? {
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
    static func fcmProblem(_ token: String) -> UsageError? {
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
func listenHint(_ error: any Error, flag: String = "--listen") -> String {
    let text = "\(error)".lowercased()
    guard text.contains("in use") else { return "" }
    return
        "\nanother process is listening on that port: pick another with \(flag) 127.0.0.1:PORT (or stop the other process)"
}
