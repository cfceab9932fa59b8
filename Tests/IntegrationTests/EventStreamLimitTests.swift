import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackTesting
import Foundation
import Synchronization
import Testing

extension ServerHarness {
    /// Opens `GET /v1/events` with `key` on a connection of its own; the head is read, the body is not.
    func openStream(key: String, query: String = "") throws -> (connection: RawConnection, status: Int) {
        let connection = try RawConnection(port: port)
        try connection.send("GET /v1/events\(query) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n\r\n")
        return (connection, try connection.readHead().status)
    }

    /// A refused stream's whole answer.
    func refusedStream(key: String) throws -> RawResponse {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        try connection.send(
            "GET /v1/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(key)\r\n\r\n")
        return try connection.readResponse()
    }
}

/// Reads a stream's chunks until the event holding `marker` has arrived whole, the stream ends, or `timeout`
/// passes; returns the text read. Searches only new bytes, so megabytes of events cost no more than reading them.
func readEvents(_ connection: RawConnection, timeout: Duration, through marker: String) -> String {
    var bytes: [UInt8] = []
    let needle = Array(marker.utf8)
    var searchFrom = 0
    var found: Int? = nil
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if found == nil, let at = firstIndex(of: needle, in: bytes, from: searchFrom) { found = at + needle.count }
        searchFrom = max(0, bytes.count - needle.count)
        if let found, firstIndex(of: Array("\n\n".utf8), in: bytes, from: found) != nil { break }
        guard let chunk = try? connection.readChunk(timeout: deadline - .now) else { break }
        bytes += chunk
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    var index = start
    while index <= haystack.count - needle.count {
        if haystack[index] == needle[0] && Array(haystack[index..<index + needle.count]) == needle { return index }
        index += 1
    }
    return nil
}

@Suite("SSE streams: per-key and total limits, unsubscribe on close, slow subscribers")
struct EventStreamLimitTests {
    @Test("an 11th stream from one key is refused with 429 naming the limit, another key still gets one")
    func perKeyLimit() throws {
        let server = try ServerHarness(engine: .memory)
        defer { server.stop() }
        var open: [RawConnection] = []
        for _ in 0..<10 {
            let (connection, status) = try server.openStream(key: "key-app1")
            #expect(status == 200)
            open.append(connection)
        }
        let refused = try server.refusedStream(key: "key-app1")
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "10")
        let error = try JSONValue.parse(bytes: refused.body)["error"]
        #expect(error?["code"]?.stringValue == "too_many_streams")
        #expect(error?["message"]?.stringValue?.contains("10 open event streams") == true)

        let (theirs, status) = try server.openStream(key: "key-app2")
        #expect(status == 200, "another key is not held back by app1's streams")
        #expect(readEvents(theirs, timeout: .seconds(5), through: "event: ready").contains("event: ready"))

        // A departed client gives its place back (found by the next heartbeat), with no event published.
        open.removeLast().close()
        #expect(eventually(timeout: .seconds(10)) { server.events.openStreams(key: keyFingerprint("key-app1")) == 9 })
        let (again, againStatus) = try server.openStream(key: "key-app1")
        #expect(againStatus == 200)
        again.close()
        for connection in open { connection.close() }
    }

    @Test("past the server's total, a stream is refused with 503 and Retry-After, whatever the key")
    func totalLimit() throws {
        let server = try ServerHarness(engine: .memory, eventStreams: EventStreamLimits(perKey: 10, total: 3))
        defer { server.stop() }
        let open = try [
            server.openStream(key: "key-app1"), server.openStream(key: "key-app1"),
            server.openStream(key: "key-app2"),
        ]
        #expect(open.map(\.status) == [200, 200, 200])
        for key in ["key-app1", "key-app2"] {
            let refused = try server.refusedStream(key: key)
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "10")
            #expect(try JSONValue.parse(bytes: refused.body)["error"]?["code"]?.stringValue == "streams_exhausted")
        }
        #expect(server.events.openStreams == 3)
        // Other requests are served: the cap leaves connections for the API.
        #expect(try server.call("GET", "/v1/activities/none").status == 404)
        for (connection, _) in open { connection.close() }
    }

    @Test("a closed stream is unsubscribed and its place freed without any further event")
    func unsubscribeOnClose() throws {
        let server = try ServerHarness(engine: .memory)
        defer { server.stop() }
        let (connection, status) = try server.openStream(key: "key-app1")
        #expect(status == 200)
        #expect(eventually { server.events.count(app: "app1") == 1 && server.events.openStreams == 1 })
        connection.close()
        #expect(eventually(timeout: .seconds(10)) { server.events.count(app: "app1") == 0 })
        #expect(server.events.openStreams == 0)
    }

    @Test("a client that stops reading loses the oldest events and is told; the reader gets the latest")
    func stalledClient() throws {
        let server = try ServerHarness(engine: .memory)
        defer { server.stop() }
        let (stalled, stalledStatus) = try server.openStream(key: "key-app1")
        let (reader, readerStatus) = try server.openStream(key: "key-app1")
        #expect(stalledStatus == 200 && readerStatus == 200)
        #expect(eventually { server.events.count(app: "app1") == 2 })
        // 10,000 events of 4 KB: far more than the socket buffers and the stream's queue hold.
        let pad = JSONValue.string(String(repeating: "x", count: 4096))
        for number in 0..<10_000 {
            server.events.publish(
                app: "app1", event: "send", payload: .object(["n": .number(Double(number)), "pad": pad]))
        }
        let last = #"data: {"n":9999,"#
        let read = readEvents(reader, timeout: .seconds(60), through: last)
        #expect(read.contains(last), "the reading subscriber gets the newest event")
        let late = readEvents(stalled, timeout: .seconds(60), through: last)
        #expect(late.contains(last), "the stalled subscriber gets the newest event once it reads")
        let notices = parseEvents(late).filter { $0.event == "dropped" }
        let dropped = notices.compactMap { try? JSONValue.parse($0.data)["dropped"]?.numberValue }.reduce(0, +)
        let received = parseEvents(late).filter { $0.event == "send" }.count
        #expect(dropped > 0, "the stalled subscriber is told it lost events")
        #expect(
            Int(dropped) + received == 10_000,
            "every event is received or counted as dropped: \(notices.map(\.data)), \(received) received")
        stalled.close()
        reader.close()
    }

    @Test("publish returns while a subscriber is blocked; it then gets the newest events and the count it lost")
    func publishNeverWaitsForSubscribers() {
        let bus = EventBus(limits: EventStreamLimits(backlog: 100))
        let release = DispatchSemaphore(value: 0)
        let deliveries = Collector<EventBus.Delivery>()
        let id = bus.subscribe(app: "a") { delivery in
            if deliveries.all.isEmpty { _ = release.wait(timeout: .now() + 10) }
            deliveries.append(delivery)
        }
        let published = Atomic(0)
        for number in 0..<10_000 {
            bus.publish(app: "a", event: "send", payload: .object(["n": .number(Double(number))]))
            published.add(1, ordering: .relaxed)
        }
        #expect(published.load(ordering: .relaxed) == 10_000)
        #expect(deliveries.all.isEmpty, "every publish returned while the subscriber was still blocked")
        release.signal()
        #expect(eventually { deliveries.all.last?.events.last?.payload["n"]?.numberValue == 9999 })
        let total = deliveries.all.reduce(0) { $0 + $1.events.count + $1.dropped }
        #expect(total == 10_000, "every event is delivered or counted as dropped")
        #expect(deliveries.all.dropFirst().contains { $0.dropped > 0 })
        bus.unsubscribe(app: "a", id: id)
        #expect(bus.count(app: "a") == 0)
    }
}

/// Keeps the streams it opens, for tests of `EventStream` itself.
private final class StreamKeeper: HTTPHandler {
    let streams = Mutex<[EventStream]>([])
    var first: EventStream? { streams.withLock { $0.first } }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        .eventStream { [self] stream in streams.withLock { $0.append(stream) } }
    }
}

@Suite("EventStream batches: drop the oldest for a slow client and say so")
struct EventStreamBatchTests {
    @Test("a client that stops reading stays connected, loses the oldest frames, and is told how many")
    func dropsOldest() throws {
        // Far more than the socket buffers hold, in batches as the event bus sends them. Made before the client
        // connects: under a loaded CI machine, making them between sends took longer than the server's 30 s
        // connection timeout, and libmicrohttpd closed the stalled connection before the client began to read.
        let big = String(repeating: "x", count: 64 * 1024)
        let batches = (0..<100).map { batch in
            (0..<20).map { EventStream.frame(event: "n", id: nil, data: "\(batch * 20 + $0) " + big) }
        }
        let keeper = StreamKeeper()
        let server = HTTPServer(handler: keeper, heartbeat: .milliseconds(200), maximumQueuedEvents: 8)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let client = try RawConnection(port: port)
        try client.send("GET /sse HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readHead().status == 200)
        #expect(eventually { keeper.first != nil })
        let stream = try #require(keeper.first)
        let closed = Atomic(false)
        stream.onClose { closed.store(true, ordering: .relaxed) }
        for (batch, frames) in batches.enumerated() { stream.send(frames: frames, dropped: batch == 50 ? 5 : 0) }
        #expect(!stream.isClosed, "the stream drops rather than closes")
        let text = readEvents(client, timeout: .seconds(30), through: "data: 1999 ")
        let events = parseEvents(text)
        let received = events.filter { $0.event == "n" }.count
        let dropped = events.filter { $0.event == "dropped" }
            .compactMap { try? JSONValue.parse($0.data)["dropped"]?.numberValue }.reduce(0, +)
        #expect(dropped > 5)
        #expect(received + Int(dropped) == 2000 + 5, "every frame arrives or is counted, with the caller's 5")
        #expect(events.last { $0.event == "n" }?.data.hasPrefix("1999 ") == true)
        let closedEarly = closed.load(ordering: .relaxed)
        #expect(!closedEarly)
        client.close()
        let noticed = eventually(timeout: .seconds(10)) { closed.load(ordering: .relaxed) }
        #expect(noticed, "onClose runs once it is gone")
    }
}

/// How the API names a key in its stream counts.
func keyFingerprint(_ key: String) -> String { Fingerprint(of: key).value }
