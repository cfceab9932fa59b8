// Look-alike of android.app.NotificationManager (AOSP public android.txt 36.1; levels from diffing
// 35 and 36). DropTrack's glue goes through NotificationManagerCompat; these are here so that code
// calling the platform class directly is checked for its API level (tools/api_guard.py).
package android.app;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import droptrack.lookalike.Since;
import droptrack.lookalike.Trap;

public class NotificationManager {
    NotificationManager() {}

    /** Sent to the app alone (a manifest receiver gets it) when the person blocks or allows its notifications. */
    @Since(28)
    public static final String ACTION_APP_BLOCK_STATE_CHANGED = "android.app.action.APP_BLOCK_STATE_CHANGED";

    public static final int IMPORTANCE_DEFAULT = 3;
    public static final int IMPORTANCE_LOW = 2;

    public boolean areNotificationsEnabled() { throw droptrack.lookalike.Absent.here(); }

    /** Missing on some pre-QPR Android 16 builds although it is API 36 (DT-116). */
    @Since(36)
    @Trap("DT-116")
    public boolean canPostPromotedNotifications() { throw droptrack.lookalike.Absent.here(); }

    public void cancel(@Nullable String tag, int id) { throw droptrack.lookalike.Absent.here(); }

    public void createNotificationChannel(@NonNull NotificationChannel channel) { throw droptrack.lookalike.Absent.here(); }

    public NotificationChannel getNotificationChannel(String channelId) { throw droptrack.lookalike.Absent.here(); }

    public void notify(String tag, int id, Notification notification) { throw droptrack.lookalike.Absent.here(); }
}
