// What the simulated Android phone holds and reports: its settings, the ProgressStyle model, the chip,
// notifications, drops and message priorities.
import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation
import Synchronization

/// The phone's settings that decide whether a Live Update shows and is promoted.
public struct AndroidDeviceSettings: Sendable, Equatable {
    /// Which promotion rule the OS build applies.
    public enum PromotionRule: String, Sendable, Codable {
        /// The current AOSP rule (QPR): requested, ongoing, titled, allowed style, not a group
        /// summary, no custom views, and **not** colorized.
        case current
        /// The Android 16.0 release rule: an ongoing CallStyle, or colorized with a promotable style.
        case android16Release
    }

    /// A notification channel's importance.
    public enum ChannelImportance: Int, Sendable, Codable, Comparable {
        case none = 0, min = 1, low = 2, `default` = 3, high = 4
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// `POST_NOTIFICATIONS` granted (Android 13+); without it nothing shows.
    public var notificationPermissionGranted: Bool
    /// `POST_PROMOTED_NOTIFICATIONS` declared and not revoked (`canPostPromotedNotifications()`).
    public var promotedPermissionGranted: Bool
    /// The per-app Live Updates switch in Settings.
    public var userAllowsLiveUpdates: Bool
    /// The channel's importance; MIN cannot be promoted, NONE shows nothing.
    public var channelImportance: ChannelImportance
    /// The promotion rule of this OS build.
    public var promotionRule: PromotionRule
    /// Updates per second per app before the system sheds them (NotificationManagerService).
    public var maxUpdatesPerSecond: Int
    /// Live notifications per app before new ones are refused.
    public var maxNotifications: Int
    /// The app is on screen: the status-bar chip hides.
    public var appVisible: Bool
    /// The app ignores a message whose `sequence` is older than the one shown (the handbook's
    /// service does not, which is trap DT-097).
    public var appChecksSequence: Bool
    /// The app refuses a map that breaks the contract rather than showing defaults: a `progress`
    /// that is not a plain decimal, a `schemaVersion` it does not know (DT-090). DropTrack's
    /// Android library does; the handbook's service does not.
    public var appChecksContract: Bool
    /// High-priority messages that showed nothing, within `deprioritizationWindowSeconds`, after
    /// which FCM delivers further high-priority messages as normal (DT-113). FCM publishes no
    /// figure; this is a parameter.
    public var deprioritizeAfterInvisibleHighPriority: Int
    /// How far back FCM looks when it judges whether high-priority messages led to a visible
    /// notification ("about 7 days").
    public var deprioritizationWindowSeconds: TimeInterval
    /// Whether a high-priority message that only updates a notification already shown counts as
    /// visible. FCM does not document it, so it is a switch.
    public var updatesCountAsVisible: Bool
    /// Non-collapsible messages FCM stores for an offline phone; past this it discards them all
    /// and the app gets `onDeletedMessages` (DT-114).
    public var maxPendingMessages: Int
    /// The screen is locked: since Android 14 ongoing notifications can be dismissed, except here.
    public var deviceLocked: Bool

    /// Creates settings; the defaults are a Pixel on the current rule with everything granted.
    public init(
        notificationPermissionGranted: Bool = true, promotedPermissionGranted: Bool = true,
        userAllowsLiveUpdates: Bool = true, channelImportance: ChannelImportance = .default,
        promotionRule: PromotionRule = .current, maxUpdatesPerSecond: Int = AndroidLiveUpdateLimits.updatesPerSecond,
        maxNotifications: Int = 50,
        appVisible: Bool = false, appChecksSequence: Bool = false, appChecksContract: Bool = false,
        deprioritizeAfterInvisibleHighPriority: Int = 10, deprioritizationWindowSeconds: TimeInterval = 7 * 86_400,
        updatesCountAsVisible: Bool = true, maxPendingMessages: Int = 100, deviceLocked: Bool = false
    ) {
        self.notificationPermissionGranted = notificationPermissionGranted
        self.promotedPermissionGranted = promotedPermissionGranted
        self.userAllowsLiveUpdates = userAllowsLiveUpdates
        self.channelImportance = channelImportance
        self.promotionRule = promotionRule
        self.maxUpdatesPerSecond = maxUpdatesPerSecond
        self.maxNotifications = maxNotifications
        self.appVisible = appVisible
        self.appChecksSequence = appChecksSequence
        self.appChecksContract = appChecksContract
        self.deprioritizeAfterInvisibleHighPriority = deprioritizeAfterInvisibleHighPriority
        self.deprioritizationWindowSeconds = deprioritizationWindowSeconds
        self.updatesCountAsVisible = updatesCountAsVisible
        self.maxPendingMessages = maxPendingMessages
        self.deviceLocked = deviceLocked
    }
}

/// `Notification.ProgressStyle` as the app builds it: segments, points, progress and a tracker icon.
public struct ProgressStyleModel: Sendable, Equatable, Codable {
    /// A segment of the bar.
    public struct Segment: Sendable, Equatable, Codable {
        public var length: Int
        public var color: String?
        public init(length: Int, color: String?) {
            self.length = length
            self.color = color
        }
    }

    /// A point on the bar.
    public struct Point: Sendable, Equatable, Codable {
        public var position: Int
        public var color: String?
        public init(position: Int, color: String?) {
            self.position = position
            self.color = color
        }
    }

    /// Segments as given (the platform merges more than 10 into one).
    public var segments: [Segment]
    /// Points as given (the platform keeps the first 4 strictly inside the bar).
    public var points: [Point]
    /// Progress as given (clamped to 0…max).
    public var progress: Int
    /// The tracker icon's name.
    public var trackerIcon: String?

    /// Creates a style.
    public init(segments: [Segment], points: [Point], progress: Int, trackerIcon: String?) {
        self.segments = segments
        self.points = points
        self.progress = progress
        self.trackerIcon = trackerIcon
    }

    /// The platform's caps (shared with the doctor).
    public static let maximumSegments = AndroidLiveUpdateLimits.maximumSegments
    public static let maximumPoints = AndroidLiveUpdateLimits.maximumPoints

    /// Sum of segment lengths, or 100 without segments.
    public var max: Int { segments.isEmpty ? 100 : segments.reduce(0) { $0 + $1.length } }
    /// Progress clamped as the platform clamps it.
    public var shownProgress: Int { Swift.min(Swift.max(progress, 0), max) }
    /// Segments as the platform renders them.
    public var shownSegments: [Segment] {
        guard segments.count > ProgressStyleModel.maximumSegments else { return segments }
        let colors = Set(segments.map(\.color))
        return [Segment(length: max, color: colors.count == 1 ? segments.first?.color : nil)]
    }
    /// Points as the platform renders them.
    public var shownPoints: [Point] {
        Array(points.filter { $0.position > 0 && $0.position < max }.prefix(ProgressStyleModel.maximumPoints))
    }
}

/// What the status-bar chip shows.
public enum LiveUpdateChip: Sendable, Equatable, Codable {
    /// No chip (not promoted, or the app is on screen).
    case none
    /// `shortCriticalText`.
    case text(String)
    /// A chronometer.
    case timer
    /// The `when` time, at least a minute ahead.
    case time(String)
    /// The icon alone.
    case iconOnly
}

/// One Live Update notification as the phone holds it.
public struct LiveUpdateNotification: Sendable, Equatable, Codable {
    /// The stable notification id derived from the activity id.
    public var id: Int32
    /// The tag: the activity id.
    public var tag: String
    /// `setContentTitle`: the status.
    public var title: String
    /// `setContentText`: the courier line.
    public var text: String
    /// `setSubText`: "Order #…".
    public var subText: String
    /// `setOngoing`.
    public var ongoing: Bool
    /// `setOnlyAlertOnce`.
    public var onlyAlertOnce: Bool
    /// `setColor`.
    public var color: String
    /// `setColorized`.
    public var colorized: Bool
    /// `setShortCriticalText`.
    public var shortCriticalText: String?
    /// `setRequestPromotedOngoing`.
    public var requestPromotedOngoing: Bool
    /// `setWhen` in Unix ms, when set (the ETA, only if in the future).
    public var whenMillis: Int64?
    /// `setShowWhen`.
    public var showWhen: Bool
    /// `setUsesChronometer`.
    public var usesChronometer: Bool
    /// The style's name: `progress`, `bigText`, `call`, `metric`, `media`, `messaging`, `inbox`, `bigPicture` or `none`.
    public var style: String
    /// The ProgressStyle, when that is the style.
    public var progressStyle: ProgressStyleModel?
    /// A group summary.
    public var isGroupSummary: Bool
    /// Custom RemoteViews.
    public var hasCustomView: Bool
    /// The `sequence` of the message shown.
    public var sequence: Int64
    /// The event of the message shown.
    public var event: String
    /// True when the system promoted it (`FLAG_PROMOTED_ONGOING`).
    public var promoted: Bool
    /// Why it is not promoted, in words; empty when promoted.
    public var notPromotedBecause: [String]
    /// The status-bar chip.
    public var chip: LiveUpdateChip
    /// FCM discarded the phone's backlog (`onDeletedMessages`) and no message has reached this
    /// notification since: it shows an older state than the server holds (DT-114).
    public var staleAfterDeletedMessages: Bool
}

/// A message the phone did not show, and why.
public struct AndroidDrop: Sendable, Equatable, Codable {
    /// When it arrived.
    public var at: Date
    /// The activity it was for, when it said.
    public var activityId: String?
    /// The trap id, when the drop is one the catalog names.
    public var trap: String?
    /// Why, in words.
    public var reason: String
}

/// The priority an FCM message was sent with and the one it arrived with, as the app reads
/// `RemoteMessage.getOriginalPriority()` and `getPriority()`.
public struct AndroidMessagePriority: Sendable, Equatable, Codable {
    /// The activity it was for, when it said.
    public var activityId: String?
    /// `high` or `normal`, as the server sent it.
    public var original: String
    /// `high` or `normal`, as FCM delivered it; `normal` for a demoted high-priority message.
    public var delivered: String

    /// Creates a record.
    public init(activityId: String?, original: String, delivered: String) {
        self.activityId = activityId
        self.original = original
        self.delivered = delivered
    }
}
