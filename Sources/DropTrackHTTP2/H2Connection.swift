internal import CNGHTTP2
import DropTrackCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of one outgoing body, handed to nghttp2's data provider.
final class BodySource {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// The monotonic time a connection's loop reads for its deadlines, PING timeouts and delayed answers.
/// Injected so tests can move a connection's time by hand; `.continuous` is the machine's clock.
struct ConnectionClock: Sendable {
    /// The current instant.
    let now: @Sendable () -> ContinuousClock.Instant

    /// The machine's monotonic clock.
    static let continuous = ConnectionClock(now: { ContinuousClock.now })
}

/// One HTTP/2 connection over TLS, driven by a single thread: poll → for each TLS record read:
/// nghttp2 → role-specific hooks → nghttp2 → one TLS write of every frame that is ready. The client and server connections
/// subclass it and override the hooks; nothing here is shared across threads except `wakeup`.
class H2Connection {
    let fd: Int32
    let tls: TLSStream
    var session: OpaquePointer? = nil
    let wakeup: Wakeup
    /// Every time this loop and its subclasses read goes through here.
    let clock: ConnectionClock
    private(set) var isClosed = false
    private var outBuffer: [UInt8] = []
    private var outOffset = 0
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var closeReason = "closed"
    /// Bytes already read from TLS before the session existed (protocol sniffing); fed first.
    var initialInput: [UInt8] = []

    private var socketOpen = true
    /// Set by `abortConnection`: the socket is already gone, with RST on purpose.
    private var aborted = false

    init(fd: Int32, tls: TLSStream, wakeup: Wakeup, clock: ConnectionClock) {
        self.fd = fd
        self.tls = tls
        self.wakeup = wakeup
        self.clock = clock
        outBuffer.reserveCapacity(64 * 1024)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        readBuffer.deallocate()
        closeSocket()
    }

    /// Closes the descriptor once; a later close could hit a descriptor number reused elsewhere.
    func closeSocket() {
        guard socketOpen else { return }
        socketOpen = false
        // Nothing is left to learn from a failed close: the descriptor is released either way.
        Socket.closeDiscardingError(fd)
    }

    // MARK: Hooks for the client and server roles.

    /// Creates the nghttp2 session; called once the handshake is done.
    func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? { nil }
    /// Runs once per loop turn, before writing: take queued work from other threads.
    func processCommands() {}
    /// The next time `fireTimers` must run, if any.
    func nextTimerDeadline() -> ContinuousClock.Instant? { nil }
    /// Runs due timers.
    func fireTimers(now: ContinuousClock.Instant) {}
    /// Says whether the loop should stop although nghttp2 still wants I/O (e.g. after GOAWAY).
    func shouldClose() -> Bool { false }
    /// Called once when the connection ends, with the reason.
    func connectionDidClose(reason: String) {}
    /// A write found the connection closed by the peer; input it sent before closing may still be
    /// unread.
    func peerClosedWhileWriting() {}
    /// True when closing should wait for the peer to close first (a server after GOAWAY).
    var lingersOnClose: Bool { false }
    /// The ALPN protocol is not h2; return true when the subclass handles the connection itself.
    func handleNonH2(protocol name: String?) -> Bool { false }

    func onBeginHeaders(streamID: Int32) {}
    func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {}
    func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {}
    func onHeadersComplete(streamID: Int32, endStream: Bool) {}
    func onDataComplete(streamID: Int32) {}
    func onGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {}
    func onSettings() {}
    func onPingAck() {}
    func onPing() {}
    func onStreamClose(streamID: Int32, errorCode: UInt32) {}

    // MARK: The loop.

    /// Reads until the input either starts with `prefix` or cannot, for telling the protocol of a
    /// client that sent no ALPN. Whatever was read is kept in `initialInput`.
    func inputStarts(with prefix: [UInt8], timeout: Duration) -> Bool {
        let deadline = clock.now() + timeout
        var buffer = [UInt8](repeating: 0, count: prefix.count)
        while initialInput.count < prefix.count {
            if !prefix.starts(with: initialInput) { return false }
            let wanted = prefix.count - initialInput.count
            let result = buffer.withUnsafeMutableBytes { raw in
                tls.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]))
            }
            switch result {
            case .bytes(let n): initialInput.append(contentsOf: buffer[0..<n])
            case .wantRead: if !waitFor(POLLIN, until: deadline) { return false }
            case .wantWrite: if !waitFor(POLLOUT, until: deadline) { return false }
            case .closed, .failed: return false
            }
        }
        return initialInput.starts(with: prefix)
    }

    /// Completes the TLS handshake, waiting at most `timeout`.
    func handshake(timeout: Duration) -> String? {
        let deadline = clock.now() + timeout
        while true {
            switch tls.handshake() {
            case .bytes: return nil
            case .wantRead: if !waitFor(POLLIN, until: deadline) { return "TLS handshake timed out" }
            case .wantWrite: if !waitFor(POLLOUT, until: deadline) { return "TLS handshake timed out" }
            case .closed: return "the peer closed the connection during the TLS handshake"
            case .failed(let message): return message
            }
        }
    }

    private func waitFor(_ event: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(event), revents: 0)
        let timeout = Socket.pollTimeout(until: deadline, now: clock.now())
        if timeout == 0 { return false }
        // A failed poll ends the wait like a timeout: the handshake or sniffing then fails.
        return ((try? syscall("poll") { poll(&pfd, 1, timeout) }) ?? 0) > 0
    }

    /// Sets up the session and runs until the connection closes. Returns the close reason.
    @discardableResult
    func run() -> String {
        guard let callbacks = H2Callbacks.shared.pointer,
            let session = makeSession(callbacks: callbacks, userData: Unmanaged.passUnretained(self).toOpaque())
        else {
            finish("cannot create an HTTP/2 session")
            return closeReason
        }
        self.session = session
        if !initialInput.isEmpty {
            let consumed = initialInput.withUnsafeBufferPointer {
                nghttp2_session_mem_recv(session, $0.baseAddress, $0.count)
            }
            initialInput = []
            if consumed < 0 {
                finish("HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                closeSocket()
                return closeReason
            }
        }
        var fds = [
            pollfd(fd: fd, events: 0, revents: 0), pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0),
        ]
        var wantsWrite = false
        var endingSince: ContinuousClock.Instant? = nil
        while !isClosed {
            processCommands()
            if isClosed { break }
            // One reading for the comparison and the timers: the same instant decides and fires.
            let now = clock.now()
            if let deadline = nextTimerDeadline(), deadline <= now { fireTimers(now: now) }
            // A timer may have aborted the connection: its descriptor is closed, and the number may
            // already belong to another connection.
            if isClosed { break }
            switch flush() {
            case .failed(let message):
                finish(message)
                break
            case .blocked: wantsWrite = true
            case .done: wantsWrite = false
            }
            if isClosed { break }
            let ending =
                shouldClose()
                || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)
            if ending {
                // Only once everything is written: a GOAWAY left in the buffer never reaches the
                // peer, which then counts its requests in flight as lost instead of sending them
                // again elsewhere. A peer that stops reading gets a few seconds.
                let drained = !wantsWrite && outOffset >= outBuffer.count
                let since = endingSince ?? clock.now()
                endingSince = since
                if drained || clock.now() - since > .seconds(5) {
                    finish(closeReason == "closed" ? "connection finished" : closeReason)
                    break
                }
            }
            fds[0].events = Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            var timeout = Socket.pollTimeout(until: nextTimerDeadline(), now: clock.now())
            if endingSince != nil { timeout = timeout < 0 ? 100 : min(timeout, 100) }
            do {
                try syscall("poll") { poll(&fds, 2, timeout) }
            } catch {
                finish("\(error)")
                break
            }
            if fds[1].revents != 0 { wakeup.drain() }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 || wantsWrite {
                readAvailable()
            }
        }
        if lingersOnClose && !aborted { lingerBeforeClosing(upTo: .seconds(2)) }
        closeSocket()
        return closeReason
    }

    /// Closing a socket with unread input makes the kernel send RST, and a peer that receives RST
    /// may throw away what it had not read yet: the GOAWAY that tells it which requests to send
    /// again. So the write side is shut first and the input drained until the peer closes too (RFC
    /// 9113 §6.8 asks senders of GOAWAY to wait), for at most `limit`.
    private func lingerBeforeClosing(upTo limit: Duration) {
        guard socketOpen else { return }
        // If the write side cannot be shut (the peer already reset), draining below ends at once.
        _ = try? syscall("shutdown(SHUT_WR)") { shutdown(fd, Int32(SHUT_WR)) }
        let deadline = clock.now() + limit
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while clock.now() < deadline {
            pfd.revents = 0
            // Lingering is a courtesy to the peer: any failure just closes now.
            let ready =
                (try? syscall("poll(linger)") { poll(&pfd, 1, Socket.pollTimeout(until: deadline, now: clock.now())) })
            guard let ready, ready > 0 else { return }
            do {
                let count = try syscall("recv(linger)") {
                    scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                }
                if count == 0 { return }
            } catch  where error.errno == EAGAIN {
                continue
            } catch {
                return
            }
        }
    }

    /// Wakes the loop from another thread.
    func wake() { wakeup.signal() }

    /// Ends the connection with a reason; safe to call more than once.
    func finish(_ reason: String) {
        guard !isClosed else { return }
        isClosed = true
        closeReason = reason
        tls.shutdown()
        connectionDidClose(reason: reason)
    }

    /// Drops the TCP connection at once, without GOAWAY (a fault the emulator can inject).
    func abortConnection(_ reason: String) {
        guard !isClosed else { return }
        aborted = true
        var linger = linger(l_onoff: 1, l_linger: 0)
        // Without SO_LINGER the close below sends FIN instead of RST: the peer still sees the
        // connection end, only more politely than the fault asked for.
        _ = try? syscall("setsockopt(SO_LINGER)") {
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }
        isClosed = true
        closeReason = reason
        closeSocket()
        connectionDidClose(reason: reason)
    }

    private func readAvailable() {
        while !isClosed {
            switch tls.read(into: readBuffer) {
            case .bytes(let count):
                let consumed = nghttp2_session_mem_recv(
                    session, readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                if consumed < 0 {
                    finish("HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                    return
                }
                // Answer what this record held before reading the next one: the peer then works on
                // those answers while this side parses the rest, instead of each waiting for the
                // other's whole batch (h2load→emulator went from 0.64× to 0.83–0.99× of nghttpd).
                if isClosed { return }
                processCommands()
                if isClosed { return }
                if case .failed(let message) = flush() {
                    finish(message)
                    return
                }
            case .wantRead, .wantWrite: return
            case .closed:
                finish("the peer closed the connection")
                return
            case .failed(let message):
                finish(message)
                return
            }
        }
    }

    /// Feeds nghttp2 whatever input is still readable, without answering it: the connection is
    /// ending, and only what the peer said last (a GOAWAY) still matters.
    func readWhatIsLeft() {
        while case .bytes(let count) = tls.read(into: readBuffer), count > 0 {
            let consumed = nghttp2_session_mem_recv(
                session, readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
            if consumed < 0 { return }
        }
    }

    private enum FlushResult {
        case done, blocked
        case failed(String)
    }

    private func flush() -> FlushResult {
        guard !isClosed else { return .done }
        while true {
            if outOffset < outBuffer.count {
                let result = outBuffer.withUnsafeBytes { raw in
                    tls.write(UnsafeRawBufferPointer(rebasing: raw[outOffset...]))
                }
                switch result {
                case .bytes(let count):
                    outOffset += count
                    if outOffset < outBuffer.count { continue }
                case .wantWrite, .wantRead: return .blocked
                case .closed:
                    peerClosedWhileWriting()
                    return .failed("the peer closed the connection")
                case .failed(let message): return .failed(message)
                }
            }
            outBuffer.removeAll(keepingCapacity: true)
            outOffset = 0
            // Coalesce: many small frames become one TLS record and one write (3× faster measured).
            while outBuffer.count < 64 * 1024 {
                var chunk: UnsafePointer<UInt8>? = nil
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 {
                    return .failed("HTTP/2 send error: \(String(cString: nghttp2_strerror(Int32(length))))")
                }
                if length == 0 { break }
                outBuffer.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            }
            if outBuffer.isEmpty { return .done }
        }
    }

    // MARK: Helpers for subclasses.

    /// Queues a frame with one of nghttp2's `submit_*` calls and checks its result. They fail only when the
    /// session cannot go on (out of memory, an argument nghttp2 refuses), so the connection is closed with the call
    /// named rather than carrying on as if the frame were on its way. Returns whether it was queued.
    @discardableResult
    func submitted(_ call: String, _ result: Int32) -> Bool {
        guard result < 0 else { return true }
        abortConnection("\(call) failed: \(String(cString: nghttp2_strerror(result)))")
        return false
    }

    /// Submits response or request headers built from names and values; nghttp2 copies them.
    static func withNameValues<R>(
        _ fields: [(name: String, value: String, neverIndex: Bool)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R
    ) -> R {
        withNameValues(fields.count, { fields[$0] }, body)
    }

    /// Same, reading field `i` through `field`, so callers need not build an intermediate array.
    static func withNameValues<R>(
        _ count: Int, _ field: (Int) -> (name: String, value: String, neverIndex: Bool),
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> R
    ) -> R {
        let fields = (0..<count).lazy.map(field)
        var total = 0
        for field in fields { total += field.name.utf8.count + field.value.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(total, 1)) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nva in
                let base = storage.baseAddress!
                var offset = 0
                func copy(_ text: String) -> (Int, Int) {
                    let start = offset
                    // The UTF-8 view lends small and native strings' bytes without copying them.
                    let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
                        if let source = bytes.baseAddress { (base + offset).update(from: source, count: bytes.count) }
                        offset += bytes.count
                    }
                    if copied == nil {
                        for byte in text.utf8 {
                            base[offset] = byte
                            offset += 1
                        }
                    }
                    return (start, offset - start)
                }
                for (index, field) in fields.enumerated() {
                    let name = copy(field.name)
                    let value = copy(field.value)
                    nva[index] = nghttp2_nv(
                        name: base + name.0, value: base + value.0, namelen: name.1, valuelen: value.1,
                        flags: UInt8(
                            field.neverIndex ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return body(UnsafePointer(nva.baseAddress!), fields.count)
            }
        }
    }
}
