import DropTrackCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Serves HTTP/1.1 on a TLS connection whose client did not offer h2, through the same handler.
/// Requests are handled one at a time with `Content-Length` bodies (what HTTP/1.1 clients of the
/// FCM API send); chunked uploads are refused with 411.
struct HTTP1Fallback {
    let session: ServerSession
    let handler: any HTTP2ServerHandler
    let context: HTTP2ServerConnectionContext
    let server: HTTP2Server
    static let maxHeaderBytes = 64 * 1024
    static let maxBodyBytes = 8 * 1024 * 1024

    func run() {
        var buffer: [UInt8] = session.initialInput
        session.initialInput = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var counter: Int32 = 1
        defer { session.closeSocket() }
        while !server.isStopping {
            guard let headerEnd = readUntilHeaderEnd(&buffer, &scratch) else { return }
            let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
            buffer.removeSubrange(..<(headerEnd + 4))
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count == 3 else {
                write(HTTP2ServerResponse(status: 400, body: Array("malformed request line".utf8)), close: true)
                return
            }
            var headers: [HTTPHeader] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append(
                    HTTPHeader(
                        line[..<colon].lowercased(),
                        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            if headers.value(of: "transfer-encoding") != nil {
                write(HTTP2ServerResponse(status: 411, body: Array("send a Content-Length body".utf8)), close: true)
                return
            }
            let length = Int(headers.value(of: "content-length") ?? "0") ?? -1
            guard length >= 0, length <= HTTP1Fallback.maxBodyBytes else {
                write(HTTP2ServerResponse(status: 413, body: Array("body too large".utf8)), close: true)
                return
            }
            while buffer.count < length {
                guard readSome(&buffer, &scratch) else { return }
            }
            let body = Array(buffer[..<length])
            buffer.removeSubrange(..<length)
            let request = HTTP2ServerRequest(
                method: String(requestLine[0]), path: String(requestLine[1]),
                authority: headers.value(of: "host") ?? "",
                headers: headers.filter { $0.name != "host" && $0.name != "content-length" && $0.name != "connection" },
                body: body, streamID: counter, httpVersion: "1.1")
            counter += 2
            let closeAfter = headers.value(of: "connection")?.lowercased() == "close"
            switch handler.handle(request, context: context) {
            case .respond(let response): write(response, close: closeAfter)
            case .respondAfter(let delay, let response):
                Thread.sleep(
                    forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                write(response, close: closeAfter)
            case .goAway, .resetStream: return
            case .resetConnection:
                session.abortConnection("connection reset on purpose")
                return
            }
            if closeAfter { return }
        }
    }

    private func readUntilHeaderEnd(_ buffer: inout [UInt8], _ scratch: inout [UInt8]) -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                var index = searchFrom
                while index + 4 <= buffer.count {
                    if buffer[index] == 13 && Array(buffer[index..<(index + 4)]) == marker { return index }
                    index += 1
                }
                searchFrom = max(0, buffer.count - 3)
            }
            if buffer.count > HTTP1Fallback.maxHeaderBytes { return nil }
            guard readSome(&buffer, &scratch) else { return nil }
        }
    }

    private func readSome(_ buffer: inout [UInt8], _ scratch: inout [UInt8]) -> Bool {
        while true {
            let result = scratch.withUnsafeMutableBytes { session.tls.read(into: $0) }
            switch result {
            case .bytes(let count):
                buffer.append(contentsOf: scratch[..<count])
                return true
            case .wantRead:
                if !HTTP1Fallback.wait(for: POLLIN, on: session.fd) { return false }
            case .wantWrite:
                if !HTTP1Fallback.wait(for: POLLOUT, on: session.fd) { return false }
            case .closed, .failed: return false
            }
        }
    }

    private func write(_ response: HTTP2ServerResponse, close: Bool) {
        var text = "HTTP/1.1 \(response.status) \(HTTP1Fallback.reasonPhrase(response.status))\r\n"
        for header in response.headers { text += "\(header.name): \(header.value)\r\n" }
        text += "content-length: \(response.body.count)\r\n"
        if close { text += "connection: close\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        bytes.append(contentsOf: response.body)
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { session.tls.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch result {
            case .bytes(let count): offset += count
            case .wantWrite, .wantRead:
                if !HTTP1Fallback.wait(for: POLLOUT | POLLIN, on: session.fd) { return }
            case .closed, .failed: return
            }
        }
    }

    /// Waits up to 30 s for `events`; false on timeout or a failed poll, which both end the connection.
    private static func wait(for events: Int32, on fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(events), revents: 0)
        return ((try? syscall("poll") { poll(&pfd, 1, 30_000) }) ?? 0) > 0
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
