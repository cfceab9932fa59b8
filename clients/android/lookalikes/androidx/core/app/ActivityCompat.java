// Look-alike of androidx.core.app.ActivityCompat from androidx core 1.17's api.txt: the runtime
// permission request (`String![]` there: a Java array of platform-typed strings).
package androidx.core.app;

import androidx.annotation.NonNull;

public class ActivityCompat extends androidx.core.content.ContextCompat {
    protected ActivityCompat() {}

    public static void requestPermissions(@NonNull android.app.Activity activity, @NonNull String[] permissions, int requestCode) { throw droptrack.lookalike.Absent.here(); }

    public static boolean shouldShowRequestPermissionRationale(@NonNull android.app.Activity activity, @NonNull String permission) { throw droptrack.lookalike.Absent.here(); }
}
