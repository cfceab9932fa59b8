// Look-alike of android.content.BroadcastReceiver, compile-only, written from the Android API
// reference (android.txt's section was not paged in): onReceive (API 1) and goAsync (API 11), which
// keeps the receiver's process alive until finish() while work runs off the main thread.
// Simplified: the ordered-broadcast result members are absent.
package android.content;

public abstract class BroadcastReceiver {
    public BroadcastReceiver() {}

    public abstract void onReceive(Context context, Intent intent);

    public final PendingResult goAsync() { throw droptrack.lookalike.Absent.here(); }

    public static class PendingResult {
        PendingResult() {}

        public final void finish() { throw droptrack.lookalike.Absent.here(); }
    }
}
