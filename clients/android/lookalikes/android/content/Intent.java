// Look-alike of android.content.Intent, compile-only, written from the Android API reference
// (android.txt's section was not paged in): what a card's content and delete intents and the
// settings link use, all present since API 1 (setPackage since 4). The flag values are the
// platform's. Simplified: no Parcelable, and the other ~150 members are absent.
package android.content;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

public class Intent {
    public Intent() { throw droptrack.lookalike.Absent.here(); }

    public Intent(String action) { throw droptrack.lookalike.Absent.here(); }

    public Intent(Context packageContext, Class<?> cls) { throw droptrack.lookalike.Absent.here(); }

    public static final int FLAG_ACTIVITY_CLEAR_TOP = 67108864; // 0x4000000
    public static final int FLAG_ACTIVITY_NEW_TASK = 268435456; // 0x10000000
    public static final int FLAG_ACTIVITY_SINGLE_TOP = 536870912; // 0x20000000

    @NonNull
    public Intent addFlags(int flags) { throw droptrack.lookalike.Absent.here(); }

    @Nullable
    public String getAction() { throw droptrack.lookalike.Absent.here(); }

    @Nullable
    public String getStringExtra(String name) { throw droptrack.lookalike.Absent.here(); }

    @NonNull
    public Intent putExtra(String name, @Nullable String value) { throw droptrack.lookalike.Absent.here(); }

    @NonNull
    public Intent setAction(@Nullable String action) { throw droptrack.lookalike.Absent.here(); }

    @NonNull
    public Intent setPackage(@Nullable String packageName) { throw droptrack.lookalike.Absent.here(); }
}
