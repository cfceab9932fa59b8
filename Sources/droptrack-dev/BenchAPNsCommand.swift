import DropTrackCLI
import DropTrackCore
import DropTrackCrypto
import DropTrackModel
import DropTrackProviders
import DropTrackSHA256
import DropTrackWire
import Foundation
import Synchronization

/// `droptrack-dev bench apns`: how fast the APNs client pushes to a given HTTP/2 server.
enum BenchAPNsCommand: Command {
    static let path = ["bench", "apns"]
    static let abstract = "measure APNs client throughput against any HTTP/2 server"
    static let help = """
        USAGE: droptrack-dev bench apns --host HOST:PORT -n N --concurrency C [--ca-file PEM]
                 [--key FILE.p8 --key-id ID --team-id ID --bundle-id ID] [--connections K] [--tokens T]

        Sends N Live Activity update pushes with C in flight, the way a fan-out does (one payload, many
        tokens), and counts every answered request whatever its status, so any HTTP/2 server can be the
        target (nghttpd included). Without --key it signs with a throwaway key. The last line is
        pushes_per_second=<number>.

        OPTIONS:
          --host HOST:PORT   the server
          -n N               pushes to send (default 100000)
          --concurrency C    pushes in flight (default 100)
          --connections K    most HTTP/2 connections (default 1)
          --tokens T         distinct device tokens to cycle through (default 1000)
          --ca-file PEM      CA to trust

        Every option can also be set as DROPTRACK_BENCH_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "host", "n", "concurrency", "connections", "tokens", "ca-file", "key", "key-id", "team-id", "bundle-id",
            ],
            switches: [], environmentPrefix: "DROPTRACK_BENCH_")
        guard let (host, port) = APNsEndpoint.parseHostPort(try args.required("host")) else {
            throw UsageError("--host must be HOST:PORT")
        }
        let total = try args.integer("n") ?? 100_000
        let concurrency = try args.integer("concurrency") ?? 100
        let tokenCount = try args.integer("tokens") ?? 1000
        guard total > 0, concurrency > 0, tokenCount > 0 else {
            throw UsageError("-n, --concurrency and --tokens must be positive")
        }
        let key: PrivateKey
        if let file = args.value("key") {
            do { key = try PrivateKey(pemFile: file, expected: .es256) } catch { throw CommandFailure("\(error)") }
        } else {
            key = try PrivateKey.generate(.es256)
        }
        let bundleID = args.value("bundle-id") ?? "com.droptrack.bench"
        let client = try APNsClient(
            configuration: APNsClientConfiguration(
                bundleID: bundleID,
                providerToken: try APNsProviderToken(
                    key: key, keyID: args.value("key-id") ?? "BENCHKEY01", teamID: args.value("team-id") ?? "BENCHTEAM1"
                ),
                endpoint: .custom(host: host, port: port), caFile: args.value("ca-file"), requestTimeout: .seconds(30),
                maxConnections: try args.integer("connections") ?? 1))
        defer { client.shutdown() }
        let payload = try LiveActivityPayload(
            event: .update, timestamp: SystemWallClock().unixSeconds(),
            contentState: ["status": "On the way", "progress": 0.71, "stopsRemaining": 2] as [String: JSONValueLiteral]
        ).encoded()
        let tokens = (0..<tokenCount).map { index in String(hexEncoding: SHA256.hash(Array("bench-\(index)".utf8))) }
        let pushes = tokens.map { APNsPush(deviceToken: $0, bundleID: bundleID, payload: payload, priority: 5) }

        // Warm up: one push opens the connection and lets the server raise its stream limit.
        _ = await client.send(pushes[0])
        let progress = ProgressReporter(label: "bench apns", total: total)
        let counters = Mutex<(issued: Int, answered: Int, failed: Int, statuses: [Int: Int])>((0, 0, 0, [:]))
        let done = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now

        @Sendable func next() {
            let index: Int? = counters.withLock { state in
                guard state.issued < total else { return nil }
                state.issued += 1
                return state.issued
            }
            guard let index else { return }
            client.send(pushes[index % pushes.count]) { result in
                let finished = counters.withLock { state -> Bool in
                    if result.result != nil {
                        state.answered += 1
                        state.statuses[result.status, default: 0] += 1
                    } else {
                        state.failed += 1
                    }
                    return state.answered + state.failed == total
                }
                progress.advance()
                if finished { done.signal() } else { next() }
            }
        }
        for _ in 0..<min(concurrency, total) { next() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }
        let elapsed = ContinuousClock.now - started
        progress.finish()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let (answered, failed, statuses) = counters.withLock { ($0.answered, $0.failed, $0.statuses) }
        print(
            "pushes=\(total) answered=\(answered) failed=\(failed) seconds=\(String(format: "%.3f", seconds)) connections=\(client.connectionsOpened)"
        )
        print("statuses=" + statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
        print("pushes_per_second=\(Int(Double(answered) / seconds))")
        return failed == 0 ? 0 : 1
    }
}

/// A JSON literal for building small payloads in the CLI.
enum JSONValueLiteral: Encodable, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    case string(String), number(Double)
    init(stringLiteral value: String) { self = .string(value) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }
}
