// Look-alike of android.content.ComponentName, compile-only, written from the Android API reference
// (API 1; android.txt's section was not paged in): the constructor a JobInfo names its service with.
package android.content;

import androidx.annotation.NonNull;

public final class ComponentName {
    public ComponentName(@NonNull Context pkg, @NonNull Class<?> cls) { throw droptrack.lookalike.Absent.here(); }
}
