// Look-alike of android.content.pm.PackageManager, compile-only, written from the Android API
// reference (API 3; android.txt's section was not paged in): the app's own launch intent, which a
// card opens instead of naming an Activity class (Expo's prebuild regenerates MainActivity), and its
// ApplicationInfo with the manifest's meta-data (the brand colour). Simplified: the int-flags
// getApplicationInfo only (API 33's ApplicationInfoFlags overload is left out); NameNotFoundException
// extends Exception rather than AndroidException.
package android.content.pm;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

public abstract class PackageManager {
    public PackageManager() {}

    /** An explicit intent for the package's launcher activity; null when it has none. */
    @Nullable
    public abstract android.content.Intent getLaunchIntentForPackage(@NonNull String packageName);

    /** Flag for getApplicationInfo: include the manifest's meta-data in ApplicationInfo.metaData. */
    public static final int GET_META_DATA = 128;

    /** The installed application's information, with meta-data when flags ask for it. */
    @NonNull
    public abstract ApplicationInfo getApplicationInfo(@NonNull String packageName, int flags) throws NameNotFoundException;

    /** Thrown when a package with the given name is not installed. */
    public static class NameNotFoundException extends Exception {
        public NameNotFoundException() {}
    }
}
