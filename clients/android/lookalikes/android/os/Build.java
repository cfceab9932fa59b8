// Look-alike of the Android SDK class, compile-only (see android/content/Context.java).
// SDK_INT is not a compile-time constant on a real device either, so it is not one here.
package android.os;

public class Build {
    public static final String MANUFACTURER = System.getProperty("lookalike.manufacturer", "unknown");

    public static class VERSION {
        public static final int SDK_INT = Integer.getInteger("lookalike.sdk", 0);
        public static final String RELEASE = System.getProperty("lookalike.release", "unknown");
    }

    public static class VERSION_CODES {
        public static final int O = 26;
        public static final int BAKLAVA = 36;
    }
}
