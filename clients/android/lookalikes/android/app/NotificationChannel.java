// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
package android.app;

public final class NotificationChannel {
    public NotificationChannel(String id, CharSequence name, int importance) {
        throw new UnsupportedOperationException("look-alike");
    }

    public void setDescription(String description) {
        throw new UnsupportedOperationException("look-alike");
    }
}
