// Look-alike of android.util.Log (API 1), from the Android API reference: where a process in which
// the app's code never ran (FCM waking a killed app) writes what it did, for `adb logcat`.
// Simplified: only i and w.
package android.util;

public final class Log {
    Log() {}

    public static int i(String tag, String msg) { throw droptrack.lookalike.Absent.here(); }

    public static int w(String tag, String msg) { throw droptrack.lookalike.Absent.here(); }
}
