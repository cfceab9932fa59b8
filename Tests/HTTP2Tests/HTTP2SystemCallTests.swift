import Foundation
import Testing

@testable import DropTrackHTTP2

#if canImport(Glibc)
    import Glibc
#endif

@Suite("HTTP/2 system calls")
struct HTTP2SystemCallTests {
    @Test("a call interrupted by a signal is made again until it succeeds")
    func retriesInterruptedCalls() throws {
        var attempts = 0
        let result = try syscall("read(test)") { () -> Int in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42)
        #expect(attempts == 3)
    }

    @Test("errno becomes a typed error naming the call, without a retry")
    func mapsErrno() {
        var attempts = 0
        #expect(throws: SystemCallError(call: "setsockopt(TCP_NODELAY)", errno: EBADF)) {
            try syscall("setsockopt(TCP_NODELAY)") { () -> Int32 in
                attempts += 1
                errno = EBADF
                return -1
            }
        }
        #expect(attempts == 1)
    }

    @Test("a call that must not be repeated reports EINTR instead of retrying")
    func noRetryWhenAsked() {
        var attempts = 0
        #expect(throws: SystemCallError(call: "connect", errno: EINTR)) {
            try syscall("connect", retryOnInterrupt: false) { () -> Int32 in
                attempts += 1
                errno = EINTR
                return -1
            }
        }
        #expect(attempts == 1)
    }

    @Test("results other than -1 pass through, and real calls fail with their errno")
    func realCalls() throws {
        #expect(try syscall("getpid") { getpid() } == getpid())
        // A descriptor number no process has open.
        #expect(throws: SystemCallError(call: "close", errno: EBADF)) { try Socket.close(-1) }
        #expect(throws: SystemCallError(call: "fcntl(F_GETFL)", errno: EBADF)) { try Socket.setNonBlocking(-1) }
        #expect(throws: SystemCallError(call: "setsockopt(TCP_NODELAY)", errno: EBADF)) { try Socket.setNoDelay(-1) }
        #expect(SystemCallError(call: "close", errno: EBADF).description == "close failed: Bad file descriptor")
    }

    @Test("the wake-up pipe wakes a poll and drains")
    func wakeup() throws {
        let wakeup = try Wakeup()
        wakeup.signal()
        wakeup.signal()
        var pfd = pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)
        #expect(try syscall("poll") { poll(&pfd, 1, 0) } == 1)
        wakeup.drain()
        pfd.revents = 0
        #expect(try syscall("poll") { poll(&pfd, 1, 0) } == 0)
    }
}
