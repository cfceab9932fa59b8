// Look-alike of android.app.Service (AOSP public android.txt 36.1). Simplified: it does not
// implement ComponentCallbacks2, and the lifecycle members DropTrack does not override are absent.
package android.app;

import androidx.annotation.Nullable;

public abstract class Service extends android.content.ContextWrapper {
    public Service() { super(null); }

    @Nullable
    public abstract android.os.IBinder onBind(android.content.Intent intent);

    public void onCreate() {}

    public void onDestroy() {}
}
