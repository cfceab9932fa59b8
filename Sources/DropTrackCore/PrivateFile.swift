import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a private file could not be written: the path and the system's reason.
public struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    /// The file that could not be written.
    public var path: String
    /// The system's reason, with what to check.
    public var reason: String
    public var description: String { "cannot write \(path): \(reason); check the folder exists and is writable" }
}

/// Files that hold secrets (API key hashes, private keys) are created owner-only (0600) whatever the
/// umask, public ones 0644 and directories with the mode asked for: created with that mode and set to it again before a byte is written, so under `umask 000`
/// they are never world-readable or writable, not even for a moment. The text goes to a temporary
/// file beside the target that is renamed over it, so a reader never sees half a file.
public enum PrivateFile {
    /// Writes `bytes` to `path` with mode 0600, replacing any file there.
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws(PrivateFileError) {
        try write(bytes, to: path, mode: 0o600)
    }

    /// Writes UTF-8 `text` to `path` with mode 0600.
    public static func write(_ text: String, to path: String) throws(PrivateFileError) {
        try write(Array(text.utf8), to: path)
    }

    /// Writes a file anyone may read but only its owner change (a certificate, a public key): 0644
    /// whatever the umask, the same way (under `umask 000` a CA file others could rewrite would let
    /// them choose whom the emulators' clients trust).
    public static func writePublic(_ text: String, to path: String) throws(PrivateFileError) {
        try write(Array(text.utf8), to: path, mode: 0o644)
    }

    /// Creates the directory `path` and its missing parents whatever the umask: the parents 0755,
    /// `path` itself `mode` (0700 for a folder of secrets). Directories already there are left as they
    /// are: the caller may have chosen their modes.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(PrivateFileError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var prefix = path.hasPrefix("/") ? "" : "."
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let isLast = index == components.count - 1
            // Made owner-only first: nobody else can slip in before the mode is set.
            if mkdir(prefix, 0o700) == 0 {
                guard chmod(prefix, isLast ? mode : 0o755) == 0 else {
                    throw PrivateFileError(path: prefix, reason: String(cString: strerror(errno)))
                }
            } else if errno != EEXIST {
                throw PrivateFileError(path: prefix, reason: String(cString: strerror(errno)))
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFileError(path: path, reason: "it exists and is not a directory")
        }
    }

    /// Writes `bytes` to `path` with `mode`, set explicitly whatever the umask.
    static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t) throws(PrivateFileError) {
        let staged = path + ".tmp-\(getpid())"
        unlink(staged)
        let fd = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PrivateFileError(path: path, reason: String(cString: strerror(errno))) }
        var failure: String? = nil
        if fchmod(fd, mode) != 0 { failure = String(cString: strerror(errno)) }
        let data = Array(bytes)
        var written = 0
        while failure == nil && written < data.count {
            let count = data[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
            } else {
                written += count
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil && rename(staged, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(staged)
            throw PrivateFileError(path: path, reason: failure)
        }
    }
}
