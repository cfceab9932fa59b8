#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: which one, and `errno` when it failed.
public struct SystemCallError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The call and, where one function does several jobs, what for: `setsockopt(TCP_NODELAY)`.
    public var call: String
    /// `errno` right after the call.
    public var errno: Int32

    /// Creates an error for `call` failing with `errno`.
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}

/// Runs a POSIX call that returns -1 and sets `errno` on failure, and turns that failure into a
/// `SystemCallError` naming `call`. A call interrupted by a signal (EINTR) is made again, so no
/// caller needs its own retry loop; `close` and `connect` must not be made again and use
/// `retryOnInterrupt: false` (see `Socket.close` and `Socket.connect`).
@discardableResult
func syscall<Result: BinaryInteger>(
    _ call: @autoclosure () -> String, retryOnInterrupt: Bool = true, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = Glibc.errno
        if code == EINTR && retryOnInterrupt { continue }
        throw SystemCallError(call: call(), errno: code)
    }
}
