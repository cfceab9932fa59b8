// Look-alike of androidx.core.app.NotificationChannelCompat from androidx core 1.17's api.txt: a
// channel that is a no-op below API 26, so DropTrack needs no guard for its minSdk 24.
package androidx.core.app;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

public class NotificationChannelCompat {
    NotificationChannelCompat() {}

    @NonNull
    public String getId() { throw droptrack.lookalike.Absent.here(); }

    public int getImportance() { throw droptrack.lookalike.Absent.here(); }

    public static class Builder {
        public Builder(@NonNull String id, int importance) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public NotificationChannelCompat build() { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setDescription(@Nullable String description) { throw droptrack.lookalike.Absent.here(); }

        @NonNull
        public Builder setName(@Nullable CharSequence name) { throw droptrack.lookalike.Absent.here(); }
    }
}
