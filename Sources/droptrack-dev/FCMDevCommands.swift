import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackProviders
import DropTrackWire
import Foundation
import Synchronization

/// `droptrack-dev emulate fcm`: a strict local FCM HTTP v1.
enum EmulateFCMCommand: Command {
    static let path = ["emulate", "fcm"]
    static let abstract = "run a strict local FCM (OAuth2 token endpoint and messages:send)"
    static let help = """
        USAGE: droptrack-dev emulate fcm --service-account-pub FILE --project ID [--listen 127.0.0.1:0]
                 [--client-email EMAIL] [--tls-cert FILE --tls-key FILE] [--faults FILE] [--accept-unknown-tokens]

        Serves POST /token (verifies the RS256 assertion: signature, aud, scope, lifetime) and
        POST /v1/projects/{project}/messages:send (bearer token, project, exactly one target, string-only
        data, reserved keys, 4096 bytes, ttl and priority), answering with Google's google.rpc errors and
        FcmError codes. HTTP/2 over TLS, HTTP/1.1 accepted. Unknown tokens are UNREGISTERED unless
        registered (POST /_emulator/tokens {"token": T}) or --accept-unknown-tokens is given.

        Records: GET /_emulator/records[?token=T], GET /_emulator/latest?token=T. Faults: PUT /_emulator/faults.

        OPTIONS:
          --listen HOST:PORT          address (default 127.0.0.1:0; `keys dev` service accounts expect 127.0.0.1:4443)
          --service-account-pub FILE  the service account's public key (PEM)
          --project ID                the project id messages must name
          --client-email EMAIL        require this iss in assertions
          --tls-cert/--tls-key        TLS certificate and key (default: a fresh development CA, printed)
          --faults FILE               {"faults":[{"kind":"unregistered","token":"…"}, …]}
                                      kinds: \(FCMFaultKind.allCases.map(\.rawValue).joined(separator: ", "))
          --accept-unknown-tokens     deliver to tokens never registered (load tests)

        Every option can also be set as DROPTRACK_EMULATE_FCM_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: ["listen", "service-account-pub", "project", "client-email", "tls-cert", "tls-key", "faults"],
            switches: ["accept-unknown-tokens"], environmentPrefix: "DROPTRACK_EMULATE_FCM_")
        let listen = args.value("listen") ?? "127.0.0.1:0"
        guard let (host, port) = parseListenAddress(listen) else {
            throw UsageError("--listen must be HOST:PORT, e.g. 127.0.0.1:4443")
        }
        let key: PublicKey
        do { key = try PublicKey(pemFile: try args.required("service-account-pub")) } catch let error as CryptoError {
            throw CommandFailure(error.message)
        }
        let emulator = FCMEmulator(
            configuration: FCMEmulatorConfiguration(
                projectID: try args.required("project"), serviceAccountKey: key,
                clientEmail: args.value("client-email"),
                acceptUnknownTokens: args.flag("accept-unknown-tokens")))
        if let faults = args.value("faults") {
            do { emulator.setFaults(try FCMFaultScript.load(path: faults).faults) } catch {
                throw CommandFailure("\(error)")
            }
        }
        let (tls, caFile) = try serverTLS(certificate: args.value("tls-cert"), key: args.value("tls-key"))
        let bound: Int
        let termination = TerminationSignal()
        do { bound = try emulator.start(tls: tls, host: host, port: port) } catch {
            throw CommandFailure("cannot listen on \(listen): \(error)\(listenHint(error))")
        }
        print("FCM emulator listening on \(host):\(bound) (project \(emulator.configuration.projectID))")
        if let caFile { print("ca-file: \(caFile)") }
        print("token_uri: https://\(host):\(bound)/token   base-url: https://\(host):\(bound)")
        fflush(nil)
        await termination.wait()
        emulator.stop()
        return 0
    }
}

/// `droptrack-dev bench fcm`: FCM client throughput against the emulator.
enum BenchFCMCommand: Command {
    static let path = ["bench", "fcm"]
    static let abstract = "measure FCM client sends per second against an FCM endpoint"
    static let help = """
        USAGE: droptrack-dev bench fcm --service-account FILE --base-url URL -n N --concurrency C [--ca-file PEM]

        Sends N Live Update data messages with C in flight, over one HTTP/2 connection, after one OAuth
        exchange. Every message must be accepted (run the emulator with --accept-unknown-tokens). The last
        line is sends_per_second=<number>.

        Every option can also be set as DROPTRACK_BENCH_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["service-account", "base-url", "n", "concurrency", "ca-file"], switches: [],
            environmentPrefix: "DROPTRACK_BENCH_")
        let total = try args.integer("n") ?? 20_000
        let concurrency = try args.integer("concurrency") ?? 100
        guard total > 0, concurrency > 0 else { throw UsageError("-n and --concurrency must be positive") }
        let account: GoogleServiceAccount
        do { account = try GoogleServiceAccount(file: try args.required("service-account")) } catch let error
            as ServiceAccountError
        {
            throw CommandFailure(error.message)
        }
        let client = try FCMClient(
            configuration: FCMClientConfiguration(
                account: account, baseURL: try args.required("base-url"), caFile: args.value("ca-file"),
                requestTimeout: .seconds(30), maxConnections: 1))
        defer { client.shutdown() }
        let state = DeliveryStep.onTheWay.contentState(courierName: "Sam", riderReassigned: false, at: Date())
        let messages = (0..<1000).map { index in
            FCMMessage(
                target: .token("bench-token-\(index)"),
                data: DeliveryLiveUpdate.encode(
                    .init(activityId: "act-\(index)", event: .update, orderId: "o\(index)", state: state, sequence: 1)),
                priority: .high, ttl: 60)
        }
        let warm = await client.send(messages[0])
        guard warm.isSuccess else { throw CommandFailure("the warm-up send failed: \(warm.explanation)") }
        let progress = ProgressReporter(label: "bench fcm", total: total)
        let counters = Mutex<(issued: Int, ok: Int, failed: Int)>((0, 0, 0))
        let done = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        @Sendable func next() {
            let index: Int? = counters.withLock { state in
                guard state.issued < total else { return nil }
                state.issued += 1
                return state.issued
            }
            guard let index else { return }
            client.send(messages[index % messages.count]) { result in
                let finished = counters.withLock { state -> Bool in
                    if result.isSuccess { state.ok += 1 } else { state.failed += 1 }
                    return state.ok + state.failed == total
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
        let (ok, failed) = counters.withLock { ($0.ok, $0.failed) }
        print(
            "sends=\(total) accepted=\(ok) failed=\(failed) seconds=\(String(format: "%.3f", seconds)) oauth_exchanges=\(client.tokens.exchanges)"
        )
        print("sends_per_second=\(Int(Double(ok) / seconds))")
        return failed == 0 ? 0 : 1
    }
}
