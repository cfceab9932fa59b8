// Look-alike of android.app.Activity, compile-only: the type ActivityCompat.requestPermissions takes.
// Simplified: the real class extends ContextThemeWrapper and has hundreds of members; none is called.
package android.app;

public class Activity extends android.content.ContextWrapper {
    public Activity() { super(null); }
}
