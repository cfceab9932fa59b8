// Look-alike of android.content.pm.ApplicationInfo (Android API reference, API 1), compile-only:
// the <application> tag's information, of which DropTrack reads only the inherited metaData.
// Simplified: none of its own fields.
package android.content.pm;

public class ApplicationInfo extends PackageItemInfo {
    public ApplicationInfo() { throw droptrack.lookalike.Absent.here(); }
}
