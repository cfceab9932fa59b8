// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
// ProgressStyle, setShortCriticalText and setRequestPromotedOngoing are API 36 (Android 16).
package android.app;

import android.content.Context;
import android.graphics.drawable.Icon;
import java.util.List;

public class Notification {
    public abstract static class Style {
    }

    public static class Builder {
        public Builder(Context context, String channelId) {
            throw new UnsupportedOperationException("look-alike");
        }

        public Builder setSmallIcon(int icon) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setContentTitle(CharSequence title) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setContentText(CharSequence text) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setSubText(CharSequence text) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setOngoing(boolean ongoing) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setOnlyAlertOnce(boolean onlyAlertOnce) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setColor(int argb) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setWhen(long when) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setShowWhen(boolean show) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setProgress(int max, int progress, boolean indeterminate) { throw new UnsupportedOperationException("look-alike"); }
        public Builder setStyle(Style style) { throw new UnsupportedOperationException("look-alike"); }
        /** API 36. */
        public Builder setShortCriticalText(String shortCriticalText) { throw new UnsupportedOperationException("look-alike"); }
        /** API 36. */
        public Builder setRequestPromotedOngoing(boolean requestPromotedOngoing) { throw new UnsupportedOperationException("look-alike"); }
        public Notification build() { throw new UnsupportedOperationException("look-alike"); }
    }

    /** API 36. */
    public static class ProgressStyle extends Style {
        public ProgressStyle() {
            throw new UnsupportedOperationException("look-alike");
        }

        public ProgressStyle setStyledByProgress(boolean enabled) { throw new UnsupportedOperationException("look-alike"); }
        public ProgressStyle setProgress(int progress) { throw new UnsupportedOperationException("look-alike"); }
        public ProgressStyle setProgressSegments(List<Segment> progressSegments) { throw new UnsupportedOperationException("look-alike"); }
        public ProgressStyle setProgressPoints(List<Point> points) { throw new UnsupportedOperationException("look-alike"); }
        public ProgressStyle setProgressTrackerIcon(Icon trackerIcon) { throw new UnsupportedOperationException("look-alike"); }

        public static final class Segment {
            public Segment(int length) { throw new UnsupportedOperationException("look-alike"); }
            public Segment setColor(int color) { throw new UnsupportedOperationException("look-alike"); }
        }

        public static final class Point {
            public Point(int position) { throw new UnsupportedOperationException("look-alike"); }
            public Point setColor(int color) { throw new UnsupportedOperationException("look-alike"); }
        }
    }
}
