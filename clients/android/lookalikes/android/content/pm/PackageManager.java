// Look-alike of android.content.pm.PackageManager, compile-only, written from the Android API
// reference (API 3; android.txt's section was not paged in): the app's own launch intent, which a
// card opens instead of naming an Activity class (Expo's prebuild regenerates MainActivity).
package android.content.pm;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

public abstract class PackageManager {
    public PackageManager() {}

    /** An explicit intent for the package's launcher activity; null when it has none. */
    @Nullable
    public abstract android.content.Intent getLaunchIntentForPackage(@NonNull String packageName);
}
