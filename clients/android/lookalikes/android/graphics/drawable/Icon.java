// Look-alike of android.graphics.drawable.Icon, compile-only: a type Notification.ProgressStyle
// names. Simplified: no members (DropTrack uses androidx's IconCompat).
package android.graphics.drawable;

public final class Icon {
    private Icon() {}
}
