// Look-alike of android.content.res.Resources (AOSP public android.txt 36.1): the lookups by name
// DropTrack uses to find a status-bar icon the app ships (Expo's "notification_icon"), which it
// cannot know by R id, and getResourceEntryName (API 1, from the Android API reference), which
// turns the app's R ids into names that stay valid in the next build. Android marks getIdentifier
// @Discouraged, not deprecated.
package android.content.res;

public class Resources {
    Resources() {}

    /** 0 when there is no such resource. */
    public static final int ID_NULL = 0;

    public int getIdentifier(String name, String defType, String defPackage) { throw droptrack.lookalike.Absent.here(); }

    /** Throws Resources.NotFoundException for an id that is no resource. */
    public String getResourceEntryName(int resid) { throw droptrack.lookalike.Absent.here(); }

    public static class NotFoundException extends RuntimeException {
        public NotFoundException() {}
    }
}
