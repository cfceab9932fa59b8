// Look-alike of android.content.ActivityNotFoundException (API 1), from the Android API reference:
// what startActivity throws when no activity handles an intent (a settings screen a phone lacks).
package android.content;

public class ActivityNotFoundException extends RuntimeException {
    public ActivityNotFoundException() {}

    public ActivityNotFoundException(String name) { super(name); }
}
