// Look-alike of the Android SDK class, compile-only (see Context.java).
package android.content;

public class ContextWrapper extends Context {
    public ContextWrapper(Context base) {
        throw new UnsupportedOperationException("look-alike");
    }

    @Override
    public Context getApplicationContext() {
        throw new UnsupportedOperationException("look-alike");
    }

    @Override
    public android.content.pm.ApplicationInfo getApplicationInfo() {
        throw new UnsupportedOperationException("look-alike");
    }
}
