import DropTrackContract
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackDispatch

/// The declarative mapper as values: event by event, with no server.
@Suite("Declarative mapper")
struct DeclarativeMapperTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let book = ContractBook(schemas: MapperExamples.schemas)

    func mapper(_ type: String) throws -> DeclarativeMapper {
        try #require(try book.declarativeMapper(type))
    }

    /// The content-state the record gives, checked against the schema as a version's would be.
    func state(_ mapper: DeclarativeMapper, _ record: JSONValue, at time: Date) throws -> JSONValue {
        try book.contentState(mapper.contentState(record, at: time), type: mapper.type, field: "contentState")
    }

    @Test("a receipt, event by event: one nested object at a time, dates in reference seconds, alerts, the end")
    func receipt() throws {
        let receipt = try mapper("ReceiptAttributes")
        let accepted = try receipt.apply(
            "receipt.accepted", data: json(#"{"orderNumber": "R-17", "readyBy": "2027-01-15T08:10:00Z"}"#), record: nil,
            now: t0)
        #expect(!accepted.terminal && accepted.alert == nil)
        let first = try state(receipt, accepted.record, at: t0)
        #expect(first["orderNumber"] == .string("R-17") && first["status"] == .string("preparing"))
        #expect(first["updatedAt"]?.numberValue == t0.timeIntervalSinceReferenceDate)
        let readyBy = try Date.ISO8601FormatStyle().parse("2027-01-15T08:10:00Z")
        #expect(first["preparing"] == .object(["readyBy": .number(readyBy.timeIntervalSinceReferenceDate)]))
        #expect(first["onTheWay"] == nil && first["delivered"] == nil)

        let t1 = t0.addingTimeInterval(600)
        let dispatched = try receipt.apply(
            "receipt.dispatched", data: json(#"{"courier": "Sam", "etaEpochMillis": 1800001500000}"#),
            record: accepted.record, now: t1)
        #expect(dispatched.alert == json(#"{"title": "On its way", "body": "Sam is bringing order R-17"}"#))
        let second = try state(receipt, dispatched.record, at: t1)
        #expect(second["status"] == .string("onTheWay") && second["preparing"] == nil && second["delivered"] == nil)
        let eta = Date(timeIntervalSince1970: 1_800_001_500).timeIntervalSinceReferenceDate
        #expect(second["onTheWay"] == .object(["courier": .string("Sam"), "eta": .number(eta)]))

        let t2 = t1.addingTimeInterval(900)
        let delivered = try receipt.apply("receipt.delivered", data: .object([:]), record: dispatched.record, now: t2)
        #expect(delivered.terminal)
        #expect(delivered.record["eta"] == nil, "unset removes the ETA from the record")
        #expect(delivered.alert?["body"] == .string("Order R-17 is at your door"))
        let last = try state(receipt, delivered.record, at: t2)
        #expect(last["status"] == .string("delivered") && last["onTheWay"] == nil)
        #expect(last["delivered"] == .object(["at": .number(t2.timeIntervalSinceReferenceDate)]))
        #expect(last["updatedAt"]?.numberValue == t2.timeIntervalSinceReferenceDate)
    }

    @Test("unknown event types, missing and unknown data keys, and unmapped record values name the field and the fix")
    func eventErrors() throws {
        let receipt = try mapper("ReceiptAttributes")
        #expect {
            try receipt.apply("receipt.lost", data: .object([:]), record: nil, now: t0)
        } throws: { error in
            let error = error as? Refusal
            return error?.field == "type" && error?.message.contains("receipt.accepted, receipt.delivered") == true
                && error?.message.contains("schemas.ReceiptAttributes.mapper.events") == true
        }
        #expect {
            try receipt.apply("receipt.dispatched", data: .object([:]), record: nil, now: t0)
        } throws: { ($0 as? Refusal)?.field == "data.courier" }
        #expect {
            try receipt.apply(
                "receipt.dispatched", data: json(#"{"courier": "Sam", "curier": "x"}"#), record: nil, now: t0)
        } throws: { ($0 as? Refusal)?.message.contains("curier") == true }
        #expect {
            try receipt.contentState(json(#"{"orderNumber": "R", "status": "lost", "updatedAt": 1}"#), at: t0)
        } throws: { error in
            let error = error as? Refusal
            return error?.field == "contentState" && error?.message.contains("'status' is 'lost'") == true
        }
        #expect {
            try receipt.contentState(
                json(#"{"orderNumber": "R", "status": "accepted", "updatedAt": "yesterday"}"#), at: t0)
        } throws: { error in
            let error = error as? Refusal
            return error?.field == "contentState.updatedAt" && error?.message.contains("not a date") == true
        }
    }

    @Test("a schedule: the class in progress and the next one follow the clock; its times are the boundaries")
    func schedule() throws {
        let classes = try mapper("ClassScheduleAttributes")
        let start = Int64(t0.timeIntervalSince1970)
        let list: JSONValue = .array([
            .object(["name": .string("Spin"), "room": .string("A"), "at": .number(Double(start + 600))]),
            .object(["name": .string("Yoga"), "room": .string("B"), "at": .number(Double((start + 1800) * 1000))]),
            .object(["name": .string("Boxing"), "room": .string("A"), "at": .string(Self.iso(start + 3600))]),
        ])
        let set = try classes.apply(
            "classes.set", data: .object(["gym": .string("Riverside"), "classes": list]), record: nil, now: t0)
        #expect(classes.boundaries(set.record, after: t0) == [start + 600, start + 1800, start + 3600])
        #expect(classes.boundaries(set.record, after: t0.addingTimeInterval(600)) == [start + 1800, start + 3600])
        let before = try state(classes, set.record, at: t0)
        #expect(before["current"] == nil && before["next"]?["name"] == .string("Spin"))
        let during = try state(classes, set.record, at: t0.addingTimeInterval(1800))
        #expect(during["current"]?["name"] == .string("Yoga") && during["next"]?["name"] == .string("Boxing"))
        let yogaStart = Date(timeIntervalSince1970: Double(start + 1800)).timeIntervalSinceReferenceDate
        #expect(during["current"]?["startsAt"]?.numberValue == yogaStart, "milliseconds become reference seconds")
        let after = try state(classes, set.record, at: t0.addingTimeInterval(4000))
        #expect(after["current"]?["name"] == .string("Boxing") && after["next"] == nil)
        #expect(try classes.apply("classes.closed", data: .object([:]), record: set.record, now: t0).terminal)
    }

    @Test("dates: Unix seconds, Unix milliseconds and ISO-8601, with or without fractions")
    func dates() {
        #expect(DeclarativeMapper.unixSeconds(.number(1_800_000_000)) == 1_800_000_000)
        #expect(DeclarativeMapper.unixSeconds(.number(1_800_000_000_500)) == 1_800_000_000.5)
        #expect(DeclarativeMapper.unixSeconds(.string("2027-01-15T08:00:00Z")) == 1_800_000_000)
        #expect(DeclarativeMapper.unixSeconds(.string("1970-01-01T00:00:10.500Z")) == 10.5)
        #expect(DeclarativeMapper.unixSeconds(.string("1970-01-01T00:00:10Z")) == 10)
        #expect(DeclarativeMapper.unixSeconds(.string("soon")) == nil)
        #expect(DeclarativeMapper.unixSeconds(.bool(true)) == nil)
    }

    @Test("the scheduler opens no transaction for a schedule whose entry in force is already sent")
    func idleSchedule() throws {
        let schedule = json(
            #"[{"at": 1800000000, "contentState": {"n": 1}}, {"at": 1800000600, "contentState": {"n": 2}}]"#)
        var activity = ActivityRecord(
            app: "a", id: "x", userId: "u", attributesType: "T", attributes: .object([:]),
            contentState: json(#"{"n": 1}"#),
            state: .active, version: 1, timestamp: 0, event: .start, priority: 10, createdAt: t0, updatedAt: t0,
            schedule: schedule)
        #expect(ActivityRegistry.scheduleIsIdle(activity, now: t0.addingTimeInterval(599)))
        #expect(!ActivityRegistry.scheduleIsIdle(activity, now: t0.addingTimeInterval(600)), "a boundary came")
        activity.endAt = t0.addingTimeInterval(60)
        #expect(!ActivityRegistry.scheduleIsIdle(activity, now: t0.addingTimeInterval(60)), "its end is due")
        activity.endAt = nil
        activity.staleDate = Int64(t0.timeIntervalSince1970) + 30
        #expect(!ActivityRegistry.scheduleIsIdle(activity, now: t0.addingTimeInterval(60)), "it turns stale")
    }

    func json(_ text: String) -> JSONValue {
        (try? JSONValue.parse(text)) ?? .null
    }

    static func iso(_ unix: Int64) -> String {
        Date(timeIntervalSince1970: Double(unix)).formatted(.iso8601)
    }
}
