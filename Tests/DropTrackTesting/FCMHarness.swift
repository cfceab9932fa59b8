import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackProviders
import DropTrackWire
import Foundation

/// An FCM emulator on a loopback port with a fresh service account, and clients pointed at it.
package final class FCMHarness: Sendable {
    package static let projectID = "droptrack-demo"
    package static let clientEmail = "droptrack@droptrack-demo.iam.gserviceaccount.com"

    package let key: PrivateKey
    package let emulator: FCMEmulator
    package let port: Int
    package let accountJSON: [UInt8]

    package init(clock: any WallClock = SystemWallClock(), acceptUnknownTokens: Bool = false) throws {
        key = try PrivateKey.generate(.rs256)
        emulator = FCMEmulator(
            configuration: FCMEmulatorConfiguration(
                projectID: FCMHarness.projectID, serviceAccountKey: key.publicKey, clientEmail: FCMHarness.clientEmail,
                acceptUnknownTokens: acceptUnknownTokens),
            clock: clock)
        port = try emulator.start(tls: try TestPKI.serverTLS(alpn: ["h2", "http/1.1"]))
        accountJSON = GoogleServiceAccount.document(
            projectID: FCMHarness.projectID, privateKeyID: "kid-1", clientEmail: FCMHarness.clientEmail,
            tokenURI: "https://127.0.0.1:\(port)/token", privateKeyPEM: key.pkcs8PEM)
    }

    package func stop() { emulator.stop() }

    package var account: GoogleServiceAccount { try! GoogleServiceAccount(json: Data(accountJSON)) }

    package func client(clock: any WallClock = SystemWallClock(), logger: Logger = .disabled) throws -> FCMClient {
        try FCMClient(
            configuration: FCMClientConfiguration(
                account: account, baseURL: "https://127.0.0.1:\(port)", caFile: TestPKI.shared.caFile),
            clock: clock, logger: logger)
    }

    /// A registered registration token, FCM-shaped.
    package func newToken() -> String {
        let token = "fcm-" + APNsHarness.randomToken(bytes: 24) + ":APA91b" + APNsHarness.randomToken(bytes: 40)
        emulator.registerToken(token)
        return token
    }
}
