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

    init(_ call: String, errnoCode: Int32 = errno, detail: String = "") {
        self.call = call
        self.errnoCode = errnoCode
        self.detail = detail
    }

    public var description: String {
        let reason = String(cString: strerror(errnoCode))
        return detail.isEmpty ? "\(call) failed: \(reason)" : "\(call) failed: \(reason) (\(detail))"
    }
}

/// Thin wrappers over the POSIX calls the HTTP/2 layer needs. Every socket is non-blocking.
enum Socket {
    static func ignoreSIGPIPE() {
        // A peer that closed its end would otherwise kill the process inside SSL_write.
        signal(SIGPIPE, SIG_IGN)
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
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
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw SocketError("socket") }
            setNonBlocking(fd)
            setNoDelay(fd)
            let rc = address.withUnsafeBytes {
                Glibc.connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            if rc == 0 { return fd }
            if errno != EINPROGRESS {
                lastError = SocketError("connect", detail: "\(host):\(port)")
                close(fd)
                continue
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&pfd, 1, max(ms, 1))
            if ready == 0 {
                lastError = SocketError("connect", errnoCode: ETIMEDOUT, detail: "\(host):\(port)")
                close(fd)
                continue
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return fd }
            lastError = SocketError("connect", errnoCode: soError, detail: "\(host):\(port)")
            close(fd)
        }
        throw lastError
    }

    /// Listens on an IPv4 address; port 0 picks a free port. Returns the socket and the bound port.
    static func listen(host: String, port: Int, backlog: Int32 = 512) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw SocketError("inet_pton", errnoCode: EINVAL, detail: "\(host) is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = SocketError("bind", detail: "\(host):\(port)")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SocketError("listen")
            close(fd)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
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

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SocketError("pipe") }
        fd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            Socket.setNonBlocking(end)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(fd)
        close(writeEnd)
    }

    func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
