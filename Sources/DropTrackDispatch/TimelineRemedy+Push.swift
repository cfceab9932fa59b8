import DropTrackStore
import DropTrackWire

extension TimelineRemedy {
    /// The provider's remedy as the timeline records it (the same names as `PushRemedy.name`).
    public init(_ remedy: PushRemedy) {
        switch remedy {
        case .none: self = .none
        case .deleteToken: self = .deleteToken
        case .refreshCredentials: self = .refreshCredentials
        case .retry: self = .retry
        case .reconnect: self = .reconnect
        case .rejectRequest: self = .rejectRequest
        }
    }
}
