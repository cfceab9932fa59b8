import DropTrackCLI
import DropTrackCore
import DropTrackCrypto
import DropTrackProviders
import Foundation

/// `droptrack keys apns-token`: prints provider tokens, for curl and h2load against APNs or the
/// emulator, and for checking our JWTs with an outside verifier.
enum KeysAPNsTokenCommand: Command {
    static let path = ["keys", "apns-token"]
    static let abstract = "print an APNs provider token (ES256 JWT) for curl or h2load"
    static let help = """
        USAGE: droptrack keys apns-token --key FILE.p8 --key-id ID --team-id ID [--count N] [--iat UNIX]

        Prints provider tokens made exactly as `push apns` and `serve` make them, one per line. The
        token is a credential for up to an hour: treat the output as a secret.

        OPTIONS:
          --key FILE.p8   the APNs auth key
          --key-id ID     its key id
          --team-id ID    your team id
          --count N       tokens to print, each issued one hour after the previous (default 1)
          --iat UNIX      issue time of the first token (default now)

        Every option can also be set as DROPTRACK_APNS_<OPTION> (shared with `push apns`).
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["key", "key-id", "team-id", "count", "iat"], switches: [],
            environmentPrefix: "DROPTRACK_APNS_")
        let key: PrivateKey
        do { key = try PrivateKey(pemFile: try args.required("key"), expected: .es256) } catch let error as CryptoError
        {
            throw CommandFailure(error.message)
        }
        let clock = ManualWallClock(unixSeconds: Int64(try args.integer("iat") ?? Int(Date().timeIntervalSince1970)))
        // A token is renewed by its age on the monotonic clock: both clocks move an hour per token.
        let monotonic = ManualMonotonicClock()
        let tokens: APNsProviderToken
        do {
            tokens = try APNsProviderToken(
                key: key, keyID: try args.required("key-id"), teamID: try args.required("team-id"), clock: clock,
                monotonic: monotonic.now)
        } catch let error as APNsConfigurationError { throw UsageError("--\(error.field): \(error.message)") }
        for _ in 0..<max(1, try args.integer("count") ?? 1) {
            print(try tokens.current())
            clock.advance(by: 3600)
            monotonic.advance(by: .seconds(3600))
        }
        return 0
    }
}
