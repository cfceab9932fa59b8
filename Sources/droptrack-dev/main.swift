import DropTrackCLI

/// `droptrack-dev`: the demo, the local APNs and FCM, the benchmarks and development keys, for a developer's
/// machine and the tests. Production runs `droptrack`, which links none of this.
let droptrackDev = CommandLineTool(
    name: "droptrack-dev",
    summary: "DropTrack's development tools: the demo, local APNs and FCM emulators, benchmarks, development keys.",
    commands: [
        DemoCommand.self, EmulateAPNsCommand.self, EmulateFCMCommand.self, BenchAPNsCommand.self,
        BenchFCMCommand.self, BenchBroadcastCommand.self, KeysDevCommand.self,
    ],
    sibling: CommandLineTool.productionSibling)
await droptrackDev.main()
