// Look-alike of android.app.NotificationChannel (AOSP public android.txt 36.1), compile-only: the
// constructor NotificationManagerCompat's overload names. DropTrack builds NotificationChannelCompat.
// The level (26) comes from the Android API reference; 25's android.txt was not diffed.
package android.app;

public final class NotificationChannel {
    @droptrack.lookalike.Since(26)
    public NotificationChannel(String id, CharSequence name, int importance) { throw droptrack.lookalike.Absent.here(); }

    public void setDescription(String description) { throw droptrack.lookalike.Absent.here(); }
}
