// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
package android.app;

public class NotificationManager {
    public static final int IMPORTANCE_DEFAULT = 3;

    public void createNotificationChannel(NotificationChannel channel) {
        throw new UnsupportedOperationException("look-alike");
    }

    public NotificationChannel getNotificationChannel(String channelId) {
        throw new UnsupportedOperationException("look-alike");
    }

    public void notify(String tag, int id, Notification notification) {
        throw new UnsupportedOperationException("look-alike");
    }

    public void cancel(String tag, int id) {
        throw new UnsupportedOperationException("look-alike");
    }

    public boolean areNotificationsEnabled() {
        throw new UnsupportedOperationException("look-alike");
    }

    /** API 36. */
    public boolean canPostPromotedNotifications() {
        throw new UnsupportedOperationException("look-alike");
    }
}
