import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

@Suite("One server per SQLite file")
struct SQLiteOwnershipTests {
    @Test(
        "a second server on the same SQLite file refuses to start, naming the first and the fix; the file is free again once the first is gone"
    )
    func secondServerRefused() throws {
        let directory = makeTemporaryDirectory("owner")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = ServerConfiguration(listen: "127.0.0.1:0", store: "sqlite:\(directory)/droptrack.sqlite")
        var first: DropTrackServer? = try DropTrackServer(configuration: configuration, logger: .disabled)
        #expect(first != nil)
        #expect {
            _ = try DropTrackServer(configuration: configuration, logger: .disabled)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == "store" && error.message.contains("pid \(getpid())")
                && error.message.contains("postgres://")
        }
        first = nil
        _ = try DropTrackServer(configuration: configuration, logger: .disabled)
        let mode = try FileManager.default.attributesOfItem(atPath: "\(directory)/droptrack.sqlite.lock")[
            .posixPermissions]
        #expect(mode as? Int == 0o600)
    }
}
