internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The strict HTTP/1.1 checks libmicrohttpd 0.9.75 leaves out, run on the first access-handler call (headers in,
/// body not yet read). Each lenient parse is a request-smuggling risk behind any proxy that parses differently: a
/// body framed one way here and another way there lets a second request ride inside the first. A request failing
/// any check is answered 400 and its connection closed, so nothing after its headers is ever parsed as a request.
enum RequestChecks {
    /// One header as libmicrohttpd stored it: pointers into its read buffer, where it parsed the request in place.
    struct RawHeader {
        var name: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer

        var nameText: String { String(decoding: name, as: UTF8.self).lowercased() }
        var valueText: String { String(decoding: value, as: UTF8.self) }
    }

    /// What is wrong with the request, in words for the client; nil when it passes.
    static func problem(
        connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        targetProblem: String?
    ) -> String? {
        let headers = rawHeaders(of: connection)
        if let method, let version, !framedWithCRLF(connection, method: method, version: version, headers: headers) {
            return "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        }
        if headers.contains(where: { !isToken($0.name) }) {
            return "a header name is empty or contains whitespace or a character not allowed in a token"
        }
        if headers.contains(where: { $0.value.contains(where: isForbiddenInValue) }) {
            return "a header value contains a control character (a bare CR, for instance)"
        }
        if let targetProblem { return targetProblem }
        let counts = headers.reduce(into: [String: Int]()) { $0[$1.nameText, default: 0] += 1 }
        if version.map({ String(cString: $0) }) == "HTTP/1.1" && counts["host", default: 0] == 0 {
            return "HTTP/1.1 requests need a Host header"
        }
        if counts["host", default: 0] > 1 { return "more than one Host header: send one" }
        if counts["content-length", default: 0] > 0 && counts["transfer-encoding", default: 0] > 0 {
            return "both Content-Length and Transfer-Encoding: send one"
        }
        if counts["content-length", default: 0] > 1 { return "more than one Content-Length header: send one" }
        if counts["transfer-encoding", default: 0] > 1 { return "more than one Transfer-Encoding header: send one" }
        // Exactly, as libmicrohttpd compares it: "chunked " with a trailing space is not chunked to it, and a body of
        // unknown length would be read until the connection ends.
        if let coding = headers.first(where: { $0.nameText == "transfer-encoding" }),
            coding.valueText.lowercased() != "chunked"
        {
            return "the only Transfer-Encoding accepted is chunked"
        }
        return nil
    }

    /// Whitespace or control characters in the raw request target, as the URI-log callback sees it before decoding,
    /// or an escaped NUL (`%00`): libmicrohttpd decodes it in place, and the path would end there, so
    /// `/v1/activities/a%00b` would reach activity `a`.
    static func targetProblem(_ target: UnsafePointer<CChar>) -> String? {
        var pointer = UnsafeRawPointer(target).assumingMemoryBound(to: UInt8.self)
        var previous: (UInt8, UInt8) = (0, 0)
        while pointer.pointee != 0 {
            let byte = pointer.pointee
            if byte <= 0x20 || byte == 0x7F {
                return "the request target contains whitespace or a control character"
            }
            if previous == (UInt8(ascii: "%"), UInt8(ascii: "0")) && byte == UInt8(ascii: "0") {
                return "the request target contains %00 (NUL): remove it"
            }
            previous = (previous.1, byte)
            pointer += 1
        }
        return nil
    }

    private static func rawHeaders(of connection: OpaquePointer) -> [RawHeader] {
        var headers: [RawHeader] = []
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND, collectRawHeader, UnsafeMutableRawPointer(pointer))
        }
        return headers
    }

    /// libmicrohttpd 0.9.75 accepts a bare LF as a line end and keeps no trace of which it saw; but it parses the
    /// head in place, turning each line end into NULs (two for CRLF, one for LF), and its header records point into
    /// that buffer. So with CRLF everywhere each header line starts exactly two bytes after the previous line's last
    /// byte, and the head ends four bytes after the last header's. A folded header is copied elsewhere by
    /// libmicrohttpd, so it fails this too (RFC 9112 lets a server reject obs-fold). A different libmicrohttpd must
    /// be checked against the bare-LF tests before it is used.
    private static func framedWithCRLF(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>, headers: [RawHeader]
    ) -> Bool {
        let size = cmhd_request_header_size(connection)
        guard size > 0 else { return false }
        let start = UnsafeRawPointer(method)
        let end = start + size
        var lineEnd = UnsafeRawPointer(version) + strlen(version)
        guard lineEnd > start && lineEnd <= end else { return false }
        for header in headers {
            guard let name = header.name.baseAddress, name == lineEnd + 2 else { return false }
            // An empty value points at the NUL where the line ended.
            let valueEnd = (header.value.baseAddress ?? name) + header.value.count
            guard valueEnd > name && valueEnd < end else { return false }
            lineEnd = valueEnd
        }
        return lineEnd + 4 == end
    }

    /// RFC 9110 token characters: letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isToken(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.isEmpty
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
                }
            }
    }

    /// Field values may hold visible characters, spaces, tabs and bytes above 0x7F; no other control character.
    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}

private let collectRawHeader: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let context, let key else { return .YES }
    let header = RequestChecks.RawHeader(
        name: UnsafeRawBufferPointer(start: key, count: keySize),
        value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
    context.assumingMemoryBound(to: [RequestChecks.RawHeader].self).pointee.append(header)
    return .YES
}
