import DropTrackContract
import DropTrackDispatch
import DropTrackStore

// The domain's results as the JSON API answers them.

extension ActivityVersion {
    /// The answer to an event, update or end.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "state": .string(state.rawValue),
            "version": .number(Double(version)), "timestamp": .number(Double(timestamp)),
            "event": .string(event.rawValue), "priority": .number(Double(priority)),
            "destinations": .number(Double(destinations)), "notes": .array(notes.map { .string($0) }),
            "contentState": contentState,
        ])
    }
}
