// Look-alike of the Android SDK class, compile-only: just the members DropTrack's glue uses,
// with the real signatures. Never shipped; a real build compiles against android.jar.
package android.content;

public abstract class Context {
    public static final String NOTIFICATION_SERVICE = "notification";

    public final <T> T getSystemService(Class<T> serviceClass) {
        throw new UnsupportedOperationException("look-alike");
    }

    public abstract Context getApplicationContext();

    public abstract android.content.pm.ApplicationInfo getApplicationInfo();
}
