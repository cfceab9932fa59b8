import CCrashLine
import DropTrackCLI
import Foundation

/// A crash of `serve` as one JSON line in its JSON-line log (`server.crashed`, with the signal), when
/// the Swift runtime's backtracer is off (`SWIFT_BACKTRACE=enable=no`, as the Debian unit sets it): the
/// backtracer would write a banner and a report of about a hundred lines of text into the log instead.
/// With the backtracer on, as in development, its report is left as it is.
enum CrashLine {
    /// Installs the handlers when the backtracer is off.
    static func install(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let settings = (environment["SWIFT_BACKTRACE"] ?? "").split(separator: ",").map {
            $0.split(separator: "=", maxSplits: 1).map { $0.lowercased() }
        }
        guard
            settings.contains(where: {
                $0.count == 2 && $0[0] == "enable" && ["no", "false", "off", "0"].contains($0[1])
            })
        else { return }
        _ = droptrack_install_crash_line("none: SWIFT_BACKTRACE has enable=no")
    }
}
