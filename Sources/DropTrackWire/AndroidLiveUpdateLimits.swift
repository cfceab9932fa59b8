import DropTrackContract

/// Android 16's limits on a promoted Live Update, from AOSP (`Notification.ProgressStyle`, the
/// status-bar chip, NotificationManagerService). The doctor checks sends against them and the
/// Android phone model applies them, so both read the numbers from here.
public enum AndroidLiveUpdateLimits {
    /// ProgressStyle merges more segments than this into one bar.
    public static let maximumSegments = DeliveryWidgetLogic.androidMaximumSegments
    /// ProgressStyle keeps at most this many points (strictly inside the bar).
    public static let maximumPoints = 4
    /// The chip shows about this many characters of `shortCriticalText`.
    public static let shortCriticalTextCharacters = 7
    /// The chip shows `when` only if it is at least this many seconds ahead.
    public static let chipTimeLeadSeconds: Double = 60
    /// Updates per second per app before the system sheds them.
    public static let updatesPerSecond = 5
}
