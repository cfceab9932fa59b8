// Look-alike of the Android SDK class, compile-only (see android/content/Context.java). The real
// class inherits `icon` from PackageItemInfo; for a field read the two are the same at compile time.
package android.content.pm;

public class ApplicationInfo {
    public int icon;

    public ApplicationInfo() {}
}
