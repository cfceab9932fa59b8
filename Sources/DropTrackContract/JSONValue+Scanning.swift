import Foundation

/// `aps.event` and `aps.timestamp` of a push, read without building a tree: the emulators need
/// them on every request to order pushes, and the full parse can wait until someone reads the record.
public struct APSSummary: Sendable, Equatable {
    /// `aps.event` when it is a string.
    public var event: String?
    /// `aps.timestamp` when it is a number.
    public var timestamp: Double?
    /// False when the body is not valid JSON.
    public var isJSON: Bool

    /// Scans a payload.
    public init(scanning bytes: [UInt8]) {
        var summary = APSSummary(event: nil, timestamp: nil, isJSON: false)
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONByteParser(buffer)
            do {
                parser.skipWhitespace()
                try parser.expectObjectStart()
                while let key = try parser.nextKey() {
                    if key.elementsEqual("aps".utf8) && parser.peekIsObject {
                        let outerMembers = parser.objectMembers
                        defer { parser.objectMembers = outerMembers }
                        try parser.expectObjectStart()
                        while let member = try parser.nextKey() {
                            if member.elementsEqual("event".utf8),
                                case .string(let value) = try parser.parseValue(depth: 2)
                            {
                                summary.event = value
                            } else if member.elementsEqual("timestamp".utf8),
                                case .number(let value) = try parser.parseValue(depth: 2)
                            {
                                summary.timestamp = value
                            } else if !member.elementsEqual("event".utf8) && !member.elementsEqual("timestamp".utf8) {
                                try parser.skipValue(depth: 2)
                            }
                        }
                    } else {
                        try parser.skipValue(depth: 1)
                    }
                }
                parser.skipWhitespace()
                summary.isJSON = parser.index == buffer.count
            } catch {
                summary.isJSON = false
            }
        }
        if !summary.isJSON {
            summary.event = nil
            summary.timestamp = nil
        }
        self = summary
    }

    private init(event: String?, timestamp: Double?, isJSON: Bool) {
        self.event = event
        self.timestamp = timestamp
        self.isJSON = isJSON
    }
}

extension JSONByteParser {
    var peekIsObject: Bool { index < bytes.count && bytes[index] == UInt8(ascii: "{") }

    /// Consumes `{`; `nextKey` then walks the members.
    mutating func expectObjectStart() throws(JSONSyntaxError) {
        guard peekIsObject else { throw error("expected an object") }
        index += 1
        objectMembers = 0
    }

    /// Moves to the next member of the object being walked and returns its key's raw bytes
    /// (escapes kept; fine for matching plain keys), positioned at the value; nil after `}`.
    mutating func nextKey() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input in an object") }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return nil
        }
        if objectMembers > 0 {
            guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
            index += 1
            skipWhitespace()
        }
        objectMembers += 1
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
        index += 1
        let start = index
        while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") { index += 1 }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated key") }
        let key = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
        index += 1
        skipWhitespace()
        return key
    }

    /// Checks and passes over one value without keeping it.
    mutating func skipValue(depth: Int) throws(JSONSyntaxError) {
        guard depth < JSONByteParser.maximumDepth else { throw error("nested too deeply") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            let outerMembers = objectMembers
            defer { objectMembers = outerMembers }
            try expectObjectStart()
            while try nextKey() != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                index += 1
                return
            }
        case UInt8(ascii: "\""):
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return
                }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte < 0x20 {
                    throw error("control character in a string")
                }
                index += 1
            }
            throw error("unterminated string")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        default:
            _ = try parseValue(depth: depth)
        }
    }

    /// Checks a number's syntax without converting it.
    private mutating func skipNumber() throws(JSONSyntaxError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout JSONByteParser) throws(JSONSyntaxError) {
            guard parser.index < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
            else { throw parser.error("expected a digit") }
            while parser.index < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
            {
                parser.index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") { index += 1 } else { try digits(&self) }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits(&self)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits(&self)
        }
    }
}
