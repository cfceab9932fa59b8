import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP listener on 127.0.0.1 that reads HTTP/1.1 requests and answers each as scripted, byte for
/// byte: what a hostile webhook receiver does (redirects, endless bodies, bogus encodings, silence).
/// It counts connections, so a test can show that something was never even connected to.
package final class ScriptedReceiver: Sendable {
    /// How it answers every request.
    package enum Script: Sendable {
        /// These bytes, then the connection stays open for the next request.
        case answer(String)
        /// This head, then `bodyBytes` of zeros written as fast as the client reads, then close.
        case stream(head: String, bodyBytes: Int)
        /// Nothing, until `stop()`.
        case hang
    }

    /// One request as read.
    package struct Request: Sendable {
        package var head: String
        package var body: [UInt8]
        /// The header's value, by lower-case name.
        package func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    private struct State {
        var script: Script
        var connections = 0
        var requests: [Request] = []
        var bodyBytesWritten = 0
        var stopped = false
        var sockets: [Int32] = []
    }

    private let listener: Int32
    private let state: Mutex<State>
    /// The bound port.
    package let port: Int

    /// Listens on a free port of 127.0.0.1.
    package init(_ script: Script) throws {
        state = Mutex(State(script: script))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT/hooks`.
    package var url: String { "http://127.0.0.1:\(port)/hooks" }
    /// Connections accepted so far.
    package var connections: Int { state.withLock { $0.connections } }
    /// Requests read so far.
    package var requests: [Request] { state.withLock { $0.requests } }
    /// Body bytes of `.stream` answers the client took before it closed.
    package var bodyBytesWritten: Int { state.withLock { $0.bodyBytesWritten } }

    /// Closes the listener and every connection.
    /// Only descriptors still open are shut down, under the lock that their closing also takes: a number
    /// closed earlier may already belong to another test's socket (a server's listener, say), which a stray
    /// `shutdown` would cut off. Stopping twice does nothing more.
    package func stop() {
        state.withLock {
            guard !$0.stopped else { return }
            $0.stopped = true
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            for fd in $0.sockets { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let fd = Self.retryingInterrupts { accept(listener, nil, nil) }
            guard fd >= 0 else { break }
            let kept = state.withLock {
                guard !$0.stopped else { return false }
                $0.connections += 1
                $0.sockets.append(fd)
                return true
            }
            guard kept else {
                close(fd)
                break
            }
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock {
                $0.sockets.removeAll { $0 == fd }
                close(fd)
            }
        }
        var buffer: [UInt8] = []
        while let request = read(fd, &buffer) {
            let script = state.withLock {
                $0.requests.append(request)
                return $0.script
            }
            switch script {
            case .answer(let bytes):
                guard write(fd, Array(bytes.utf8)) else { return }
            case .stream(let head, let bodyBytes):
                guard write(fd, Array(head.utf8)) else { return }
                let chunk = [UInt8](repeating: 0, count: 64 * 1024)
                var left = bodyBytes
                while left > 0 {
                    let count = min(left, chunk.count)
                    guard write(fd, Array(chunk.prefix(count))) else { return }
                    left -= count
                    state.withLock { $0.bodyBytesWritten += count }
                }
                return
            case .hang:
                while !state.withLock({ $0.stopped }) { usleep(20_000) }
                return
            }
        }
    }

    /// The next request on the connection, or nil once it closes.
    private func read(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        func fill() -> Bool {
            let count = Self.retryingInterrupts { recv(fd, &chunk, chunk.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk.prefix(count)
            return true
        }
        var end: Int?
        while end == nil {
            end = buffer.indices.dropLast(3).first { buffer[$0..<$0 + 4].elementsEqual(separator) }
            if end == nil, !fill() { return nil }
        }
        let head = String(decoding: buffer[..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var request = Request(head: head, body: [])
        let length = Int(request.header("content-length") ?? "0") ?? 0
        while buffer.count < length { if !fill() { return nil } }
        request.body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return request
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { buffer in
                Self.retryingInterrupts { send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// A signal (a child process ending, in a test process that runs the CLI) must not look like a hang-up.
    private static func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
