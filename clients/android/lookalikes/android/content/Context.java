// Look-alike of android.content.Context (AOSP public android.txt 36.1): the members DropTrack's
// glue calls, with their real signatures and nullability. getSharedPreferences, MODE_PRIVATE,
// getPackageManager and startActivity were added from the Android API reference (API 1; their
// section of android.txt was not paged in). Simplified: the other ~200 members are absent, so code
// using them fails here although it would compile against android.jar.
package android.content;

import androidx.annotation.NonNull;

public abstract class Context {
    public Context() {}

    public static final int MODE_PRIVATE = 0;

    public abstract Context getApplicationContext();

    public abstract String getPackageName();

    public abstract android.content.res.Resources getResources();

    public abstract android.content.pm.PackageManager getPackageManager();

    public abstract SharedPreferences getSharedPreferences(String name, int mode);

    public abstract void startActivity(Intent intent);

    public abstract int checkSelfPermission(@NonNull String permission);

    public final <T> T getSystemService(@NonNull Class<T> serviceClass) { throw droptrack.lookalike.Absent.here(); }
}
