import DropTrackCLI
import DropTrackCore
import DropTrackDemo
import Foundation

/// `droptrack-dev demo`: the whole loop on one machine, in the browser.
enum DemoCommand: Command {
    static let path = ["demo"]
    static let abstract = "run the server, both emulators and two simulated phones; open the dashboard"
    static let help = """
        USAGE: droptrack-dev demo [--listen 127.0.0.1:8787] [--data DIR] [--log-level LEVEL]

        Starts, in this process: development keys, the APNs and FCM emulators, the server on SQLite,
        a simulated iPhone (ActivityKit's rules) and a simulated Android 16 phone registered for user
        "demo", and the dashboard. Open the printed URL: place an order, step it through the seven
        steps, reassign the rider, end it, and send the deliberately broken pushes to see what the
        phones drop and why. Every push goes over HTTP/2 and TLS to the emulators. Ctrl-C stops it all.

        OPTIONS:
          --listen HOST:PORT   dashboard and API address (default 127.0.0.1:8787)
          --data DIR           keep keys and the SQLite store here (default: a temporary folder,
                               removed on exit)
          --log-level LEVEL    server log level on stderr (default warning)

        Every option can also be set as DROPTRACK_DEMO_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["listen", "data", "log-level"], switches: [], environmentPrefix: "DROPTRACK_DEMO_")
        let listen = args.value("listen") ?? "127.0.0.1:8787"
        guard parseListenAddress(listen) != nil else { throw UsageError("--listen must be HOST:PORT") }
        guard let level = LogLevel(name: args.value("log-level") ?? "warning") else {
            throw UsageError("--log-level must be trace, debug, info, notice, warning or error")
        }
        let termination = TerminationSignal()
        let demo: DemoStack
        do {
            demo = try DemoStack(
                listen: listen, data: args.value("data"),
                logger: Logger(handler: JSONLinesLogHandler(), minimumLevel: level))
        } catch {
            throw CommandFailure("\(error)")
        }
        print(
            """
            DropTrack demo running. Open the dashboard:

                \(demo.url)

            API key of app "demo" (for curl against \(demo.url)v1/…): \(demo.apiKey)
            Data: \(demo.dataDirectory)
            Ctrl-C stops everything.
            """)
        fflush(nil)
        await termination.wait()
        demo.stop()
        print("demo stopped")
        return 0
    }
}

/// `droptrack-dev bench broadcast`: one event to N devices on an iOS 18 broadcast channel.
enum BenchBroadcastCommand: Command {
    static let path = ["bench", "broadcast"]
    static let abstract = "one event to N simulated iOS 18 devices on a broadcast channel: requests and time"
    static let help = """
        USAGE: droptrack-dev bench broadcast [-n N]

        In one process: the server, the APNs emulator, and N simulated iPhones (iOS 18) whose
        activities listen on the channel of one broadcast activity. One event is posted; it prints
        how many requests reached APNs (one broadcast, no per-token pushes), how long the server
        took to accept the event, and how long until the last device showed the new state.

        OPTIONS:
          -n N    simulated devices on the channel (default 100000)

        Every option can also be set as DROPTRACK_BENCH_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["n"], switches: [], environmentPrefix: "DROPTRACK_BENCH_")
        let count = try args.integer("n") ?? 100_000
        guard count > 0 else { throw UsageError("-n must be positive") }
        let figures: BroadcastBench.Figures
        do { figures = try BroadcastBench.run(subscribers: count) } catch { throw CommandFailure("\(error)") }
        print("subscribers=\(figures.subscribers)")
        print("broadcast_requests=\(figures.broadcastRequests)")
        print("per_token_requests=\(figures.perTokenRequests)")
        print("devices_showing_new_state=\(figures.devicesShowingState)")
        print(String(format: "event_accept_seconds=%.3f", figures.acceptSeconds))
        print(String(format: "last_device_seconds=%.3f", figures.lastDeviceSeconds))
        return figures.devicesShowingState == figures.subscribers && figures.broadcastRequests == 1 ? 0 : 1
    }
}
