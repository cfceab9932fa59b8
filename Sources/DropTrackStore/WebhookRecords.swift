import Foundation

/// One webhook delivery in the durable queue: an outcome to POST to one endpoint of an app. The body
/// is fixed when the outcome happens, so every retry sends (and signs) the same bytes.
public struct WebhookDelivery: Sendable, Equatable {
    /// The row's id: deliveries of one (endpoint, activity) go out in this order.
    public var id: Int64
    /// The app whose outcome it reports.
    public var app: String
    /// The endpoint's `id` in the app's configuration.
    public var endpoint: String
    /// The activity the outcome is about: deliveries are ordered per (endpoint, activity).
    public var activityId: String
    /// The `DropTrack-Delivery` header and the body's `id`: the same on every retry, so a receiver can
    /// drop a duplicate.
    public var deliveryId: String
    /// The `DropTrack-Event` header (`dead_letter`, …).
    public var event: String
    /// The JSON body, as sent.
    public var body: String
    /// When the outcome happened (the transaction that queued it).
    public var createdAt: Date
    /// When it may be tried (again).
    public var availableAt: Date
    /// Attempts so far (a claim counts as one).
    public var attempts: Int
    /// Why the last attempt failed (the receiver's status, or the transport's error).
    public var lastError: String?
    /// When it was given up: kept, visible, never tried again.
    public var failedAt: Date?

    public init(
        id: Int64 = 0, app: String, endpoint: String, activityId: String, deliveryId: String, event: String,
        body: String, createdAt: Date, availableAt: Date, attempts: Int = 0, lastError: String? = nil,
        failedAt: Date? = nil
    ) {
        self.id = id
        self.app = app
        self.endpoint = endpoint
        self.activityId = activityId
        self.deliveryId = deliveryId
        self.event = event
        self.body = body
        self.createdAt = createdAt
        self.availableAt = availableAt
        self.attempts = attempts
        self.lastError = lastError
        self.failedAt = failedAt
    }
}

/// The webhook queue's size, for metrics.
public struct WebhookQueueStats: Sendable, Equatable {
    /// Deliveries waiting or in flight.
    public var pending: Int
    /// Deliveries given up (kept for inspection).
    public var failed: Int

    public init(pending: Int, failed: Int) {
        self.pending = pending
        self.failed = failed
    }
}
