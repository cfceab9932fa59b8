// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
package android.graphics;

public class Color {
    public static int parseColor(String colorString) {
        throw new UnsupportedOperationException("look-alike");
    }
}
