import DropTrackContract
import Foundation
import Testing

@Suite("The hand-written JSON parser agrees with Foundation and rejects what it must")
struct JSONParserTests {
    static let valid: [String] = [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, #"[]"#, #"{}"#, #"  {"x" : -0.5e3 , "y":[ ]}  "#,
        #""é \u00e9 \ud83d\ude00 \n\t\"\\\/""#, #"123456789012345678901234"#, #"-0"#, #"1E-2"#, #"[1,[2,[3,[4]]]]"#,
        #"{"eta":817693520,"progress":0.7142857142857143}"#,
    ]
    static let invalid: [String] = [
        #"{"a":1,}"#, #"[1,]"#, #"{"a" 1}"#, #"01"#, #"1."#, #"-"#, #"tru"#, #""abc"#, #"{"a":1}x"#, "\"\u{01}\"",
        #""\ud800""#, #"[1 2]"#, #""#, #"{,}"#, #"{"a":1"#,
    ]

    @Test("valid documents parse to the same values Foundation reads", arguments: valid)
    func agreesWithFoundation(text: String) throws {
        let ours = try JSONValue.parse(bytes: Array(text.utf8))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(equivalent(ours, theirs), "\(ours) vs \(theirs)")
    }

    @Test("invalid documents are refused with an offset", arguments: invalid)
    func refuses(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(bytes: Array(text.utf8)) }
    }

    @Test("serialising sorts keys, keeps integers whole and round-trips")
    func serialize() throws {
        let value = try JSONValue.parse(#"{"b":2,"a":[1.5,"x\"y",null,true],"c":{"z":1,"y":"/"}}"#)
        #expect(
            String(decoding: value.serialized(), as: UTF8.self)
                == #"{"a":[1.5,"x\"y",null,true],"b":2,"c":{"y":"/","z":1}}"#)
        #expect(try JSONValue.parse(bytes: value.serialized()) == value)
    }

    @Test(
        "invalid UTF-8 is refused with the offset of the bad sequence, not replaced with U+FFFD",
        arguments: [
            ([0x22, 0x62, 0x61, 0x64, 0xFF, 0x22], 4),  // "bad\xff"
            ([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D], 6),  // a cut-off 2-byte sequence
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // an encoded surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // beyond U+10FFFF
            ([0x22, 0x5C, 0x6E, 0x80, 0x22], 3),  // a stray continuation byte after an escape
            ([0x22, 0xE2, 0x82], 1),  // cut off by the end of the input
        ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        #expect {
            try JSONValue.parse(bytes: bytes)
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.offset == offset && error.description.contains("UTF-8")
        }
    }

    @Test("valid multi-byte UTF-8 still parses, escaped or not")
    func validUTF8() throws {
        let text = "\"é€😀 \\n x\u{10FFFF}\""
        #expect(try JSONValue.parse(bytes: Array(text.utf8)) == .string("é€😀 \n x\u{10FFFF}"))
    }

    @Test("a key given twice is refused with the key and its path, at any depth")
    func duplicateKeys() {
        let cases: [(String, String, String)] = [
            (#"{"userId":"a","userId":"b"}"#, "userId", "userId"),
            (#"{"device":{"osVersion":"17","osVersion":"18"}}"#, "osVersion", "device.osVersion"),
            (#"{"apps":[{"id":"x"},{"id":"y","id":"z"}]}"#, "id", "apps[1].id"),
            (#"[[{"a":1}],[{"a":1,"b":2,"a":3}]]"#, "a", "[1][0].a"),
        ]
        for (text, key, path) in cases {
            #expect {
                try JSONValue.parse(bytes: Array(text.utf8))
            } throws: { error in
                guard let error = error as? JSONSyntaxError else { return false }
                return error.duplicateKey == key && error.path == path
                    && error.description.contains("duplicate key \"\(key)\" at \(path)")
            }
        }
        // The same key in sibling objects is not a duplicate.
        #expect(throws: Never.self) { try JSONValue.parse(#"[{"a":1},{"a":2}]"#) }
    }

    @Test("nesting beyond 512 levels is refused, not a stack overflow")
    func depth() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(bytes: Array(deep.utf8)) }
    }

    @Test("the aps summary finds event and timestamp without a full parse, and notices invalid JSON")
    func apsSummary() {
        let payload =
            #"{"extra":{"aps":{"event":"no"}},"aps":{"content-state":{"a":[1,{"b":"}"}]},"timestamp":1796000000,"event":"end"},"z":null}"#
        let summary = APSSummary(scanning: Array(payload.utf8))
        #expect(summary == APSSummary(scanning: Array(#"{"aps":{"event":"end","timestamp":1796000000}}"#.utf8)))
        #expect(summary.event == "end")
        #expect(summary.timestamp == 1_796_000_000)
        #expect(summary.isJSON)
        let broken = APSSummary(scanning: Array(#"{"aps":{"event":"end","timestamp":1}"#.utf8))
        #expect(!broken.isJSON)
        #expect(broken.event == nil)
        let empty = APSSummary(scanning: Array(#"{"aps":{},"x":1}"#.utf8))
        #expect(empty.isJSON && empty.event == nil)
    }

    private func equivalent(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let value): return (theirs as? Bool) == value
        case .number(let value):
            guard let number = theirs as? NSNumber else { return false }
            return abs(number.doubleValue - value) <= abs(value) * 1e-15
        case .string(let value): return (theirs as? String) == value
        case .array(let values):
            guard let array = theirs as? [Any], array.count == values.count else { return false }
            return zip(values, array).allSatisfy { equivalent($0, $1) }
        case .object(let members):
            guard let object = theirs as? [String: Any], object.count == members.count else { return false }
            return members.allSatisfy { key, value in object[key].map { equivalent(value, $0) } ?? false }
        }
    }
}
