// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
package android.app;

import android.content.ContextWrapper;

public abstract class Service extends ContextWrapper {
    public Service() {
        super(null);
    }
}
