// Look-alike of android.os.IBinder, compile-only: a type FirebaseMessagingService.onBind names.
// Simplified: no members (DropTrack calls none).
package android.os;

public interface IBinder {
}
