// Look-alike of android.content.pm.PackageItemInfo (Android API reference, API 1), compile-only: the
// meta-data of a manifest item. Simplified: no names, icons or labels.
package android.content.pm;

import androidx.annotation.Nullable;

public class PackageItemInfo {
    public PackageItemInfo() { throw droptrack.lookalike.Absent.here(); }

    /** The item's <meta-data> entries, when PackageManager.GET_META_DATA was asked for; else null. */
    @Nullable
    public android.os.Bundle metaData;
}
