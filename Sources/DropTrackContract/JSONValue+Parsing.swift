import Foundation

/// A JSON syntax error with the byte offset, so callers can say where a body went wrong.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Byte offset of the problem.
    public var offset: Int
    /// What was expected.
    public var message: String
    /// For a key given twice in one object: the key. Refused rather than letting the last one win,
    /// because two readers of the same text could otherwise disagree about what it says.
    public var duplicateKey: String?
    /// For a duplicate key: where its second appearance is, from the top (`device.osVersion`, `apps[0].id`).
    public var path: String?

    /// Creates an error at `offset`.
    public init(offset: Int, message: String, duplicateKey: String? = nil, path: String? = nil) {
        self.offset = offset
        self.message = message
        self.duplicateKey = duplicateKey
        self.path = path
    }

    public var description: String {
        guard let duplicateKey else { return "invalid JSON at byte \(offset): \(message)" }
        return
            "invalid JSON at byte \(offset): duplicate key \"\(duplicateKey)\" at \(path ?? duplicateKey); give each key once"
    }

    /// The same error seen from the object member or array element that holds it: a duplicate
    /// key's path grows by one step as the error leaves each level.
    func within(_ step: String) -> JSONSyntaxError {
        guard duplicateKey != nil, let path else { return self }
        var error = self
        error.path = path.hasPrefix("[") ? step + path : step + "." + path
        return error
    }
}

extension JSONValue {
    /// Parses JSON bytes (RFC 8259) straight into a `JSONValue`. Hand-written because going through
    /// `JSONDecoder` costs a thrown error per type probe, which dominated the emulators' profile.
    public static func parse(bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            var parser = JSONByteParser(buffer)
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.error("unexpected data after the JSON value") }
            return value
        }
    }

    /// The JSON text, keys sorted, no whitespace, slashes unescaped, integers without a fraction.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(into: &out)
        return out
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): out.append(contentsOf: JSONValue.format(value).utf8)
        case .string(let value): JSONValue.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Numbers as JSONEncoder writes them: whole values without ".0", others in shortest form.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

struct JSONByteParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Members seen in the object `nextKey` is walking (nested walks save and restore it).
    var objectMembers = 0
    static let maximumDepth = 512

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, message: message) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < JSONByteParser.maximumDepth else { throw error("nested too deeply") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("expected a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { throw error("expected \(literal)") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let value: JSONValue
            do {
                value = try parseValue(depth: depth + 1)
            } catch {
                throw error.within(key)
            }
            guard members.updateValue(value, forKey: key) == nil else {
                throw JSONSyntaxError(offset: keyOffset, message: "duplicate key", duplicateKey: key, path: key)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            do {
                values.append(try parseValue(depth: depth + 1))
            } catch {
                throw error.within("[\(values.count)]")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(values)
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            if byte >= 0x80 {
                try skipUTF8Sequence()
                continue
            }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unfinished escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("unpaired surrogate")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in a string") }
                if byte >= 0x80 {
                    let start = index
                    try skipUTF8Sequence()
                    scalars.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    continue
                }
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Passes over one multi-byte UTF-8 sequence, refusing what RFC 3629 does not allow (stray
    /// continuation bytes, overlong forms, surrogates, beyond U+10FFFF, a cut-off sequence). Replacing
    /// such bytes with U+FFFD instead would make `"bad\xff"` and `"bad\ufffd"` the same id.
    private mutating func skipUTF8Sequence() throws(JSONSyntaxError) {
        let lead = bytes[index]
        let count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: (count, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: (count, high) = (3, 0x9F)
        case 0xF0: (count, low) = (4, 0x90)
        case 0xF1...0xF3: count = 4
        case 0xF4: (count, high) = (4, 0x8F)
        default: throw invalidUTF8(lead)
        }
        guard index + count <= bytes.count, (low...high).contains(bytes[index + 1]) else { throw invalidUTF8(lead) }
        for offset in 2..<count where bytes[index + offset] & 0xC0 != 0x80 { throw invalidUTF8(lead) }
        index += count
    }

    private func invalidUTF8(_ lead: UInt8) -> JSONSyntaxError {
        let hex = String(lead, radix: 16, uppercase: true)
        return error("invalid UTF-8 (a sequence starting 0x\(hex)); send the text as UTF-8")
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("expected a digit")
        }
        var integer: Int64 = 0
        var simple = true
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if digits < 18 {
                    integer = integer * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                } else {
                    simple = false
                }
                digits += 1
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            simple = false
            index += 1
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                throw error("expected a digit after '.'")
            }
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            simple = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                throw error("expected an exponent")
            }
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if simple { return Double(bytes[start] == UInt8(ascii: "-") ? -integer : integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONSyntaxError(offset: start, message: "number out of range") }
        return value
    }
}
