// Look-alike of android.content.Intent, compile-only: a type Service.onBind names. Simplified: no
// members (DropTrack calls none; it builds no intents).
package android.content;

public class Intent {
    public Intent() {}
}
