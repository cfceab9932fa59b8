import DropTrackHTTP1
import DropTrackTesting
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Records every request and answers by path: `/sse` streams, `/slow` takes a while, `/status/N` answers N, and
/// anything else is echoed back.
private final class RecordingHandler: HTTPHandler {
    let requests = Mutex<[HTTPRequest]>([])
    let streams = Mutex<[EventStream]>([])
    let slowStarted = Atomic<Int>(0)

    var requestCount: Int { requests.withLock { $0.count } }
    var lastRequest: HTTPRequest? { requests.withLock { $0.last } }
    var firstStream: EventStream? { streams.withLock { $0.first } }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        requests.withLock { $0.append(request) }
        if request.path == "/sse" {
            return .eventStream { [self] stream in streams.withLock { $0.append(stream) } }
        }
        if request.path == "/slow" {
            slowStarted.add(1, ordering: .sequentiallyConsistent)
            usleep(600_000)
            return .response(.text(200, "slow done"))
        }
        if request.path == "/json" { return .response(.json(200, Array(#"{"ok":true}"#.utf8))) }
        if request.path == "/text" { return .response(.text(418, "short and stout")) }
        if request.path.hasPrefix("/status/"), let status = Int(request.path.dropFirst("/status/".count)) {
            return .response(HTTPResponse(status: status, body: Array("status \(status)".utf8)))
        }
        return .response(
            HTTPResponse(
                status: request.method == "POST" ? 201 : 200,
                headers: [
                    (name: "Content-Type", value: "application/octet-stream"),
                    (name: "X-Echo-Method", value: request.method), (name: "X-Echo-Path", value: request.path),
                ],
                body: request.body))
    }
}

@Suite("HTTP/1.1 server on libmicrohttpd")
struct HTTP1ServerTests {
    @Test("GET and POST round trip through URLSession: method, decoded path and query, headers, body, status")
    func roundTrip() async throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        #expect(server.port == port)
        let session = URLSession(configuration: .ephemeral)

        let query = "name=J%C3%BCrgen&expr=1%2B2%3D3&amp=a%26b&empty="
        var get = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/items/a%20b?\(query)")!)
        get.setValue("Value-1", forHTTPHeaderField: "X-Custom-Header")
        get.timeoutInterval = 5
        let (getBody, getResponse) = try await session.data(for: get)
        let getHTTP = try #require(getResponse as? HTTPURLResponse)
        #expect(getHTTP.statusCode == 200)
        #expect(getHTTP.value(forHTTPHeaderField: "X-Echo-Method") == "GET")
        #expect(getHTTP.value(forHTTPHeaderField: "Content-Length") == "0")
        #expect(getBody.isEmpty)
        let seenGet = try #require(handler.lastRequest)
        #expect(seenGet.method == "GET")
        #expect(seenGet.path == "/items/a b")
        #expect(seenGet.query == ["name": "Jürgen", "expr": "1+2=3", "amp": "a&b", "empty": ""])
        #expect(seenGet.headers["x-custom-header"] == "Value-1")
        #expect(seenGet.headers["host"] == "127.0.0.1:\(port)")
        #expect(seenGet.headers.keys.allSatisfy { $0 == $0.lowercased() })
        #expect(seenGet.body.isEmpty)

        let payload = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/things")!)
        post.httpMethod = "POST"
        post.httpBody = Data(payload)
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.timeoutInterval = 5
        let (postBody, postResponse) = try await session.data(for: post)
        let postHTTP = try #require(postResponse as? HTTPURLResponse)
        #expect(postHTTP.statusCode == 201)
        #expect(postHTTP.value(forHTTPHeaderField: "X-Echo-Path") == "/api/things")
        #expect(postHTTP.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(postHTTP.value(forHTTPHeaderField: "Content-Length") == "3000")
        #expect(Array(postBody) == payload)
        let seenPost = try #require(handler.lastRequest)
        #expect(seenPost.method == "POST")
        #expect(seenPost.path == "/api/things")
        #expect(seenPost.query.isEmpty)
        #expect(seenPost.headers["content-type"] == "application/json")
        #expect(seenPost.body == payload)
        #expect(handler.requestCount == 2)
    }

    @Test("keep-alive: sequential and pipelined requests on one TCP connection are all answered")
    func keepAlive() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let connection = try RawConnection(port: port)

        try connection.send("GET /json HTTP/1.1\r\nHost: test\r\n\r\n")
        let first = try connection.readResponse()
        #expect(first.status == 200)
        #expect(first.headers["content-type"] == "application/json; charset=utf-8")
        #expect(first.headers["content-length"] == "11")
        #expect(first.headers["connection"] == nil)
        #expect(first.text == #"{"ok":true}"#)

        try connection.send("GET /text HTTP/1.1\r\nHost: test\r\n\r\n")
        let second = try connection.readResponse()
        #expect(second.status == 418)
        #expect(second.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(second.text == "short and stout")

        try connection.send(
            "POST /one HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabcGET /two HTTP/1.1\r\nHost: test\r\n\r\n")
        let third = try connection.readResponse()
        #expect(third.status == 201)
        #expect(third.text == "abc")
        let fourth = try connection.readResponse()
        #expect(fourth.status == 200)
        #expect(fourth.headers["x-echo-path"] == "/two")
        #expect(handler.requestCount == 4)
    }

    @Test("a body over the limit gets 413 naming the limit, the handler is not called, and serving goes on")
    func bodyTooLarge() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler, maxBodyBytes: 1024)
        let port = try server.start(port: 0)
        defer { server.stop() }

        func expectTooLarge(_ response: RawResponse) throws {
            #expect(response.status == 413)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let error = try #require(json["error"] as? [String: Any])
            #expect(error["code"] as? String == "body_too_large")
            #expect((error["message"] as? String)?.contains("1024") == true)
        }

        // Declared by Content-Length: refused before the body is read; the connection then closes.
        let declared = try RawConnection(port: port)
        try declared.send(
            "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 4096\r\n\r\n" + String(repeating: "x", count: 4096))
        try expectTooLarge(try declared.readResponse())

        // Chunked, so no size up front: the body is read and dropped, and the connection stays usable.
        let chunked = try RawConnection(port: port)
        let chunk = String(repeating: "y", count: 600)
        try chunked.send(
            "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "258\r\n\(chunk)\r\n", count: 3) + "0\r\n\r\n")
        try expectTooLarge(try chunked.readResponse())
        #expect(handler.requestCount == 0)
        try chunked.send("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try chunked.readResponse().headers["x-echo-path"] == "/after")

        // Exactly at the limit is fine.
        let atLimit = try RawConnection(port: port)
        try atLimit.send(
            "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1024\r\n\r\n" + String(repeating: "z", count: 1024))
        let accepted = try atLimit.readResponse()
        #expect(accepted.status == 201)
        #expect(accepted.body.count == 1024)
        #expect(handler.requestCount == 2)
        #expect(handler.requests.withLock { $0.map(\.path) } == ["/after", "/upload"])
    }

    @Test("malformed requests get a 4xx (or, for a line with no spaces, a closed connection) and serving goes on")
    func malformedRequests() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }

        for request in [
            "GET / FOO/1.1\r\nHost: test\r\n\r\n", "GET /x\r\n\r\n", "GET  HTTP/1.1\r\n\r\n",
            "GET /x HTTP/1.\r\nHost: test\r\n\r\n", "GET /x HTTP/1.1 extra\r\nHost: test\r\n\r\n",
            "GET /x HTTP/1.1\r\nHost: test\r\nNo colon here\r\n\r\n",
            "POST /x HTTP/1.1\r\nHost: test\r\nContent-Length: ten\r\n\r\n",
        ] {
            let connection = try RawConnection(port: port)
            try connection.send(request)
            let status = try connection.readResponse().status
            #expect((400..<500).contains(status), "\(request.debugDescription) got \(status)")
        }
        // libmicrohttpd 0.9.75 drops a request line without any space rather than answering it.
        for request in ["GARBAGE\r\n\r\n", "\u{1}\u{2}\u{FF}\r\n\r\n"] {
            let connection = try RawConnection(port: port)
            try connection.send(request)
            #expect(connection.waitForClose(timeout: .seconds(5)), "\(request.debugDescription) left open")
        }
        // With a NUL in the line it waits for more until the connection timeout; the other connections carry on.
        let stuck = try RawConnection(port: port)
        try stuck.send("\u{0}\u{1}\r\n\r\n")
        #expect(handler.requestCount == 0)

        let connection = try RawConnection(port: port)
        try connection.send("GET /still-here HTTP/1.1\r\nHost: test\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["x-echo-path"] == "/still-here")
    }

    @Test("clients that leave mid-request, mid-body or while their handler runs do not disturb the server")
    func clientsLeavingMidRequest() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler, threads: 2)
        let port = try server.start(port: 0)
        defer { server.stop() }
        for partial in [
            "GET /half-a-line", "GET /x HTTP/1.1\r\nHost: te",
            "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\nonly a little",
            "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
        ] {
            let connection = try RawConnection(port: port)
            try connection.send(partial)
            connection.close()
        }
        // The handler still runs for a client gone after sending, and its answer goes nowhere.
        let impatient = try RawConnection(port: port)
        try impatient.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(eventually { handler.slowStarted.load(ordering: .sequentiallyConsistent) == 1 })
        impatient.close()
        #expect(eventually { handler.requestCount == 1 })

        let connection = try RawConnection(port: port)
        try connection.send("GET /still-here HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try connection.readResponse().headers["x-echo-path"] == "/still-here")
        #expect(handler.requests.withLock { $0.map(\.path) } == ["/slow", "/still-here"])
    }

    @Test("a handler's impossible status reaches the client as a 500")
    func invalidStatus() throws {
        let server = HTTPServer(handler: RecordingHandler())
        let port = try server.start(port: 0)
        defer { server.stop() }
        let connection = try RawConnection(port: port)
        for (status, expected) in [(42, 500), (101, 500), (1000, 500), (299, 299)] {
            try connection.send("GET /status/\(status) HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try connection.readResponse().status == expected)
        }
    }

    @Test("200 requests from 20 threads are all answered")
    func concurrency() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler, threads: 4)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let results = Collector<String>()
        let group = DispatchGroup()
        for thread in 0..<20 {
            group.enter()
            Thread {
                defer { group.leave() }
                // Half the threads open a connection per request, half keep one alive for all ten.
                var shared: RawConnection? = nil
                for index in 0..<10 {
                    let path = "/c/\(thread)/\(index)"
                    do {
                        let connection = try shared ?? RawConnection(port: port)
                        if thread % 2 == 0 { shared = connection }
                        try connection.send(
                            "POST \(path) HTTP/1.1\r\nHost: test\r\nContent-Length: \(path.utf8.count)\r\n\r\n\(path)")
                        let response = try connection.readResponse(timeout: .seconds(20))
                        let good =
                            response.status == 201 && response.text == path
                            && response.headers["x-echo-path"] == path
                        results.append(good ? path : "wrong answer for \(path): \(response.status)")
                    } catch {
                        results.append("\(path): \(error)")
                    }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        let expected = Set((0..<20).flatMap { thread in (0..<10).map { "/c/\(thread)/\($0)" } })
        let answered = results.all
        #expect(answered.count == 200)
        #expect(Set(answered) == expected, "\(Set(answered).subtracting(expected).sorted().prefix(5))")
        #expect(handler.requestCount == 200)
    }

    @Test("SSE: events from another thread arrive in order and framed, heartbeats flow, a departed client is freed")
    func eventStream() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler, heartbeat: .milliseconds(100))
        let port = try server.start(port: 0)
        defer { server.stop() }
        let client = try RawConnection(port: port)
        try client.send("GET /sse HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        #expect(head.headers["cache-control"] == "no-cache")
        #expect(head.headers["transfer-encoding"] == "chunked")
        #expect(eventually { handler.firstStream != nil })
        let stream = try #require(handler.firstStream)
        #expect(server.openEventStreams == 1)
        #expect(!stream.isClosed)

        let count = 40
        Thread {
            for index in 0..<count {
                stream.send(event: "step", id: "\(index)", data: "line one \(index)\nline two\r\nline three")
                if index % 10 == 0 { usleep(20_000) }
            }
            stream.send(data: "")
        }.start()
        var text = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while parseEvents(text).count < count + 1, let chunk = try client.readChunk(timeout: deadline - .now) {
            text += String(decoding: chunk, as: UTF8.self)
        }
        let events = parseEvents(text)
        #expect(events.count == count + 1)
        #expect(
            events.prefix(count)
                == (0..<count).map {
                    ServerSentEvent(event: "step", id: "\($0)", data: "line one \($0)\nline two\nline three")
                }[...])
        #expect(events.last == ServerSentEvent(event: nil, id: nil, data: ""))
        #expect(text.contains("event: step\nid: 7\ndata: line one 7\ndata: line two\ndata: line three\n\n"))

        // Idle now: a heartbeat comment arrives within a few periods.
        let idleFrom = text.endIndex
        let pingDeadline = ContinuousClock.now + .seconds(5)
        while !text[idleFrom...].contains(": ping\n\n"), let chunk = try client.readChunk(timeout: pingDeadline - .now)
        {
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text[idleFrom...].contains(": ping\n\n"))
        #expect(!stream.isClosed)

        // The client goes away; a suspended connection notices nothing, but the next heartbeats fail to write.
        client.close()
        #expect(eventually(timeout: .seconds(5)) { stream.isClosed && server.openEventStreams == 0 })
        stream.send(data: "after the client left")
        #expect(server.openEventStreams == 0)
    }

    @Test("SSE: close() from the server ends the response cleanly and the connection serves on")
    func eventStreamClosedByServer() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let client = try RawConnection(port: port)
        try client.send("GET /sse HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readHead().status == 200)
        #expect(eventually { handler.firstStream != nil })
        let stream = try #require(handler.firstStream)
        stream.send(id: "last", data: "bye")
        stream.close()
        #expect(stream.isClosed)
        var text = ""
        while let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        #expect(parseEvents(text) == [ServerSentEvent(event: nil, id: "last", data: "bye")])
        #expect(eventually { server.openEventStreams == 0 })
        try client.send("GET /next HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().headers["x-echo-path"] == "/next")
    }

    @Test("SSE: a client that stops reading has its stream closed once too many events wait")
    func slowClient() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler, maximumQueuedEvents: 8)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let client = try RawConnection(port: port)
        try client.send("GET /sse HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readHead().status == 200)
        #expect(eventually { handler.firstStream != nil })
        let stream = try #require(handler.firstStream)
        #expect(stream.maximumQueued == 8)

        // Far more than the socket buffers hold: with nobody reading, the queue must overflow.
        let big = String(repeating: "x", count: 64 * 1024)
        var sent = 0
        while !stream.isClosed && sent < 2000 {
            stream.send(data: big)
            sent += 1
            if sent % 8 == 0 { usleep(1_000) }
        }
        #expect(stream.isClosed)
        #expect(sent < 2000)

        // Reading again drains what was already in flight, then the connection drops without the final chunk.
        var tail: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let chunk = try? client.readChunk(timeout: deadline - .now) else { break }
            tail = Array((tail + chunk).suffix(16))
        }
        #expect(client.sawEOF)
        #expect(eventually { server.openEventStreams == 0 })
    }

    @Test("stop() with an SSE client connected returns promptly, frees the stream and closes the port")
    func stopWithOpenStream() throws {
        let handler = RecordingHandler()
        // A long heartbeat, so only stop() can wake the suspended connection.
        let server = HTTPServer(handler: handler, heartbeat: .seconds(60))
        let port = try server.start(port: 0)
        let client = try RawConnection(port: port)
        try client.send("GET /sse HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readHead().status == 200)
        #expect(eventually { handler.firstStream != nil })
        let stream = try #require(handler.firstStream)
        stream.send(data: "one")
        #expect(
            parseEvents(String(decoding: try #require(try client.readChunk()), as: UTF8.self)).map(\.data) == ["one"])
        usleep(50_000)  // let the reader find the queue empty and suspend

        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(stream.isClosed)
        #expect(server.openEventStreams == 0)
        #expect(client.waitForClose(timeout: .seconds(5)))
        #expect(connectionRefused(port: port))
        server.stop()  // idempotent
        #expect(throws: HTTPServerError.self) { try server.start(port: 0) }
    }

    @Test("stopAccepting() refuses new connections while a request in flight completes")
    func stopAccepting() throws {
        let handler = RecordingHandler()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let client = try RawConnection(port: port)
        try client.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(eventually { handler.slowStarted.load(ordering: .sequentiallyConsistent) == 1 })

        server.stopAccepting()
        server.stopAccepting()
        #expect(connectionRefused(port: port))
        let response = try client.readResponse(timeout: .seconds(5))
        #expect(response.status == 200)
        #expect(response.text == "slow done")
    }

    @Test("start() names the address it cannot bind")
    func bindErrors() throws {
        let first = HTTPServer(handler: RecordingHandler())
        let port = try first.start(port: 0)
        defer { first.stop() }
        let second = HTTPServer(handler: RecordingHandler())
        let inUse = #expect(throws: HTTPServerError.self) { try second.start(port: port) }
        #expect(inUse?.message.contains("127.0.0.1:\(port)") == true)
        let badHost = #expect(throws: HTTPServerError.self) { try second.start(host: "localhost", port: 0) }
        #expect(badHost?.message.contains("localhost:0") == true)
        #expect(throws: HTTPServerError.self) { try first.start(port: 0) }
        #expect(second.port == 0)
    }
}
