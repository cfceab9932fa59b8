// Look-alike of androidx.core.app.NotificationCompat from androidx core 1.17's api.txt
// (androidx/androidx core/core/api/1.17.0-beta01.txt): the builder, the style base and the
// ProgressStyle backport. Core 1.17 backports Android 16's ProgressStyle and the 36.1 promotion
// request, so none of these carries an API level: NotificationCompat decides at run time what
// the device supports. Nullability as api.txt writes it (`T?` nullable, `T` not null).
// Simplified: the ~150 other members (actions, other styles, extenders, extras keys) are absent.
package androidx.core.app;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.List;

public class NotificationCompat {
    @Deprecated
    public NotificationCompat() {}

    public static final String CATEGORY_PROGRESS = "progress";
    public static final String CATEGORY_TRANSPORT = "transport";
    public static final int VISIBILITY_PUBLIC = 1;

    @Nullable
    public static String getShortCriticalText(@NonNull android.app.Notification notification) { throw droptrack.lookalike.Absent.here(); }

    public static boolean hasPromotableCharacteristics(@NonNull android.app.Notification notification) { throw droptrack.lookalike.Absent.here(); }

    public static boolean isRequestPromotedOngoing(@NonNull android.app.Notification notification) { throw droptrack.lookalike.Absent.here(); }

    public static class Builder {
        public Builder(@NonNull android.content.Context context, @NonNull String channelId) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public android.app.Notification build() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setCategory(@Nullable String category) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setColor(int argb) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setContentIntent(@Nullable android.app.PendingIntent intent) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setContentText(@Nullable CharSequence text) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setContentTitle(@Nullable CharSequence title) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setDeleteIntent(@Nullable android.app.PendingIntent intent) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setOngoing(boolean ongoing) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setOnlyAlertOnce(boolean onlyAlertOnce) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setProgress(int max, int progress, boolean indeterminate) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setRequestPromotedOngoing(boolean requestPromotedOngoing) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setShortCriticalText(@Nullable String shortCriticalText) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setShowWhen(boolean show) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setSmallIcon(int icon) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setStyle(@Nullable Style style) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setSubText(@Nullable CharSequence text) { throw droptrack.lookalike.Absent.here(); }

        /** A no-op before API 26, where the platform has no timeout; NotificationCompat checks. */
        @NonNull
        public Builder setTimeoutAfter(long durationMs) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setVisibility(int visibility) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setWhen(long when) { throw droptrack.lookalike.Absent.here(); }
    }

    public abstract static class Style {
        public Style() {}

        @Nullable
        public android.app.Notification build() { throw droptrack.lookalike.Absent.here(); }

        public void setBuilder(@Nullable Builder builder) { throw droptrack.lookalike.Absent.here(); }
    }

    public static class ProgressStyle extends Style {
        public ProgressStyle() {}

        public int getProgress() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public List<Point> getProgressPoints() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public List<Segment> getProgressSegments() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public ProgressStyle setProgress(int progress) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public ProgressStyle setProgressPoints(@NonNull List<Point> points) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public ProgressStyle setProgressSegments(@NonNull List<Segment> segments) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public ProgressStyle setProgressTrackerIcon(@Nullable androidx.core.graphics.drawable.IconCompat trackerIcon) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public ProgressStyle setStyledByProgress(boolean styledByProgress) { throw droptrack.lookalike.Absent.here(); }

        public static final class Point {
            public Point(int position) { throw droptrack.lookalike.Absent.here(); }

            public int getPosition() { throw droptrack.lookalike.Absent.here(); }

            @NonNull
            public Point setColor(int color) { throw droptrack.lookalike.Absent.here(); }
        }

        public static final class Segment {
            public Segment(int length) { throw droptrack.lookalike.Absent.here(); }

            public int getLength() { throw droptrack.lookalike.Absent.here(); }

            @NonNull
            public Segment setColor(int color) { throw droptrack.lookalike.Absent.here(); }
        }
    }
}
