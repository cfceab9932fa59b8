import Foundation

/// Every command, in the order `--help` lists them.
let commands: [any Command.Type] = [
    DemoCommand.self, ServeCommand.self, HealthCommand.self, AppsAddCommand.self, AppsListCommand.self,
    AppsRemoveCommand.self,
    AppsRotateKeyCommand.self, AppsRevokeUserCommand.self, DeviceKeyAddCommand.self, DeviceKeyRemoveCommand.self,
    DeviceKeyRotateCommand.self,
    WebhookAddCommand.self, WebhookRemoveCommand.self,
    TokensImportCommand.self, PushAPNsCommand.self,
    PushFCMCommand.self, DoctorCommand.self, EmulateAPNsCommand.self, EmulateFCMCommand.self, BenchAPNsCommand.self,
    BenchFCMCommand.self, BenchBroadcastCommand.self, KeysDevCommand.self, KeysAPNsTokenCommand.self,
]

/// Wide enough for the longest command words (`apps device-key rotate`), so none is cut short.
let commandColumn = max(16, (commands.map { $0.path.joined(separator: " ").count }.max() ?? 0) + 2)

let overview = """
    droptrack: keeps iOS Live Activities and Android Live Updates current while the app is closed.

    USAGE: droptrack <command> [options]     droptrack <command> --help     droptrack --version

    COMMANDS:
    \(commands.map { "  " + $0.path.joined(separator: " ").padding(toLength: commandColumn, withPad: " ", startingAt: 0) + $0.abstract }.joined(separator: "\n"))
    """

let argv = Array(processArguments().dropFirst())
if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
    print(overview)
    exit(argv.isEmpty ? 2 : 0)
}
if argv == ["--version"] || argv == ["-V"] || argv == ["version"] {
    print("droptrack \(dropTrackVersion)")
    exit(0)
}
for warning in EnvironmentCheck.warnings(ProcessInfo.processInfo.environment) { printError(warning) }
guard let command = commands.first(where: { Array(argv.prefix($0.path.count)) == $0.path }) else {
    printError(CommandWords.unknownCommandMessage(argv))
    exit(2)
}
let rest = Array(argv.dropFirst(command.path.count))
if rest.contains("--help") || rest.contains("-h") {
    print(command.help)
    exit(0)
}
do {
    exit(try await command.run(rest))
} catch let error as UsageError {
    printError(
        "droptrack \(command.path.joined(separator: " ")): \(error.message)\nrun 'droptrack \(command.path.joined(separator: " ")) --help' for usage"
    )
    exit(2)
} catch let error as CommandFailure {
    printError("droptrack \(command.path.joined(separator: " ")): \(error.message)")
    exit(1)
} catch {
    printError("droptrack \(command.path.joined(separator: " ")): \(error)")
    exit(1)
}
