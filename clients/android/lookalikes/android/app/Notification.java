// Look-alike of android.app.Notification (AOSP public android.txt 36.1; the levels from diffing 35,
// 36 and 36.1). Android 16 (36) brought ProgressStyle, setShortCriticalText and the promotion check;
// QPR1 (36.1) brought setRequestPromotedOngoing, which is absent from android.jar at compileSdk 36
// and throws NoSuchMethodError on a 36.0 device. DropTrack uses NotificationCompat, which core 1.17
// backports; these stay so that direct platform calls are checked (tools/api_guard.py).
// Simplified: Notification does not implement Parcelable; members DropTrack never names are absent.
package android.app;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import droptrack.lookalike.Since;
import java.util.List;

public class Notification {
    public Notification() {}

    @Since(36)
    public static final int FLAG_PROMOTED_ONGOING = 262144;
    @Since(value = 36, minor = 1)
    public static final String EXTRA_REQUEST_PROMOTED_ONGOING = "android.requestPromotedOngoing";

    @Since(36)
    @Nullable
    public String getShortCriticalText() { throw droptrack.lookalike.Absent.here(); }

    @Since(36)
    public boolean hasPromotableCharacteristics() { throw droptrack.lookalike.Absent.here(); }

    @Since(value = 36, minor = 1)
    public boolean isRequestPromotedOngoing() { throw droptrack.lookalike.Absent.here(); }

    public static class Builder {
        @Since(26)
        public Builder(android.content.Context context, String channelId) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Notification build() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setColor(int argb) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setContentText(CharSequence text) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setContentTitle(CharSequence title) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setOngoing(boolean ongoing) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setOnlyAlertOnce(boolean onlyAlertOnce) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setProgress(int max, int progress, boolean indeterminate) { throw droptrack.lookalike.Absent.here(); }

        @Since(value = 36, minor = 1)
        @NonNull
        public Builder setRequestPromotedOngoing(boolean requestPromotedOngoing) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        @NonNull
        public Builder setShortCriticalText(@Nullable String shortCriticalText) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setShowWhen(boolean show) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setSmallIcon(int icon) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setStyle(Style style) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setSubText(CharSequence text) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setWhen(long when) { throw droptrack.lookalike.Absent.here(); }
    }

    public abstract static class Style {
        /** Deprecated in android.txt; subclasses call it implicitly. */
        @Deprecated
        public Style() {}

        public Notification build() { throw droptrack.lookalike.Absent.here(); }

        public void setBuilder(Builder builder) { throw droptrack.lookalike.Absent.here(); }
    }

    @Since(36)
    public static class ProgressStyle extends Style {
        @Since(36)
        public ProgressStyle() {}

        @Since(36)
        @NonNull
        public ProgressStyle setProgress(int progress) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        @NonNull
        public ProgressStyle setProgressPoints(@NonNull List<Point> points) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        @NonNull
        public ProgressStyle setProgressSegments(@NonNull List<Segment> segments) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        @NonNull
        public ProgressStyle setProgressTrackerIcon(@Nullable android.graphics.drawable.Icon trackerIcon) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        @NonNull
        public ProgressStyle setStyledByProgress(boolean enabled) { throw droptrack.lookalike.Absent.here(); }

        @Since(36)
        public static final class Point {
            @Since(36)
            public Point(int position) { throw droptrack.lookalike.Absent.here(); }

            @Since(36)
            @NonNull
            public Point setColor(int color) { throw droptrack.lookalike.Absent.here(); }
        }

        @Since(36)
        public static final class Segment {
            @Since(36)
            public Segment(int length) { throw droptrack.lookalike.Absent.here(); }

            @Since(36)
            @NonNull
            public Segment setColor(int color) { throw droptrack.lookalike.Absent.here(); }
        }
    }
}
