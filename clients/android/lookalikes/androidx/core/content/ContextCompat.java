// Look-alike of androidx.core.content.ContextCompat from androidx core 1.17's api.txt.
package androidx.core.content;

import androidx.annotation.NonNull;

public class ContextCompat {
    protected ContextCompat() {}

    public static int checkSelfPermission(@NonNull android.content.Context context, @NonNull String permission) { throw droptrack.lookalike.Absent.here(); }
}
