// Look-alike of android.os.Bundle (AOSP public android.txt 36.1), compile-only: the type and the
// EMPTY constant expo-modules-core's Module.sendEvent names. Simplified: no getters or putters
// (DropTrack sends events as Kotlin maps), it does not extend BaseBundle or implement Parcelable.
package android.os;

public final class Bundle {
    public Bundle() { throw droptrack.lookalike.Absent.here(); }

    public static final Bundle EMPTY = null;
}
