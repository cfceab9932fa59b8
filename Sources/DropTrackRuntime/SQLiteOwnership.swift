import DropTrackCore
import DropTrackDispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One `droptrack serve` per SQLite file. SQLite lets a second server open the same file, and both
/// would then claim and send, each the other's slower twin, without a word. The first server takes an
/// exclusive lock on `<file>.lock` (released when its process ends, however it ends); a second one
/// refuses to start and says why. Short-lived tools (`tokens import`) do not take it.
final class SQLiteOwnership: Sendable {
    private let descriptor: Int32

    /// Takes the lock for the SQLite file `path`, or throws a configuration error naming the holder.
    init(databasePath path: String) throws(ConfigurationError) {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError(
                key: "store",
                "cannot open \(lockPath): \(String(cString: strerror(errno))); check the folder's permissions")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            let holder = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw ConfigurationError(
                key: "store",
                "another droptrack serve\(holder.isEmpty ? "" : " (pid \(holder))") already uses \(path): one server per SQLite file; stop that one, or use PostgreSQL (store: postgres://…) to run several servers on one database"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
