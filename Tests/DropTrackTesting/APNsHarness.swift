import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackHTTP2
import DropTrackModel
import DropTrackProviders
import DropTrackWire
import Foundation

/// An APNs emulator on a loopback port with a fresh team key, and clients pointed at it.
package final class APNsHarness: Sendable {
    package static let keyID = "KEY1234567"
    package static let teamID = "TEAM123456"
    package static let bundleID = "com.droptrack.demo"

    package let key: PrivateKey
    package let emulator: APNsEmulator
    package let port: Int

    package init(
        clock: any WallClock = SystemWallClock(), environment: APNsEnvironment = .sandbox,
        strictSignatures: Bool = false, requireRegisteredTokens: Bool = false
    ) throws {
        key = try PrivateKey.generate(.es256)
        emulator = APNsEmulator(
            configuration: APNsEmulatorConfiguration(
                teamID: APNsHarness.teamID, keys: [APNsHarness.keyID: key.publicKey], bundleIDs: [APNsHarness.bundleID],
                environment: environment, strictSignatures: strictSignatures,
                requireRegisteredTokens: requireRegisteredTokens),
            clock: clock)
        port = try emulator.start(tls: try TestPKI.serverTLS(alpn: ["h2", "http/1.1"]))
    }

    package func stop() { emulator.stop() }

    package func providerToken(
        clock: any WallClock = SystemWallClock(), key: PrivateKey? = nil,
        monotonic: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, logger: Logger = .disabled
    ) throws -> APNsProviderToken {
        try APNsProviderToken(
            key: key ?? self.key, keyID: APNsHarness.keyID, teamID: APNsHarness.teamID, clock: clock,
            monotonic: monotonic, logger: logger)
    }

    package func client(
        clock: any WallClock = SystemWallClock(), key: PrivateKey? = nil, timeout: Duration = .seconds(5),
        maxConnections: Int = 4, monotonic: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        logger: Logger = .disabled
    ) throws -> APNsClient {
        try APNsClient(
            configuration: APNsClientConfiguration(
                bundleID: APNsHarness.bundleID,
                providerToken: try providerToken(clock: clock, key: key, monotonic: monotonic, logger: logger),
                endpoint: .custom(host: "127.0.0.1", port: port), caFile: TestPKI.shared.caFile,
                requestTimeout: timeout,
                maxConnections: maxConnections),
            clock: clock, logger: logger)
    }

    /// A bare HTTP/2 client for requests no well-behaved client would make.
    package func rawClient(maxConnections: Int = 1) throws -> HTTP2Client {
        HTTP2Client(
            configuration: .init(host: "127.0.0.1", port: port, maxConnections: maxConnections),
            tls: try TestPKI.clientTLS())
    }

    package static func randomToken(bytes: Int = 32) -> String {
        String(hexEncoding: (0..<bytes).map { _ in UInt8.random(in: 0...255) })
    }
}

extension HTTP2Response {
    /// The `reason` of an APNs error body.
    package var apnsReason: String? {
        (try? JSONValue.parse(Data(body)))?["reason"]?.stringValue
    }
}
