// Look-alike of androidx.core.graphics.drawable.IconCompat from androidx core 1.17's api.txt.
// Simplified: it does not implement VersionedParcelable; only the factory DropTrack calls is here.
package androidx.core.graphics.drawable;

import androidx.annotation.NonNull;

public class IconCompat {
    IconCompat() {}

    @NonNull
    public static IconCompat createWithResource(@NonNull android.content.Context context, int resId) { throw droptrack.lookalike.Absent.here(); }
}
