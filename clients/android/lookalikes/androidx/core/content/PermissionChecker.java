// Look-alike of androidx.core.content.PermissionChecker from androidx core 1.17's api.txt: the
// result constants DropTrack compares checkSelfPermission with.
package androidx.core.content;

public final class PermissionChecker {
    private PermissionChecker() {}

    public static final int PERMISSION_DENIED = -1;
    public static final int PERMISSION_DENIED_APP_OP = -2;
    public static final int PERMISSION_GRANTED = 0;
}
