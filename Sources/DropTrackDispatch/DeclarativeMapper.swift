import DropTrackContract
import Foundation

/// A mapper an app declares in its configuration (`schemas.<Type>.mapper`), for attributes types the
/// server has no Swift code for. The activity keeps a domain record (in `mapperState.record`); each
/// event type says how the record changes (`set`, `unset`), whether it ends the story (`ends`) and
/// what banner it deserves (`alert`); the content-state is computed from the record by a field
/// mapping, at the commit of each version (record and state are stored with it). Mappings that pick
/// a schedule entry by time also yield the future states, which the scheduler pushes when due.
///
/// ```json
/// {"events": {"receipt.dispatched": {"set": {"status": {"value": "dispatched"}, "courier": "courier"}}},
///  "contentState": {"status": "status", "onTheWay": {"object": {"courier": "courier"}}},
///  "oneOf": {"by": "status", "cases": {"dispatched": "onTheWay"}}}
/// ```
/// Compiled (and so checked) when the configuration loads; errors name the key at fault.
struct DeclarativeMapper: Sendable {
    /// A dotted path into a JSON value: `courier.name`; a number segment indexes an array (`stops.0`).
    struct Path: Sendable, Hashable, CustomStringConvertible {
        var segments: [String]
        var description: String { segments.joined(separator: ".") }

        init(_ text: String, at key: String) throws(ConfigurationError) {
            let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !text.isEmpty,
                segments.allSatisfy({
                    !$0.isEmpty
                        && $0.unicodeScalars.allSatisfy {
                            CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-"
                        }
                })
            else {
                throw ConfigurationError(
                    key: key, "\(key): '\(text)' is not a path; write dot-separated names like courier.name")
            }
            self.segments = segments
        }

        /// The value at the path, nil when any step is missing or null.
        func read(_ value: JSONValue) -> JSONValue? {
            var current = value
            for segment in segments {
                if let object = current.objectValue {
                    guard let next = object[segment] else { return nil }
                    current = next
                } else if let array = current.arrayValue, let index = Int(segment), array.indices.contains(index) {
                    current = array[index]
                } else {
                    return nil
                }
            }
            return current == .null ? nil : current
        }

        /// Sets (or, with nil, removes) the value at the path, making objects on the way.
        func write(_ new: JSONValue?, into value: inout JSONValue) {
            Self.write(new, segments[...], into: &value)
        }

        private static func write(_ new: JSONValue?, _ rest: ArraySlice<String>, into value: inout JSONValue) {
            guard let first = rest.first else { return }
            var object = value.objectValue ?? [:]
            if rest.count == 1 {
                object[first] = new
            } else {
                var child = object[first] ?? .object([:])
                write(new, rest.dropFirst(), into: &child)
                object[first] = child
            }
            value = .object(object)
        }
    }

    /// Where a `set` takes its value.
    enum Source: Sendable {
        /// A path in the event's `data`; the fallback (or nothing, when optional) if absent.
        case data(Path, fallback: JSONValue?, optional: Bool)
        case literal(JSONValue)
        /// The server's clock, in Unix seconds.
        case now
    }

    /// What one event type does to the record.
    struct EventRule: Sendable {
        var set: [(target: Path, source: Source)]
        var unset: [Path]
        var ends: Bool
        /// `title`/`body` templates with `{record.path}` placeholders.
        var alert: [String: String]?
        /// The top-level `data` keys the event reads; others are refused as likely typos.
        var dataKeys: Set<String>
    }

    /// How one content-state field is computed.
    indirect enum Spec: Sendable {
        case copy(Path, fallback: JSONValue?)
        case literal(JSONValue)
        /// Unix seconds, Unix milliseconds or ISO-8601 in the record → seconds since 2001-01-01.
        case date(Path)
        /// A record value → an enum case string.
        case cases(Path, [String: String], fallback: String?)
        case object(ObjectSpec)
        /// The schedule entry in force (`current`: the last whose time has come) or the `next` one,
        /// from a list in the record; the object's paths are read in that entry.
        case entry(list: Path, at: Path, next: Bool, object: ObjectSpec)
    }

    /// An object's fields, of which a one-of group is filled by the record's value at `by`.
    struct ObjectSpec: Sendable {
        var fields: [String: Spec]
        var oneOf: OneOf?
    }

    /// "Exactly one of": the record's value at `by` names the member field to fill.
    struct OneOf: Sendable {
        var by: Path
        var cases: [String: String]
        var fallback: String?
        var members: Set<String> { Set(cases.values).union(fallback.map { [$0] } ?? []) }
    }

    let type: String
    let events: [String: EventRule]
    let contentState: ObjectSpec
    /// Every `entry` list and its time path: their times are where the content-state may change.
    let timed: [(list: Path, at: Path)]

    /// The event types, sorted, for messages.
    var eventTypes: [String] { events.keys.sorted() }
}
