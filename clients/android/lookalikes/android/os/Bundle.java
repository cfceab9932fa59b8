// Look-alike of android.os.Bundle (AOSP public android.txt 36.1), compile-only: the type and the
// EMPTY constant expo-modules-core's Module.sendEvent names, and getString for a manifest's meta-data.
// Simplified: no other getters, no putters (DropTrack sends events as Kotlin maps); getString is
// declared here rather than on BaseBundle, which it does not extend; not Parcelable.
package android.os;

public final class Bundle {
    public Bundle() { throw droptrack.lookalike.Absent.here(); }

    public static final Bundle EMPTY = null;

    /** The String value for key, or null when there is none or it is not a String. */
    @androidx.annotation.Nullable
    public String getString(@androidx.annotation.Nullable String key) { throw droptrack.lookalike.Absent.here(); }
}
