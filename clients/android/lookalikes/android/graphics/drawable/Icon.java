// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
package android.graphics.drawable;

import android.content.Context;

public final class Icon {
    private Icon() {}

    public static Icon createWithResource(Context context, int resId) {
        throw new UnsupportedOperationException("look-alike");
    }
}
