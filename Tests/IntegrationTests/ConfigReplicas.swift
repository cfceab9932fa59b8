import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A configuration file that the real `droptrack apps` commands edit, and servers started from it:
/// each `replica` is a restart (or another replica on the same store) that reads app1's API keys and
/// DropTrack-held device keys as the file has them at that moment. app2, and app1's backend key
/// (`<app>-backend`, a new one per replica), stay as `ServerHarness` makes them.
struct ConfigReplicas {
    let directory = makeTemporaryDirectory("replicas")
    var config: String { directory + "/droptrack.json" }

    /// `droptrack apps <arguments> --config FILE`, which must succeed; its stdout, trimmed (a printed key).
    @discardableResult
    func apps(_ arguments: [String]) throws -> String {
        let result = try runDropTrack(["apps"] + arguments + ["--config", config])
        #expect(result.status == 0, "\(arguments): \(result.err)")
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A server on `store` whose app1 is the file's app1 now (none, when the file has none).
    func replica(
        store: any DeliveryStore, clock: any WallClock = SystemWallClock(), deviceKeys: Bool = false
    ) throws -> ServerHarness {
        let file = try ServerConfiguration.load(file: config, environment: [:]).apps.first { $0.id == "app1" }
        return try ServerHarness(clock: clock, deviceKeys: deviceKeys, store: store) { configuration in
            guard let index = configuration.apps.firstIndex(where: { $0.id == "app1" }) else { return }
            guard let file else {
                configuration.apps.remove(at: index)
                return
            }
            configuration.apps[index].apiKeyHashes = file.apiKeyHashes
            // The harness's backend key (its public half) stays; the DropTrack-held keys are the file's,
            // so every replica signs and verifies with the same one.
            if deviceKeys {
                configuration.apps[index].deviceKeys =
                    (configuration.apps[index].deviceKeys ?? []).filter { $0.privateKeyFile == nil }
                    + (file.deviceKeys ?? [])
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
