// Look-alike of androidx.core.app.NotificationManagerCompat from androidx core 1.17's api.txt.
// canPostPromotedNotifications() is false below API 36 by itself, but from 36 it calls the
// platform method, which some pre-QPR Android 16 builds lack (DT-116): calls must catch.
package androidx.core.app;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import droptrack.lookalike.Trap;

public final class NotificationManagerCompat {
    private NotificationManagerCompat() {}

    public static final int IMPORTANCE_DEFAULT = 3;
    public static final int IMPORTANCE_LOW = 2;

    @NonNull
    public static NotificationManagerCompat from(@NonNull android.content.Context context) { throw droptrack.lookalike.Absent.here(); }

    public boolean areNotificationsEnabled() { throw droptrack.lookalike.Absent.here(); }

    @Trap("DT-116")
    public boolean canPostPromotedNotifications() { throw droptrack.lookalike.Absent.here(); }

    public void cancel(@Nullable String tag, int id) { throw droptrack.lookalike.Absent.here(); }

    public void createNotificationChannel(@NonNull android.app.NotificationChannel channel) { throw droptrack.lookalike.Absent.here(); }

    public void createNotificationChannel(@NonNull NotificationChannelCompat channel) { throw droptrack.lookalike.Absent.here(); }

    /** The app's notifications shown now (the platform's list from API 23, empty before). */
    @NonNull
    public java.util.List<android.service.notification.StatusBarNotification> getActiveNotifications() { throw droptrack.lookalike.Absent.here(); }

    @Nullable
    public NotificationChannelCompat getNotificationChannelCompat(@NonNull String channelId) { throw droptrack.lookalike.Absent.here(); }

    /** @RequiresPermission(POST_NOTIFICATIONS) in api.txt; a SecurityException on 33+ without it. */
    public void notify(@Nullable String tag, int id, @NonNull android.app.Notification notification) { throw droptrack.lookalike.Absent.here(); }
}
