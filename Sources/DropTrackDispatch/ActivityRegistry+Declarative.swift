import DropTrackContract
import DropTrackModel
import DropTrackStore
import Foundation

extension ContractBook {
    /// The declarative mapper registered for `type`, if any. The configuration checked it when it
    /// loaded; a configuration built in code that skipped `validate()` gets the same error here.
    func declarativeMapper(_ type: String) throws(Refusal) -> DeclarativeMapper? {
        guard let schema = schemas[type], let json = schema.mapper else { return nil }
        do {
            return try DeclarativeMapper(json, schema: schema, type: type, at: "schemas.\(type).mapper")
        } catch {
            throw Refusal.unprocessable(code: .mapperConfig, message: error.description, field: "type")
        }
    }

    /// Every event type a mapper knows: the built-in delivery ones, then the declared ones.
    var eventTypes: [String] {
        let declared = schemas.values.compactMap { $0.mapper?["events"]?.objectValue?.keys }.flatMap { $0 }
        return DeliveryMapper.eventTypes + Set(declared).sorted()
    }
}

// Events for attributes types with a declarative mapper: the record changes, the content-state is
// computed from it and checked against the schema, and for schedules the coming states are kept for
// the scheduler, all in the version's transaction.
extension ActivityRegistry {
    /// The content-state `record` gives now, checked against the schema, and, when the mapping reads
    /// a schedule, the states at its coming times (`[{"at": unix, "contentState"}]`, now first) that the
    /// scheduler pushes as each comes (Scheduler.swift reuses the `schedule` column for them).
    func declarativeState(
        _ mapper: DeclarativeMapper, record: JSONValue, contracts: ContractBook, now: Date
    ) throws(Refusal) -> (state: JSONValue, schedule: JSONValue?) {
        let state = try contracts.contentState(
            mapper.contentState(record, at: now), type: mapper.type, field: "contentState")
        guard !mapper.timed.isEmpty else { return (state, nil) }
        var entries: [JSONValue] = [
            .object(["at": .number(now.timeIntervalSince1970.rounded(.down)), "contentState": state])
        ]
        for boundary in mapper.boundaries(record, after: now) {
            let later = try contracts.contentState(
                mapper.contentState(record, at: Date(timeIntervalSince1970: Double(boundary))), type: mapper.type,
                field: "contentState")
            entries.append(.object(["at": .number(Double(boundary)), "contentState": later]))
        }
        return (state, .array(entries))
    }

    /// `applyEvent` for a type with a declarative mapper, inside the version's transaction.
    func applyDeclarative(
        _ mapper: DeclarativeMapper, _ event: ApplyEvent, to activity: inout ActivityRecord, app: AppConfiguration,
        tx: any StoreTransaction, now: Date
    ) throws -> ActivityVersion {
        let applied = try mapper.apply(event.type, data: event.data, record: activity.mapperState?["record"], now: now)
        let (state, schedule) = try declarativeState(
            mapper, record: applied.record, contracts: contracts(app), now: now)
        var memory = activity.mapperState?.objectValue ?? [:]
        memory["record"] = applied.record
        activity.mapperState = .object(memory)
        activity.schedule = schedule
        let ending = applied.terminal && event.terminal == .end
        if ending { endState(&activity, dismissal: nil, now: now) }
        let (notes, count) = try commitVersion(
            &activity, event: ending ? .end : .update, state: state, alert: applied.alert, terminal: applied.terminal,
            requestedPriority: nil, app: app, tx: tx, now: now)
        return ActivityVersion(activity, destinations: count, notes: notes)
    }
}
