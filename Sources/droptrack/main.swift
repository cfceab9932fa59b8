import DropTrackCLI

/// `droptrack`: what production runs. The demo, the emulators and the benchmarks are `droptrack-dev`'s, so this
/// binary links none of them.
let droptrack = CommandLineTool(
    name: "droptrack",
    summary: "keeps iOS Live Activities and Android Live Updates current while the app is closed.",
    commands: [
        ServeCommand.self, HealthCommand.self, AppsAddCommand.self, AppsListCommand.self, AppsRemoveCommand.self,
        AppsRotateKeyCommand.self, AppsRevokeUserCommand.self, DeviceKeyAddCommand.self, DeviceKeyRemoveCommand.self,
        DeviceKeyRotateCommand.self, WebhookAddCommand.self, WebhookRemoveCommand.self, TokensImportCommand.self,
        PushAPNsCommand.self, PushFCMCommand.self, DoctorCommand.self, KeysAPNsTokenCommand.self,
        ConfigKeysCommand.self,
    ],
    sibling: CommandLineTool.developmentSibling)
await droptrack.main()
