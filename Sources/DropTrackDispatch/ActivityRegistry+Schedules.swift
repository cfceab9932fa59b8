import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// Scheduled content-states: checked at the start, applied by the scheduler when their time comes.
extension ActivityRegistry {
    /// The schedule, sorted by time, with each content-state checked against the contract (an
    /// entry's errors name its index as given).
    func scheduleStates(
        _ entries: [StartActivity.ScheduleEntry], type: String, contracts: ContractBook
    ) throws(Refusal) -> JSONValue {
        let sorted = entries.enumerated().map { (at: $0.element.at, state: $0.element.contentState, index: $0.offset) }
            .sorted { $0.at < $1.at }
        var checked: [JSONValue] = []
        for entry in sorted {
            let state = try contracts.contentState(
                entry.state, type: type, field: "schedule[\(entry.index)].contentState")
            checked.append(.object(["at": .number(Double(entry.at)), "contentState": state]))
        }
        return .array(checked)
    }

    /// The schedule entry in force at `time`: the last one whose `at` has come.
    static func currentEntry(_ schedule: JSONValue, at time: Date) -> JSONValue? {
        schedule.arrayValue?.last { ($0["at"]?.numberValue ?? .infinity) <= time.timeIntervalSince1970 }?[
            "contentState"]
    }
}
