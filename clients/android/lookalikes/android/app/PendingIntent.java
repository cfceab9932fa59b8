// Look-alike of android.app.PendingIntent, compile-only, written from the Android API reference
// (android.txt's section was not paged in): the two factories a card's intents use (API 1) and the
// flags they are made with. FLAG_IMMUTABLE is API 23, below DropTrack's minSdk 24; from Android 12
// every PendingIntent must say IMMUTABLE or MUTABLE. The values are the platform's.
package android.app;

import androidx.annotation.NonNull;

public final class PendingIntent {
    PendingIntent() {}

    public static final int FLAG_IMMUTABLE = 67108864; // 0x4000000
    public static final int FLAG_UPDATE_CURRENT = 134217728; // 0x8000000

    public static PendingIntent getActivity(android.content.Context context, int requestCode, @NonNull android.content.Intent intent, int flags) { throw droptrack.lookalike.Absent.here(); }

    public static PendingIntent getBroadcast(android.content.Context context, int requestCode, @NonNull android.content.Intent intent, int flags) { throw droptrack.lookalike.Absent.here(); }
}
