import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A failed socket call, naming the call and the OS reason.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    /// The call that failed, such as `connect`.
    public var call: String
    /// `errno` at the time.
    public var errnoCode: Int32
    /// Extra words about the failure.
    public var detail: String

    init(_ call: String, errnoCode: Int32, detail: String = "") {
        self.call = call
        self.errnoCode = errnoCode
        self.detail = detail
    }

    public var description: String {
        let reason = String(cString: strerror(errnoCode))
        return detail.isEmpty ? "\(call) failed: \(reason)" : "\(call) failed: \(reason) (\(detail))"
    }
}

/// Thin wrappers over the POSIX calls the HTTP/2 layer needs. Every socket is non-blocking, and
/// every result is checked through `syscall`.
enum Socket {
    static func ignoreSIGPIPE() {
        // A peer that closed its end would otherwise kill the process inside SSL_write. signal(2)
        // fails only for an invalid signal number, and SIGPIPE is valid.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Makes `fd` non-blocking; a descriptor left blocking would stall its whole poll loop, so
    /// failing here fails the connection.
    static func setNonBlocking(_ fd: Int32) throws(SystemCallError) {
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL, 0) }
        try syscall("fcntl(F_SETFL, O_NONBLOCK)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Turns off Nagle's algorithm, so small frames (PING, a push) leave at once.
    static func setNoDelay(_ fd: Int32) throws(SystemCallError) {
        var one: Int32 = 1
        try syscall("setsockopt(TCP_NODELAY)") {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Closes a descriptor. Never retried: on Linux the descriptor is released even when close
    /// reports EINTR, and a second close could hit a number another thread was just given.
    static func close(_ fd: Int32) throws(SystemCallError) {
        do {
            try syscall("close", retryOnInterrupt: false) { Glibc.close(fd) }
        } catch  where error.errno == EINTR {
            return
        }
    }

    /// Closes a descriptor the caller is done with: after close the descriptor is gone whatever
    /// the result (EIO would concern written data, and these sockets' data is acknowledged by the
    /// protocol above or no longer wanted), so a failure is not worth more than ignoring.
    static func closeDiscardingError(_ fd: Int32) {
        _ = try? close(fd)
    }

    /// Resolves `host` (a name or an IPv4/IPv6 literal) to socket addresses, fresh each time, as
    /// Apple recommends before each new connection.
    static func resolve(host: String, port: Int) throws -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw SocketError("getaddrinfo", errnoCode: 0, detail: "\(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [(Int32, [UInt8])] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            let bytes = UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen))
            addresses.append((info.pointee.ai_family, Array(bytes)))
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// Connects with a timeout and returns a non-blocking, no-delay socket.
    static func connect(host: String, port: Int, timeout: Duration) throws -> Int32 {
        var lastError = SocketError("connect", errnoCode: ECONNREFUSED, detail: "\(host):\(port)")
        for (family, address) in try resolve(host: host, port: port) {
            let fd = try syscall("socket") { socket(family, Int32(SOCK_STREAM.rawValue), 0) }
            do {
                try setNonBlocking(fd)
            } catch {
                closeDiscardingError(fd)
                throw error
            }
            // Nagle only delays small frames; a connection without TCP_NODELAY still works.
            try? setNoDelay(fd)
            // Not retried on EINTR: the connection attempt goes on in the background (as with
            // EINPROGRESS) and connecting again would fail with EALREADY.
            do {
                try syscall("connect", retryOnInterrupt: false) {
                    address.withUnsafeBytes {
                        Glibc.connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
                    }
                }
                return fd
            } catch  where error.errno != EINPROGRESS && error.errno != EINTR {
                lastError = SocketError("connect", errnoCode: error.errno, detail: "\(host):\(port)")
                closeDiscardingError(fd)
                continue
            } catch {}
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let ready: Int32
            do {
                ready = try syscall("poll(connect)") { poll(&pfd, 1, max(ms, 1)) }
            } catch {
                closeDiscardingError(fd)
                throw error
            }
            if ready == 0 {
                lastError = SocketError("connect", errnoCode: ETIMEDOUT, detail: "\(host):\(port)")
                closeDiscardingError(fd)
                continue
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            do {
                try syscall("getsockopt(SO_ERROR)") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) }
            } catch {
                soError = error.errno
            }
            if soError == 0 { return fd }
            lastError = SocketError("connect", errnoCode: soError, detail: "\(host):\(port)")
            closeDiscardingError(fd)
        }
        throw lastError
    }

    /// Listens on an IPv4 address; port 0 picks a free port. Returns the socket and the bound port.
    static func listen(host: String, port: Int, backlog: Int32 = 512) throws -> (fd: Int32, port: Int) {
        let fd = try syscall("socket") { socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }
        do {
            var one: Int32 = 1
            // Without SO_REUSEADDR a restart may have to wait out TIME_WAIT: worth failing for.
            try syscall("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                throw SocketError("inet_pton", errnoCode: EINVAL, detail: "\(host) is not an IPv4 address")
            }
            do {
                try syscall("bind") {
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            } catch {
                throw SocketError("bind", errnoCode: error.errno, detail: "\(host):\(port)")
            }
            try syscall("listen") { Glibc.listen(fd, backlog) }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            try syscall("getsockname") {
                withUnsafeMutablePointer(to: &actual) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
            }
            return (fd, Int(UInt16(bigEndian: actual.sin_port)))
        } catch {
            closeDiscardingError(fd)
            throw error
        }
    }

    /// Milliseconds for `poll`, rounded up so a short wait is not a busy loop.
    static func pollTimeout(until deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Int32 {
        guard let deadline else { return -1 }
        if deadline <= now { return 0 }
        let remaining = deadline - now
        let ms = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(min(ms, 60_000))
    }
}

/// A self-pipe a thread can poll on, so other threads can wake it.
final class Wakeup: @unchecked Sendable {
    // Both descriptors are fixed at init; pipe reads and writes are thread-safe.
    /// The end to poll for reading.
    let fd: Int32
    private let writeEnd: Int32

    init() throws(SystemCallError) {
        var ends: [Int32] = [0, 0]
        try syscall("pipe") { pipe(&ends) }
        do {
            for end in ends {
                try Socket.setNonBlocking(end)
                try syscall("fcntl(F_SETFD, FD_CLOEXEC)") { fcntl(end, F_SETFD, FD_CLOEXEC) }
            }
        } catch {
            for end in ends { Socket.closeDiscardingError(end) }
            throw error
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        Socket.closeDiscardingError(fd)
        Socket.closeDiscardingError(writeEnd)
    }

    func signal() {
        var one: UInt8 = 1
        // EAGAIN means the pipe is full: a wake-up is already pending, which is all this is for.
        // Nothing else can fail on a pipe this object owns until deinit.
        _ = try? syscall("write(wakeup)") { write(writeEnd, &one, 1) }
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        // Stops at EAGAIN (empty): the pipe is non-blocking and only ever holds wake-up bytes.
        while (try? syscall("read(wakeup)") { read(fd, &buffer, buffer.count) }) ?? 0 > 0 {}
    }
}
