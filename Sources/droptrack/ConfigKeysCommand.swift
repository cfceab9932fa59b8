import DropTrackCLI
import DropTrackDispatch
import DropTrackRuntime
import Foundation

/// `droptrack config keys`: every configuration key `serve` reads, with its variable, type, default and
/// meaning, from the same list the loader is tested against (docs/reference/configuration.md is its output).
enum ConfigKeysCommand: Command {
    static let path = ["config", "keys"]
    static let abstract = "print every configuration key serve reads: variable, type, default and meaning"
    static let help = """
        USAGE: droptrack config keys [--json]

        Prints the configuration reference: each key of the JSON file, the DROPTRACK_* variable that
        overrides it, its type, its default and what it does, as a Markdown table (or a JSON list with
        --json). The file comes first, variables over it, serve's options over both; an unknown key in
        the file is refused with a suggestion.

        OPTIONS:
          --json   a JSON list of {key, variable, type, default, meaning} instead of the table
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: [], switches: ["json"], environmentPrefix: "DROPTRACK_CONFIG_KEYS_", environment: [:])
        print(ServerConfiguration.referenceText(json: args.flag("json")))
        return 0
    }
}
