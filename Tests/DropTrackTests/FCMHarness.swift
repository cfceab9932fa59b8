import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackProviders
import DropTrackWire
import Foundation

/// An FCM emulator on a loopback port with a fresh service account, and clients pointed at it.
final class FCMHarness: Sendable {
    static let projectID = "droptrack-demo"
    static let clientEmail = "droptrack@droptrack-demo.iam.gserviceaccount.com"

    let key: PrivateKey
    let emulator: FCMEmulator
    let port: Int
    let accountJSON: [UInt8]

    init(clock: any WallClock = SystemWallClock(), acceptUnknownTokens: Bool = false) throws {
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

    func stop() { emulator.stop() }

    var account: GoogleServiceAccount { try! GoogleServiceAccount(json: Data(accountJSON)) }

    func client(clock: any WallClock = SystemWallClock(), logger: Logger = .disabled) throws -> FCMClient {
        try FCMClient(
            configuration: FCMClientConfiguration(
                account: account, baseURL: "https://127.0.0.1:\(port)", caFile: TestPKI.shared.caFile),
            clock: clock, logger: logger)
    }

    /// A registered registration token, FCM-shaped.
    func newToken() -> String {
        let token = "fcm-" + APNsHarness.randomToken(bytes: 24) + ":APA91b" + APNsHarness.randomToken(bytes: 40)
        emulator.registerToken(token)
        return token
    }
}
