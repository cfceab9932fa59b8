// Look-alike of android.Manifest (AOSP public android.txt, API 36.1), compile-only: the one
// permission constant DropTrack's code names. POST_PROMOTED_NOTIFICATIONS is declared in the
// library's AndroidManifest.xml, not referenced from code. The level comes from the Android API
// reference (33); 32's android.txt was not diffed.
package android;

public final class Manifest {
    public Manifest() {}

    public static final class permission {
        public permission() {}

        @droptrack.lookalike.Since(33)
        public static final String POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS";
    }
}
