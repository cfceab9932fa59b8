internal import CMicroHTTPD
import Synchronization

/// A live `text/event-stream` to one client. Thread-safe: any thread may send.
///
/// Events wait in a queue until libmicrohttpd's worker thread pulls them through the response's content reader; when
/// the queue is empty the connection is suspended, and `send` resumes it.
///
/// When more than `maximumQueued` events wait for a slow client, `send(event:id:data:)` closes the stream, while
/// `send(frames:dropped:)` drops the oldest waiting events and tells the client how many with an `event: dropped`
/// whose data is `{"dropped":N}`, sent before the next event it reads.
public final class EventStream: Sendable {
    /// How many events may wait for a slow client before the stream closes or drops the oldest.
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
        /// Events dropped since the client was last told.
        var dropped = 0
        /// The response was freed: the connection is gone.
        var freed = false
        /// Run once when the response is freed.
        var closeHandlers: [@Sendable () -> Void] = []

        var queuedCount: Int { chunks.count - head }

        mutating func append(_ bytes: [UInt8]) {
            if head > 0 && head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            chunks.append(bytes)
        }

        /// Drops the oldest chunk not yet begun (one partly handed over must be finished, or the client would see
        /// half an event); false if there is none.
        mutating func dropOldestWaiting() -> [UInt8]? {
            let index = offset == 0 ? head : head + 1
            guard index < chunks.count else { return nil }
            let dropped = chunks[index]
            if index != head { chunks[index] = chunks[head] }
            chunks[head] = []
            head += 1
            return dropped
        }

        /// Puts a chunk before the others; only between chunks (`offset == 0`).
        mutating func prepend(_ bytes: [UInt8]) {
            if head > 0 {
                head -= 1
                chunks[head] = bytes
            } else {
                chunks.insert(bytes, at: 0)
            }
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

    /// Queues framed events (see `frame(event:id:data:)`) with one lock and at most one resume of the connection.
    /// Never blocks and never closes the stream: when more than `maximumQueued` events wait, the oldest are dropped.
    /// `dropped` counts events the caller dropped before these; the client is told the sum of both before the next
    /// event it reads.
    public func send(frames: [[UInt8]], dropped: Int = 0) {
        guard !frames.isEmpty || dropped > 0 else { return }
        state.withLock { state in
            guard !state.closed else { return }
            state.dropped += max(0, dropped)
            for frame in frames {
                if state.queuedCount >= maximumQueued, let lost = state.dropOldestWaiting(), lost != Self.ping {
                    state.dropped += 1
                }
                state.append(frame)
            }
            state.activeSinceTick = true
            state.wake()
        }
    }

    /// Runs `handler` once the connection is gone (the client left, the stream ended, or the server stopped), on
    /// whichever thread notices; at once if it is already gone. For releasing what the stream held.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let gone = state.withLock { state in
            if !state.freed { state.closeHandlers.append(handler) }
            return state.freed
        }
        if gone { handler() }
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

    /// The wire form of one event, for `send(frames:dropped:)`.
    public static func frame(event: String?, id: String?, data: String) -> [UInt8] {
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

    static func droppedNotice(_ count: Int) -> [UInt8] {
        Array("event: dropped\ndata: {\"dropped\":\(count)}\n\n".utf8)
    }

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
            while written < capacity {
                // The notice goes at the first boundary between events, ahead of the events that follow the loss.
                if state.dropped > 0 && state.offset == 0 {
                    state.prepend(Self.droppedNotice(state.dropped))
                    state.dropped = 0
                }
                guard state.head < state.chunks.count else { break }
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
        let handlers = state.withLock { state in
            state.closed = true
            state.freed = true
            state.suspended = false
            state.connection = nil
            state.dropQueue()
            defer { state.closeHandlers = [] }
            return state.closeHandlers
        }
        registry.remove(self)
        for handler in handlers { handler() }
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
