import DropTrackAPI
import DropTrackCLI
import DropTrackDispatch
import DropTrackModel
import DropTrackRuntime
import Foundation

/// `droptrack apps revoke-user`: refuses one user's device credentials issued until now.
enum AppsRevokeUserCommand: Command {
    static let path = ["apps", "revoke-user"]
    static let abstract = "refuse one user's device credentials issued until now, on every replica"
    static let help = """
        USAGE: droptrack apps revoke-user --config FILE --app ID --user USER [--store SPEC]

        Every device credential of USER issued until now (its iat before the next whole second, or no
        iat) is refused from now on with 401 credential_revoked, whoever signed it; credentials issued
        afterwards work. The user's phone asks its backend for a new one on the 401, and the backend
        gets it as before (POST /v1/device-credentials mints it issued late enough). Nothing else of
        the user changes: their tokens and activities stay. The revocation is kept in the store the
        configuration names, so every replica refuses at once, with no restart. With the API key,
        POST /v1/users/{userId}/revoke-credentials does the same.

        To take back every credential minted with a leaked API key instead, run apps rotate-key.

        OPTIONS:
          --config FILE   the server's configuration file (for the app and the store)
          --app ID        the app
          --user USER     the user id (the credentials' sub)
          --store SPEC    override the configured store

        Every option can also be set as DROPTRACK_APPS_<OPTION>.
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["config", "app", "user", "store"], switches: [], environmentPrefix: "DROPTRACK_APPS_")
        let configPath = try args.required("config")
        let appID = try args.required("app")
        let user = try args.required("user")
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: configPath)
        } catch {
            throw CommandFailure("configuration: \(error)")
        }
        if let store = args.value("store") { configuration.store = store }
        guard configuration.apps.contains(where: { $0.id == appID }) else {
            throw UsageError("--app \(appID) is not in \(configPath); see droptrack apps list --config \(configPath)")
        }
        guard configuration.store != "memory" else {
            throw UsageError(
                "the store is 'memory', which lives inside droptrack serve: call POST /v1/users/\(user)/revoke-credentials with the API key instead, or give --store"
            )
        }
        let store = try DropTrackServer.openStore(configuration.store)
        // The database's clock, as the replicas keep time.
        let clock = StoreClock(store: store)
        clock.synchronizeIfDue()
        let registry = ActivityRegistry(
            store: store, configuration: configuration, clock: clock, examiner: DoctorDeviceExaminer())
        let notBefore: Int64
        do {
            notBefore = try registry.revokeDeviceCredentials(app: appID, userId: user)
        } catch {
            if case .invalid = error { throw UsageError("--user: \(error.message)") }
            throw CommandFailure(error.message)
        }
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(notBefore)))
        print(notBefore)
        printError(
            "device credentials of user \(user) of app \(appID) issued before \(when) are refused from now on, on every replica; the user's phone gets a new one from the backend"
        )
        return 0
    }
}
