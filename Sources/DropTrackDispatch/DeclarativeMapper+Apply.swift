import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

// Running a compiled mapper: an event changes the record; the record gives the content-state at a time.
extension DeclarativeMapper {
    /// What an event made of the record.
    struct Applied: Sendable, Equatable {
        var record: JSONValue
        var alert: JSONValue?
        var terminal: Bool
    }

    /// Applies event `eventType` with `data` to `record` (nil: a new activity's empty record). The
    /// rules come from the app's configuration, not the published schema, so refusals are 422.
    func apply(_ eventType: String, data: JSONValue, record: JSONValue?, now: Date) throws(Refusal) -> Applied {
        try unprocessable { () throws(Refusal) in try applying(eventType, data: data, record: record, now: now) }
    }

    private func applying(_ eventType: String, data: JSONValue, record: JSONValue?, now: Date)
        throws(Refusal) -> Applied
    {
        guard let rule = events[eventType] else {
            throw Refusal.unprocessable(
                code: .unknownEventType,
                message:
                    "unknown event type '\(eventType)'; \(type)'s mapper knows \(eventTypes.joined(separator: ", ")) (add it under schemas.\(type).mapper.events)",
                field: "type")
        }
        let reader = try FieldReader(data, prefix: "data")
        try reader.refuseUnknown(rule.dataKeys)
        var record = record ?? .object([:])
        for (target, source) in rule.set {
            switch source {
            case .literal(let value): target.write(value, into: &record)
            case .now: target.write(.number(now.timeIntervalSince1970.rounded()), into: &record)
            case .data(let path, let fallback, let optional):
                if let value = path.read(data) ?? fallback {
                    target.write(value, into: &record)
                } else if !optional {
                    throw Refusal.missing(
                        "data.\(path)", "a value for the record's '\(target)' (\(eventType) sets it from data.\(path))")
                }
            }
        }
        for path in rule.unset { path.write(nil, into: &record) }
        let alert = rule.alert.map { templates in
            JSONValue.object(templates.mapValues { .string(Self.render($0, record: record)) })
        }
        return Applied(record: record, alert: alert, terminal: rule.ends)
    }

    /// The content-state the record gives at `time`. Errors name the content-state field at fault.
    func contentState(_ record: JSONValue, at time: Date) throws(Refusal) -> JSONValue {
        try evaluate(contentState, in: record, at: time, field: "contentState")
    }

    /// The times after `now` (Unix seconds, ascending, at most `limit`) at which the content-state
    /// may change: each time of each schedule list the mapping reads.
    func boundaries(_ record: JSONValue, after now: Date, limit: Int = 100) -> [Int64] {
        var times = Set<Int64>()
        for (list, at) in timed {
            for entry in list.read(record)?.arrayValue ?? [] {
                guard let value = at.read(entry), let unix = Self.unixSeconds(value),
                    unix > now.timeIntervalSince1970, let time = Int64(checking: unix.rounded(.up))
                else { continue }
                times.insert(time)
            }
        }
        return Array(times.sorted().prefix(limit))
    }

    private func evaluate(_ spec: ObjectSpec, in scope: JSONValue, at time: Date, field: String)
        throws(Refusal) -> JSONValue
    {
        var chosen: String? = nil
        if let oneOf = spec.oneOf {
            let value = oneOf.by.read(scope)
            let key = value.map { $0.stringValue ?? PayloadBuilder.string($0) }
            guard let name = key.flatMap({ oneOf.cases[$0] }) ?? oneOf.fallback else {
                throw Refusal.unprocessable(
                    code: .mapperRecord,
                    message:
                        "the record's '\(oneOf.by)' is \(key.map { "'\($0)'" } ?? "missing"), which \(type)'s mapper does not map to one of \(oneOf.members.sorted().joined(separator: ", ")); add it to the oneOf cases of \(field) or give a default",
                    field: field)
            }
            chosen = name
        }
        let members = spec.oneOf?.members ?? []
        var out: [String: JSONValue] = [:]
        for (name, fieldSpec) in spec.fields.sorted(by: { $0.key < $1.key }) {
            if members.contains(name) && name != chosen { continue }
            out[name] = try evaluate(fieldSpec, in: scope, at: time, field: "\(field).\(name)")
        }
        return .object(out)
    }

    private func evaluate(_ spec: Spec, in scope: JSONValue, at time: Date, field: String)
        throws(Refusal) -> JSONValue?
    {
        switch spec {
        case .literal(let value): return value
        case .copy(let path, let fallback): return path.read(scope) ?? fallback
        case .object(let object): return try evaluate(object, in: scope, at: time, field: field)
        case .date(let path):
            guard let value = path.read(scope) else { return nil }
            guard let unix = Self.unixSeconds(value) else {
                throw Refusal.unprocessable(
                    code: .mapperRecord,
                    message:
                        "the record's '\(path)' is \(String(decoding: value.serialized(), as: UTF8.self)), not a date: send Unix seconds, Unix milliseconds or ISO-8601",
                    field: field)
            }
            let seconds = Date(timeIntervalSince1970: unix).timeIntervalSinceReferenceDate.rounded()
            guard ContentDates.contains(referenceSeconds: seconds) else {
                throw Refusal.unprocessable(
                    code: .mapperRecord,
                    message:
                        "the record's '\(path)' is \(String(decoding: value.serialized(), as: UTF8.self)), not a date \(ContentDates.windowText)",
                    field: field)
            }
            return .number(seconds)
        case .cases(let path, let cases, let fallback):
            guard let value = path.read(scope) else { return fallback.map { .string($0) } }
            let key = value.stringValue ?? PayloadBuilder.string(value)
            guard let name = cases[key] ?? fallback else {
                throw Refusal.unprocessable(
                    code: .mapperRecord,
                    message:
                        "the record's '\(path)' is '\(key)', which \(type)'s mapper does not map (it maps \(cases.keys.sorted().joined(separator: ", "))); add it to the cases of \(field) or give a default",
                    field: field)
            }
            return .string(name)
        case .entry(let list, let at, let next, let object):
            let entries = (list.read(scope)?.arrayValue ?? []).compactMap { entry -> (Double, JSONValue)? in
                at.read(entry).flatMap(Self.unixSeconds).map { ($0, entry) }
            }.sorted { $0.0 < $1.0 }
            let now = time.timeIntervalSince1970
            let entry = next ? entries.first { $0.0 > now } : entries.last { $0.0 <= now }
            guard let entry else { return nil }
            return try evaluate(object, in: entry.1, at: time, field: field)
        }
    }

    /// Unix seconds from Unix seconds, Unix milliseconds (from 10^11 on, i.e. after 1973 in ms) or an
    /// ISO-8601 string (with or without fractional seconds).
    static func unixSeconds(_ value: JSONValue) -> Double? {
        if let number = value.numberValue { return number >= 1e11 ? number / 1000 : number }
        guard let text = value.stringValue else { return nil }
        return ContentDates.parseISO8601(text)?.timeIntervalSince1970
    }

    /// A template with each `{path}` replaced by the record's value there (empty when absent).
    static func render(_ template: String, record: JSONValue) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            let path = DeclarativeMapper.Path(unchecked: name)
            out += path.read(record).map { $0.stringValue ?? PayloadBuilder.string($0) } ?? ""
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}

extension DeclarativeMapper.Path {
    /// A path checked when the configuration loaded.
    init(unchecked text: String) { segments = text.split(separator: ".").map(String.init) }
}
