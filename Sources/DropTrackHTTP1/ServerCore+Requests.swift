internal import CMicroHTTPD

/// Per-request state between libmicrohttpd's calls, owned by `*con_cls` from the URI-log callback (right after the
/// request line) until the request-completed callback.
final class RequestContext {
    var body: [UInt8] = []
    var tooLarge = false
    var answered = false
    /// The access handler has been called once (with the headers only).
    var headersSeen = false
    /// What `RequestChecks.targetProblem` found in the raw request target.
    var targetProblem: String?
}

extension ServerCore {
    // MARK: - Requests, on the worker threads

    fileprivate func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let id = Int(bitPattern: cmhd_socket_context(connection))
        let context: RequestContext
        if let existing = requestContext.pointee {
            context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        } else {
            // The URI-log callback always makes one first; this is a fallback only.
            context = RequestContext()
            requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        }
        if !context.headersSeen {
            // The first call carries only the headers. Answering now makes libmicrohttpd close the connection after
            // the response, so normally the answer waits for the next call. A request that fails the strict checks,
            // or declares a body too large, is the exception: refusing it before reading its body (and before
            // `100 Continue`) is worth the connection, and for a smuggling attempt closing it is the point.
            context.headersSeen = true
            // Refused or cut already: close without answering.
            guard connections.headersReceived(id) else { return .NO }
            if let problem = RequestChecks.problem(
                connection: connection, method: method, version: version, targetProblem: context.targetProblem)
            {
                context.answered = true
                connections.responding(id)
                return queue(Self.badRequest(problem), on: connection)
            }
            if declaredBodyTooLarge(connection) {
                context.answered = true
                connections.responding(id)
                return queue(bodyTooLarge(), on: connection)
            }
            return .YES
        }
        let count = uploadSize.pointee
        if count > 0 {
            uploadSize.pointee = 0
            connections.bodyReceived(id, count: count)
            guard !context.answered && !context.tooLarge else { return .YES }
            if context.body.count + count > maxBodyBytes {
                // Chunked bodies give no size up front: read and drop the rest, then answer 413.
                context.tooLarge = true
                context.body = []
            } else if let uploadData {
                context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
            }
            return .YES
        }
        guard !context.answered else { return .YES }
        context.answered = true
        connections.responding(id)
        if context.tooLarge { return queue(bodyTooLarge(), on: connection) }
        var request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/")
        for (name, value) in Self.values(of: connection, kind: .GET_ARGUMENT_KIND) { request.query[name] = value }
        for (name, value) in Self.values(of: connection, kind: .HEADER_KIND) {
            let name = name.lowercased()
            if let earlier = request.headers[name] {
                request.headers[name] = earlier + ", " + value
            } else {
                request.headers[name] = value
            }
        }
        request.body = context.body
        request.clientAddress = Self.text(ipv4: cmhd_client_ipv4(connection))
        context.body = []
        switch handler.handle(request) {
        case .response(let response):
            return queue(response, on: connection)
        case .eventStream(let start):
            return startEventStream(start, on: connection)
        }
    }

    /// Dotted-quad text of an IPv4 address in network byte order; empty for 0 (not IPv4, or unknown).
    static func text(ipv4 address: UInt32) -> String {
        guard address != 0 else { return "" }
        return withUnsafeBytes(of: address) { $0.map(String.init).joined(separator: ".") }
    }

    private func declaredBodyTooLarge(_ connection: OpaquePointer) -> Bool {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return false
        }
        let text = String(cString: value).trimmingASCIISpaces
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        // All digits but too long for Int is larger than any limit.
        guard let declared = Int(text) else { return true }
        return declared > maxBodyBytes
    }

    /// A 400 that closes the connection, so nothing the client sent after the headers is read as a request.
    private static func badRequest(_ message: String) -> HTTPResponse {
        var response = HTTPResponse.json(
            400, Array(#"{"error":{"code":"bad_request","message":"\#(message)"}}"#.utf8))
        response.headers.append((name: "Connection", value: "close"))
        return response
    }

    private func bodyTooLarge() -> HTTPResponse {
        .json(
            413,
            Array(
                #"{"error":{"code":"body_too_large","message":"request body exceeds the limit of \#(maxBodyBytes) bytes"}}"#
                    .utf8))
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        // 1xx cannot be a final answer (libmicrohttpd sends a 101 and then leaves the connection hanging), and
        // libmicrohttpd refuses statuses outside three digits: the client gets a 500 instead.
        if (200...999).contains(response.status), Self.queue(response, on: connection) == .YES { return .YES }
        let fallback = HTTPResponse.json(
            500, Array(#"{"error":{"code":"internal","message":"the handler returned an invalid response"}}"#.utf8))
        return Self.queue(fallback, on: connection)
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        // libmicrohttpd refuses headers it manages itself (Content-Length) and ones with line breaks; those are
        // dropped rather than failing the response.
        for header in response.headers { _ = MHD_add_response_header(created, header.name, header.value) }
        let result = MHD_queue_response(connection, UInt32(response.status), created)
        MHD_destroy_response(created)
        return result
    }

    private func startEventStream(_ start: @Sendable (EventStream) -> Void, on connection: OpaquePointer)
        -> MHD_Result
    {
        let stream = EventStream(
            connection: ConnectionHandle(pointer: connection), maximumQueued: maximumQueuedEvents, registry: streams)
        streams.add(stream)
        // The response owns one reference, given back in its free callback, which libmicrohttpd calls exactly once.
        let retained = Unmanaged.passRetained(stream).toOpaque()
        guard
            let response = MHD_create_response_from_callback(
                cmhd_size_unknown(), 4096, eventStreamReader, retained, eventStreamFreed)
        else {
            Unmanaged<EventStream>.fromOpaque(retained).release()
            stream.responseFreed()
            return .NO
        }
        _ = MHD_add_response_header(response, "Content-Type", "text/event-stream")
        _ = MHD_add_response_header(response, "Cache-Control", "no-cache")
        let result = MHD_queue_response(connection, 200, response)
        // Drops our reference; if the queueing failed this frees the response and runs the free callback.
        MHD_destroy_response(response)
        if result == .YES { start(stream) }
        return result
    }

    /// Query arguments or headers in arrival order, decoded by libmicrohttpd. Sized strings keep names and values
    /// with `%00` in them whole.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        var pairs: [(String, String)] = []
        withUnsafeMutablePointer(to: &pairs) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, collectValue, UnsafeMutableRawPointer(pointer))
        }
        return pairs
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

// MARK: - C callbacks. They capture nothing: context travels through libmicrohttpd's `void *` arguments.

let accessCallback: MHD_AccessHandlerCallback = {
    context, connection, url, method, version, uploadData, uploadSize, requestContext in
    guard let context, let connection, let uploadSize, let requestContext else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().access(
        connection, url: url, method: method, version: version, uploadData: uploadData, uploadSize: uploadSize,
        requestContext: requestContext)
}

/// Called once per request however it ended (answered, client gone, daemon stopping): releases its context, and
/// starts the clock for the next request's headers.
let requestCompletedCallback: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    if let context, let connection {
        Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().connections.requestFinished(
            Int(bitPattern: cmhd_socket_context(connection)))
    }
    guard let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    Unmanaged<RequestContext>.fromOpaque(pointer).release()
}

/// Connections opening (counted, or refused past a cap) and closing (before libmicrohttpd closes the socket).
let connectionNotifyCallback: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
    guard let context, let connection, let socketContext else { return }
    let guardian = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().connections
    if cmhd_notify_is_start(code) {
        let id = guardian.opened(descriptor: cmhd_connection_fd(connection), address: cmhd_client_ipv4(connection))
        socketContext.pointee = UnsafeMutableRawPointer(bitPattern: id)
    } else {
        guardian.closed(Int(bitPattern: socketContext.pointee))
        socketContext.pointee = nil
    }
}

/// The raw request target, before libmicrohttpd decodes it: the request's context starts here, holding what the
/// strict checks will need.
let targetCallback: cmhd_uri_log_callback = { _, target, _ in
    let context = RequestContext()
    context.targetProblem = target.flatMap(RequestChecks.targetProblem)
    return Unmanaged.passRetained(context).toOpaque()
}

private let collectValue: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let context, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
    context.assumingMemoryBound(to: [(String, String)].self).pointee.append((name, text ?? ""))
    return .YES
}

private let eventStreamReader: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return cmhd_reader_end_with_error() }
    return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(
        into: UnsafeMutableRawPointer(buffer), capacity: capacity)
}

private let eventStreamFreed: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<EventStream>.fromOpaque(context).takeRetainedValue().responseFreed()
}
