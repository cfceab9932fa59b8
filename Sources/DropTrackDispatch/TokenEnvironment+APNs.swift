import DropTrackStore
import DropTrackWire

// The store keeps its own copy of the APNs environment (it does not import the wire models); these
// convert between the two, exhaustively, so a new environment cannot be dropped on the way.

extension APNsEnvironment {
    /// The environment a stored token was registered with.
    public init(_ environment: TokenEnvironment) {
        switch environment {
        case .sandbox: self = .sandbox
        case .production: self = .production
        }
    }
}

extension TokenEnvironment {
    /// The environment to store for a token registered with `environment`.
    public init(_ environment: APNsEnvironment) {
        switch environment {
        case .sandbox: self = .sandbox
        case .production: self = .production
        }
    }
}
