#if canImport(ActivityKit)
    import ActivityKit
#else
    /// ActivityKit's `ActivityAttributes`, reproduced with the same shape for platforms without
    /// ActivityKit (Linux). On Apple platforms ActivityKit's own protocol is used instead, so one
    /// attributes file compiles unchanged in the app, the widget extension and the server.
    public protocol ActivityAttributes: Decodable, Encodable {
        /// The dynamic part of a Live Activity, sent as `content-state`.
        associatedtype ContentState: Codable & Hashable
    }
#endif
