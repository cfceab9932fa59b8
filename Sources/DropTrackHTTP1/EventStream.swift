internal import CMicroHTTPD
import Synchronization

/// A live `text/event-stream` to one client. Thread-safe: any thread may send.
///
/// Events wait in a queue until libmicrohttpd's worker thread pulls them through the response's content reader; when
/// the queue is empty the connection is suspended, and `send` resumes it.
public final class EventStream: Sendable {
    /// How many events may wait for a slow client before the stream gives up on it and closes.
    public let maximumQueued: Int

    private struct State {
        /// Framed events not yet handed to libmicrohttpd, oldest first from `head`.
        var chunks: [[UInt8]] = []
        var head = 0
        /// Bytes of `chunks[head]` already handed over.
        var offset = 0
        var closed = false
        /// Closed because the client fell behind: the response ends with an error rather than a clean end.
        var overflowed = false
        /// Valid while the response lives; cleared by its free callback.
        var connection: ConnectionHandle?
        var suspended = false
        /// Something was queued since the last heartbeat tick, so the stream is not idle.
        var activeSinceTick = false

        var queuedCount: Int { chunks.count - head }

        mutating func append(_ bytes: [UInt8]) {
            if head > 0 && head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            chunks.append(bytes)
        }

        mutating func dropQueue() {
            chunks.removeAll()
            head = 0
            offset = 0
        }

        /// Resumes the connection if the reader suspended it. `suspended` implies the connection is still alive:
        /// libmicrohttpd never frees a suspended connection (stopping the daemon with one is an API violation).
        mutating func wake() {
            guard suspended, let connection else { return }
            suspended = false
            MHD_resume_connection(connection.pointer)
        }
    }

    private let state: Mutex<State>
    private let registry: EventStreamRegistry

    init(connection: ConnectionHandle, maximumQueued: Int, registry: EventStreamRegistry) {
        self.maximumQueued = max(1, maximumQueued)
        self.registry = registry
        self.state = Mutex(State(connection: connection))
    }

    /// Queues one event (`event: …`, `id: …`, then one `data:` line per line of `data`, then a blank line). Never
    /// blocks; if more than `maximumQueued` events are waiting (a slow client), the stream closes instead. Line
    /// breaks in `event` and `id` would end the field early, so they are dropped.
    public func send(event: String? = nil, id: String? = nil, data: String) {
        enqueue(Self.frame(event: event, id: id, data: data), countsAsActivity: true)
    }

    /// Ends the stream: events already queued are still delivered, then the response completes.
    public func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            state.wake()
        }
    }

    /// True once closed by either side: `close()`, a client that fell behind, a client that went away, or the
    /// server stopping.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The wire form of one event.
    static func frame(event: String?, id: String?, data: String) -> [UInt8] {
        var text = ""
        if let event { text += "event: " + singleLine(event) + "\n" }
        if let id { text += "id: " + singleLine(id) + "\n" }
        // SSE ends a line at CR, LF or CRLF; Swift reads CRLF as one Character.
        let lines = data.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        for line in lines { text += "data: " + line + "\n" }
        text += "\n"
        return Array(text.utf8)
    }

    private static func singleLine(_ text: String) -> String {
        String(text.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" })
    }

    private static let ping = Array(": ping\n\n".utf8)

    private func enqueue(_ bytes: [UInt8], countsAsActivity: Bool) {
        state.withLock { state in
            guard !state.closed else { return }
            if state.queuedCount >= maximumQueued {
                state.closed = true
                state.overflowed = true
                state.dropQueue()
            } else {
                state.append(bytes)
                if countsAsActivity { state.activeSinceTick = true }
            }
            state.wake()
        }
    }

    /// Called by the server's heartbeat timer. An idle stream gets a comment: writing it is how a client that went
    /// away is found, since a suspended connection notices nothing on its own.
    func heartbeat() {
        state.withLock { state in
            guard !state.closed else { return }
            let idle = !state.activeSinceTick && state.queuedCount == 0
            state.activeSinceTick = false
            guard idle else { return }
            state.append(Self.ping)
            state.wake()
        }
    }

    /// The response's content reader, on the connection's worker thread: copies queued bytes into `buffer`, or
    /// ends the stream, or suspends the connection until there is something to send.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        state.withLock { state in
            if state.overflowed { return cmhd_reader_end_with_error() }
            var written = 0
            while written < capacity && state.head < state.chunks.count {
                let chunk = state.chunks[state.head]
                let offset = state.offset
                let count = min(capacity - written, chunk.count - offset)
                chunk.withUnsafeBytes { bytes in
                    (buffer + written).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
                }
                written += count
                state.offset += count
                if state.offset == chunk.count {
                    state.chunks[state.head] = []
                    state.head += 1
                    state.offset = 0
                }
            }
            if written > 0 { return written }
            if state.closed { return cmhd_reader_end_of_stream() }
            guard let connection = state.connection else { return cmhd_reader_end_with_error() }
            // Suspending under the lock orders it before any resume from `wake`, which takes the same lock.
            state.suspended = true
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }

    /// The response was freed: the connection is gone or going, and nothing may touch it again.
    func responseFreed() {
        state.withLock { state in
            state.closed = true
            state.suspended = false
            state.connection = nil
            state.dropQueue()
        }
        registry.remove(self)
    }
}

/// A libmicrohttpd connection pointer, handed between threads under the stream's lock.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The server's open streams: for heartbeats, for `stop()`, and for counting.
final class EventStreamRegistry: Sendable {
    private let state = Mutex<(streams: [ObjectIdentifier: EventStream], stopping: Bool)>(([:], false))

    /// Adds a new stream; once the server is stopping, new streams start closed so they never suspend.
    func add(_ stream: EventStream) {
        let stopping = state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = stream
            return state.stopping
        }
        if stopping { stream.close() }
    }

    func remove(_ stream: EventStream) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    var count: Int { state.withLock { $0.streams.count } }

    var all: [EventStream] { state.withLock { Array($0.streams.values) } }

    /// Marks the server as stopping and returns the streams open at that moment.
    func beginStopping() -> [EventStream] {
        state.withLock { state in
            state.stopping = true
            return Array(state.streams.values)
        }
    }
}
