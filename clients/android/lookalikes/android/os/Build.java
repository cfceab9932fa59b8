// Look-alike of android.os.Build (AOSP public android.txt 36.1; levels from diffing 35, 36, 36.1).
// SDK_INT and SDK_INT_FULL have no value in android.txt (set at run time), so they are not
// compile-time constants here either: a guard on them is never folded away. The VERSION_CODES
// constants are, as in android.jar, inlined where used.
package android.os;

import droptrack.lookalike.Since;

public class Build {
    public Build() {}

    public static final String MANUFACTURER = System.getProperty("lookalike.manufacturer", "unknown");

    @Since(36)
    public static int getMajorSdkVersion(int sdkIntFull) { throw droptrack.lookalike.Absent.here(); }

    @Since(36)
    public static int getMinorSdkVersion(int sdkIntFull) { throw droptrack.lookalike.Absent.here(); }

    public static class VERSION {
        public VERSION() {}

        public static final String RELEASE = System.getProperty("lookalike.release", "unknown");
        public static final int SDK_INT = Integer.getInteger("lookalike.sdk", 0);
        /** major * 100000 + minor, e.g. 3600001 on Android 16 QPR1. */
        @Since(36)
        public static final int SDK_INT_FULL = Integer.getInteger("lookalike.sdkFull", 0);
    }

    public static class VERSION_CODES {
        public VERSION_CODES() {}

        public static final int N = 24;
        public static final int O = 26;
        public static final int TIRAMISU = 33;
        public static final int VANILLA_ICE_CREAM = 35;
        @Since(36)
        public static final int BAKLAVA = 36;
    }

    /** Android 16's full versions: SDK_INT_FULL values. The class is new in 36, BAKLAVA_1 in 36.1. */
    @Since(36)
    public static class VERSION_CODES_FULL {
        /** android.txt lists no constructor. */
        private VERSION_CODES_FULL() {}

        @Since(36)
        public static final int BAKLAVA = 3600000;
        @Since(value = 36, minor = 1)
        public static final int BAKLAVA_1 = 3600001;
    }
}
