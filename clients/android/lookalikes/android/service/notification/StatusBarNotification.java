// Look-alike of android.service.notification.StatusBarNotification (API 18), compile-only, from the
// Android API reference: the tag and id of a notification the app shows now, as
// NotificationManagerCompat.getActiveNotifications() lists them. Simplified: the other getters are absent.
package android.service.notification;

public class StatusBarNotification {
    StatusBarNotification() {}

    public int getId() { throw droptrack.lookalike.Absent.here(); }

    public String getTag() { throw droptrack.lookalike.Absent.here(); }
}
