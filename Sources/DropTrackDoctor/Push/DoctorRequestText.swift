import DropTrackWire
import Foundation

/// A request text the doctor cannot read (an unterminated quote, a missing flag value).
public struct DoctorInputError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Reads a push the way people paste it: an HTTP-style dump (an optional request line such as
/// `POST /3/device/<hex>`, `name: value` header lines, a blank line, the JSON body) or a curl
/// command line (`-H`, `-d`/`--data`/`--data-raw`/`--data-binary` including `@file`, `-X`, the URL,
/// shell quoting and backslash-newline continuations). Pure: files named by `@file` are read
/// through the closure the caller passes.
public enum DoctorRequestText {
    /// Parses `text` into a push; FCM is told from APNs by the URL or the `{"message": …}` body.
    public static func parse(
        _ text: String, readFile: (String) throws -> [UInt8] = { _ in throw DoctorInputError("no files") }
    ) throws(DoctorInputError) -> DoctorPush {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("curl ") || trimmed.hasPrefix("curl\t") || trimmed.hasPrefix("curl\\") || trimmed == "curl"
        {
            return try parseCurl(String(trimmed), readFile: readFile)
        }
        return parseHTTP(text)
    }

    // MARK: HTTP-style dumps

    static let methods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]

    static func parseHTTP(_ text: String) -> DoctorPush {
        // "\r\n" is one Character in Swift, so line ends are normalized before splitting.
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map(String.init)
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeFirst() }
        var method = "POST"
        var target: String? = nil
        var headers: [(name: String, value: String)] = []
        var index = 0
        if let first = lines.first {
            let words = first.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2, methods.contains(String(words[0]).uppercased()) {
                method = String(words[0]).uppercased()
                target = String(words[1])
                index = 1
            }
        }
        var authority: String? = nil
        while index < lines.count {
            let line = lines[index]
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                index += 1
                break
            }
            guard let header = headerLine(line) else { break }  // no blank line: the body starts here
            index += 1
            switch header.name.lowercased() {
            case ":method": method = header.value.uppercased()
            case ":path": target = header.value
            case ":authority", "host": authority = header.value
            case ":scheme": break
            default: headers.append(header)
            }
        }
        let body = lines[min(index, lines.count)...].joined(separator: "\n").trimmingCharacters(
            in: .whitespacesAndNewlines)
        var url = target
        if let path = target, path.hasPrefix("/"), let authority { url = "https://\(authority)\(path)" }
        return DoctorPush.detect(method: method, url: url, headers: headers, body: Array(body.utf8))
    }

    /// `name: value` with a name of token characters (HTTP/2 pseudo-headers start with `:`).
    static func headerLine(_ line: String) -> (name: String, value: String)? {
        let search = line.hasPrefix(":") ? line.index(after: line.startIndex) : line.startIndex
        guard let colon = line[search...].firstIndex(of: ":") else { return nil }
        let name = String(line[..<colon])
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_:."))
        guard !name.isEmpty, !name.hasPrefix("{"), name.unicodeScalars.allSatisfy({ allowed.contains($0) }) else {
            return nil
        }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    // MARK: curl

    /// curl options that take a value, short and long; everything else is a switch.
    static let valuedShort: Set<Character> = [
        "X", "H", "d", "o", "w", "m", "u", "A", "e", "E", "K", "x", "b", "c", "T", "F", "r", "Y", "y", "z", "C", "P",
        "Q",
    ]
    static let valuedLong: Set<String> = [
        "request", "header", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json", "url", "output",
        "write-out", "max-time", "connect-timeout", "cacert", "capath", "cert", "cert-type", "key", "key-type", "pass",
        "user", "user-agent", "referer", "resolve", "retry", "retry-delay", "retry-max-time", "config", "proxy",
        "interface", "limit-rate", "cookie", "cookie-jar", "max-redirs", "local-port", "dns-servers", "unix-socket",
        "abstract-unix-socket", "ciphers", "tls-max", "pinnedpubkey", "noproxy", "connect-to", "trace", "trace-ascii",
        "stderr", "upload-file", "form", "form-string", "range", "oauth2-bearer", "expect100-timeout", "keepalive-time",
        "happy-eyeballs-timeout-ms", "variable", "url-query", "aws-sigv4", "proto", "proto-redir",
        "http2-prior-knowledge-port",
    ]

    static func parseCurl(_ text: String, readFile: (String) throws -> [UInt8]) throws(DoctorInputError) -> DoctorPush {
        var words = try shellWords(text)
        guard let first = words.first, first == "curl" || first.hasSuffix("/curl") else {
            throw DoctorInputError("not a curl command")
        }
        words.removeFirst()
        var method: String? = nil
        var url: String? = nil
        var headers: [(name: String, value: String)] = []
        var data: [[UInt8]] = []
        var certificate = false
        var index = 0

        func take(_ option: String) throws(DoctorInputError) -> String {
            guard index < words.count else { throw DoctorInputError("curl option \(option) needs a value") }
            defer { index += 1 }
            return words[index]
        }
        func handle(_ option: String, _ value: String) throws(DoctorInputError) {
            switch option {
            case "X", "request": method = value.uppercased()
            case "H", "header":
                if let colon = value.firstIndex(of: ":") {
                    let name = value[..<colon].trimmingCharacters(in: .whitespaces)
                    headers.append((name, value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                } else if value.hasSuffix(";") {
                    headers.append((String(value.dropLast()), ""))
                }
            case "d", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json", "T", "upload-file":
                let raw = option == "data-raw"
                if !raw && (value.hasPrefix("@") || option == "T" || option == "upload-file") {
                    let path = value.hasPrefix("@") ? String(value.dropFirst()) : value
                    guard path != "-" else {
                        throw DoctorInputError("curl reads the body from stdin (@-); put it in a file")
                    }
                    var bytes: [UInt8]
                    do { bytes = try readFile(path) } catch {
                        throw DoctorInputError(
                            "cannot read \(path) for curl \(option.count == 1 ? "-" : "--")\(option)")
                    }
                    // curl -d and --data-ascii drop the file's CR and LF; --data-binary keeps them.
                    if option == "d" || option == "data" || option == "data-ascii" {
                        bytes.removeAll { $0 == 0x0A || $0 == 0x0D }
                    }
                    data.append(bytes)
                } else {
                    data.append(Array(value.utf8))
                }
                if option == "json" {
                    headers.append(("content-type", "application/json"))
                }
            case "url": url = value
            case "E", "cert": certificate = true
            default: break
            }
        }

        while index < words.count {
            let word = words[index]
            index += 1
            if word.hasPrefix("--") && word.count > 2 {
                let name = String(word.dropFirst(2))
                if valuedLong.contains(name) { try handle(name, try take(word)) }
                continue
            }
            if word.hasPrefix("-") && word.count > 1 {
                var letters = Substring(word.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if valuedShort.contains(letter) {
                        let value = letters.isEmpty ? try take("-\(letter)") : String(letters)
                        try handle(String(letter), value)
                        break
                    }
                }
                continue
            }
            url = url ?? word
        }
        let body = data.reduce(into: [UInt8]()) { joined, part in
            if !joined.isEmpty { joined.append(UInt8(ascii: "&")) }
            joined += part
        }
        var push = DoctorPush.detect(
            method: method ?? (data.isEmpty ? "GET" : "POST"), url: url, headers: headers, body: body)
        push.usesClientCertificate = certificate
        return push
    }

    /// Splits a command line as a POSIX shell would: single quotes are literal, double quotes take
    /// `\"`, `\\`, `\$` and `` \` ``, `$'…'` takes C escapes, a backslash outside quotes escapes the
    /// next character, and backslash-newline joins lines.
    static func shellWords(_ text: String) throws(DoctorInputError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        // "\r\n" is one Character in Swift; as "\n" it is a separator, and after a backslash a continuation.
        var characters = Array(text.replacingOccurrences(of: "\r\n", with: "\n"))
        characters.append(" ")
        var i = 0
        func next() -> Character? { i + 1 < characters.count ? characters[i + 1] : nil }
        while i < characters.count {
            let c = characters[i]
            switch c {
            case " ", "\t", "\n":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
                i += 1
            case "\\":
                // Backslash-newline disappears (a continuation); any other escaped character is literal.
                if next() == "\n" {
                    i += 2
                } else {
                    inWord = true
                    if let escaped = next() { current.append(escaped) }
                    i += 2
                }
            case "'":
                inWord = true
                i += 1
                guard let close = characters[i...].firstIndex(of: "'") else {
                    throw DoctorInputError("unterminated ' quote")
                }
                current += String(characters[i..<close])
                i = close + 1
            case "\"":
                inWord = true
                i += 1
                var closed = false
                while i < characters.count {
                    let d = characters[i]
                    if d == "\"" {
                        closed = true
                        i += 1
                        break
                    }
                    if d == "\\", let escaped = next(), ["\"", "\\", "$", "`", "\n"].contains(escaped) {
                        if escaped != "\n" { current.append(escaped) }
                        i += 2
                        continue
                    }
                    current.append(d)
                    i += 1
                }
                guard closed else { throw DoctorInputError("unterminated \" quote") }
            case "$" where next() == "'":
                inWord = true
                i += 2
                var closed = false
                while i < characters.count {
                    let d = characters[i]
                    if d == "'" {
                        closed = true
                        i += 1
                        break
                    }
                    if d == "\\", let escaped = next() {
                        i += 2
                        switch escaped {
                        case "n": current.append("\n")
                        case "t": current.append("\t")
                        case "r": current.append("\r")
                        case "x":
                            let hex = String(characters[i..<min(i + 2, characters.count)])
                            if let value = UInt8(hex, radix: 16) {
                                current.unicodeScalars.append(UnicodeScalar(value))
                                i += 2
                            } else {
                                current.append("\\x")
                            }
                        default: current.append(escaped)
                        }
                        continue
                    }
                    current.append(d)
                    i += 1
                }
                guard closed else { throw DoctorInputError("unterminated $' quote") }
            default:
                inWord = true
                current.append(c)
                i += 1
            }
        }
        return words
    }
}
