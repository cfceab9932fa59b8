import DropTrackCLI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackModel
import DropTrackWire
import Foundation

/// `droptrack-dev emulate apns`: a strict local APNs.
enum EmulateAPNsCommand: Command {
    static let path = ["emulate", "apns"]
    static let abstract = "run a strict local APNs (HTTP/2 over TLS) that records every push"
    static let help = """
        USAGE: droptrack-dev emulate apns --auth-key-pub FILE --key-id ID --team-id ID --bundle-id ID
                 [--listen 127.0.0.1:0] [--tls-cert FILE --tls-key FILE] [--faults FILE]
                 [--environment sandbox|production] [--max-streams N] [--strict-signatures]
                 [--require-registered-tokens]

        Serves APNs' device push, broadcast and channel-management APIs on one TLS port (ALPN h2),
        answers with Apple's statuses and reasons, and records every request with the silent-failure
        findings APNs itself would not report. It prints the bound port (port 0 picks one).

        Records and controls, as JSON over the same port (HTTP/2, or HTTP/1.1 for curl):
          GET  /_emulator/records[?token=HEX&after=N]   GET /_emulator/latest?token=HEX
          GET  /_emulator/stats    GET /_emulator/devices (per token: accepted by event, newest state)
          POST /_emulator/tokens {"token","environment","attributesType","dead"}
          PUT  /_emulator/faults   (same document as --faults)

        OPTIONS:
          --listen HOST:PORT     address to bind (default 127.0.0.1:0)
          --auth-key-pub FILE    the provider key's public key (PEM); repeatable as a comma list
          --key-id ID            its key id; a comma list pairs with --auth-key-pub
          --team-id ID           the team id provider tokens must carry
          --bundle-id ID         bundle ids allowed (comma list)
          --tls-cert/--tls-key   TLS certificate and key; without them a development CA is made and
                                 its file printed, for clients' --ca-file
          --faults FILE          fault script: {"faults":[{"kind":"unregistered","token":"…"}, …],
                                 "maxConcurrentStreams":N, "oneStreamUntilValidToken":true}
                                 kinds: \(APNsFaultKind.allCases.map(\.rawValue).joined(separator: ", "))
          --environment ENV      the environment played (default sandbox)
          --max-streams N        SETTINGS_MAX_CONCURRENT_STREAMS after the first valid token (default 1000)
          --strict-signatures    refuse DER-encoded ES256 signatures
          --require-registered-tokens   answer BadDeviceToken for tokens never registered

        Every option can also be set as DROPTRACK_EMULATE_APNS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "listen", "auth-key-pub", "key-id", "team-id", "bundle-id", "tls-cert", "tls-key", "faults",
                "environment", "max-streams",
            ],
            switches: ["strict-signatures", "require-registered-tokens"], environmentPrefix: "DROPTRACK_EMULATE_APNS_")
        let listen = args.value("listen") ?? "127.0.0.1:0"
        guard let (host, port) = parseListenAddress(listen) else {
            throw UsageError("--listen must be HOST:PORT with an IPv4 address, e.g. 127.0.0.1:0")
        }
        let keyFiles = try args.required("auth-key-pub").split(separator: ",").map(String.init)
        let keyIDs = try args.required("key-id").split(separator: ",").map(String.init)
        guard keyFiles.count == keyIDs.count else {
            throw UsageError("--auth-key-pub and --key-id must list the same number of entries")
        }
        var keys: [String: PublicKey] = [:]
        for (file, id) in zip(keyFiles, keyIDs) {
            do { keys[id] = try PublicKey(pemFile: file) } catch { throw CommandFailure("\(error)") }
        }
        let environmentName = args.value("environment") ?? "sandbox"
        guard let environment = APNsEnvironment(name: environmentName) else {
            throw UsageError("--environment must be sandbox or production, not '\(environmentName)'")
        }
        var configuration = APNsEmulatorConfiguration(
            teamID: try args.required("team-id"), keys: keys,
            bundleIDs: try args.required("bundle-id").split(separator: ",").map(String.init), environment: environment,
            strictSignatures: args.flag("strict-signatures"),
            requireRegisteredTokens: args.flag("require-registered-tokens"))
        if let streams = try args.integer("max-streams") {
            guard streams >= 1 else { throw UsageError("--max-streams must be at least 1") }
            configuration.maxConcurrentStreams = UInt32(streams)
        }
        let emulator = APNsEmulator(configuration: configuration)
        if let faults = args.value("faults") {
            do { emulator.apply(try APNsFaultScript.load(path: faults)) } catch { throw CommandFailure("\(error)") }
        }
        let (tls, caFile) = try serverTLS(certificate: args.value("tls-cert"), key: args.value("tls-key"))
        let bound: Int
        let termination = TerminationSignal()
        do { bound = try emulator.start(tls: tls, host: host, port: port) } catch {
            throw CommandFailure("cannot listen on \(listen): \(error)\(listenHint(error))")
        }
        print("APNs emulator listening on \(host):\(bound) (\(environment.rawValue))")
        if let caFile { print("ca-file: \(caFile)") }
        print("records: https://\(host):\(bound)/_emulator/records")
        fflush(nil)
        await termination.wait()
        emulator.stop()
        print("APNs emulator stopped after \(emulator.requestCount) requests")
        return 0
    }
}

/// The TLS context for an emulator: the given certificate, or a fresh development CA whose file
/// is returned so clients can trust it.
func serverTLS(certificate: String?, key: String?) throws -> (TLSContext, String?) {
    switch (certificate, key) {
    case (let certificate?, let key?):
        do {
            return (
                try TLSContext(serverCertificateFile: certificate, privateKeyFile: key, alpn: ["h2", "http/1.1"]), nil
            )
        } catch { throw CommandFailure("\(error)") }
    case (nil, nil):
        let certificates = try DevelopmentCertificates.generate()
        let caFile = NSTemporaryDirectory() + "droptrack-emulator-ca-\(getpid()).pem"
        // 0644 whatever the umask: whoever could rewrite the CA would choose whom the clients trust.
        do { try PrivateFile.writePublic(certificates.caCertificatePEM, to: caFile) } catch {
            throw CommandFailure("\(error)")
        }
        let context = try TLSContext(
            serverCertificateChainPEM: Data(certificates.serverCertificatePEM.utf8),
            privateKeyPEM: Data(certificates.serverKeyPEM.utf8), alpn: ["h2", "http/1.1"])
        return (context, caFile)
    default:
        throw UsageError("give both --tls-cert and --tls-key, or neither")
    }
}
