// Look-alike of android.content.res.Resources (AOSP public android.txt 36.1): the lookup by name
// DropTrack uses to find a status-bar icon the app ships (Expo's "notification_icon"), which it
// cannot know by R id. Android marks getIdentifier @Discouraged, not deprecated.
package android.content.res;

public class Resources {
    Resources() {}

    /** 0 when there is no such resource. */
    public static final int ID_NULL = 0;

    public int getIdentifier(String name, String defType, String defPackage) { throw droptrack.lookalike.Absent.here(); }
}
