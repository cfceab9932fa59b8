import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

// A small blocking HTTP/1.1 client for tests of the HTTP/1.1 server and the API over it.

package struct ClientError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

package struct RawResponse {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    package var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client on a raw TCP socket. Every read has a deadline, so no test can hang on it.
package final class RawConnection {
    package private(set) var fd: Int32
    private var buffer: [UInt8] = []
    package private(set) var sawEOF = false
    /// Bytes received and not read yet (after `waitForClose`, whatever came before the close).
    package var receivedAfterClose: [UInt8] { buffer }

    /// Connects to 127.0.0.1:`port`; from `source` (another loopback address, such as 127.0.0.2) when
    /// given, so one test can be several clients to a server that tells them apart by address.
    package init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw ClientError("bind to \(source): errno \(code)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError("connect to 127.0.0.1:\(port): errno \(code)")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    package func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    package func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw ClientError("send: errno \(errno)") }
            sent += count
        }
    }

    /// Reads what is available, waiting until `deadline`. False once the server has closed the connection.
    @discardableResult
    private func fill(until deadline: ContinuousClock.Instant) throws -> Bool {
        if sawEOF { return false }
        let remaining = deadline - .now
        guard remaining > .zero else { throw ClientError("timed out waiting for the server") }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, max(1, milliseconds)) > 0 else {
            throw ClientError("timed out waiting for the server")
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 {
            sawEOF = true
            return false
        }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func line(until deadline: ContinuousClock.Instant) throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill(until: deadline) else { throw ClientError("connection closed mid-line") }
        }
    }

    private func bytes(_ count: Int, until deadline: ContinuousClock.Instant) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill(until: deadline) else { throw ClientError("connection closed mid-body") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// Reads a status line and headers (names lowercased).
    package func readHead(timeout: Duration = .seconds(5)) throws -> (status: Int, headers: [String: String]) {
        let deadline = ContinuousClock.now + timeout
        let statusLine = try line(until: deadline)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw ClientError("bad status line: \(statusLine)")
        }
        var headers: [String: String] = [:]
        while true {
            let header = try line(until: deadline)
            if header.isEmpty { break }
            guard let colon = header.firstIndex(of: ":") else { throw ClientError("bad header: \(header)") }
            headers[header[..<colon].lowercased()] = header[header.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    /// One chunk of a chunked body; nil for the last (empty) chunk, whose blank trailer line it consumes too.
    package func readChunk(timeout: Duration = .seconds(5)) throws -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        let sizeLine = try line(until: deadline)
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw ClientError("bad chunk size: \(sizeLine)")
        }
        let data = try bytes(size, until: deadline)
        guard try line(until: deadline).isEmpty else { throw ClientError("chunk not followed by CRLF") }
        return size == 0 ? nil : data
    }

    /// A whole response: Content-Length, chunked, or up to the end of the connection.
    package func readResponse(timeout: Duration = .seconds(5)) throws -> RawResponse {
        let deadline = ContinuousClock.now + timeout
        let (status, headers) = try readHead(timeout: timeout)
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try bytes(length, until: deadline)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk(timeout: deadline - .now) { body += chunk }
        } else {
            while try fill(until: deadline) {}
            body = buffer
            buffer.removeAll()
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True if the server closes the connection (or resets it) before `timeout`.
    package func waitForClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            do {
                if try !fill(until: deadline) { return true }
            } catch {
                return sawEOF
            }
        }
        return sawEOF
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
package func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// True if a TCP connect to the port is refused.
package func connectionRefused(port: Int) -> Bool {
    do {
        _ = try RawConnection(port: port)
        return false
    } catch {
        return String(describing: error).hasSuffix("errno \(ECONNREFUSED)")
    }
}

/// Thread-safe list for results gathered on several threads.
package final class Collector<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    package init() {}
    package func append(_ item: Element) { items.withLock { $0.append(item) } }
    package var all: [Element] { items.withLock { $0 } }
}

package struct ServerSentEvent: Equatable {
    package var event: String?
    package var id: String?
    package var data: String

    package init(event: String? = nil, id: String? = nil, data: String) {
        self.event = event
        self.id = id
        self.data = data
    }
}

/// Complete events in an SSE text, comments (heartbeats) skipped.
package func parseEvents(_ text: String) -> [ServerSentEvent] {
    var blocks = text.components(separatedBy: "\n\n")
    blocks.removeLast()  // incomplete, or empty after the final blank line
    return blocks.compactMap { block in
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.allSatisfy({ $0.hasPrefix(":") }) else { return nil }
        var event = ServerSentEvent(data: "")
        var data: [String] = []
        for line in lines {
            if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
            if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
            if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
        }
        event.data = data.joined(separator: "\n")
        return event
    }
}
