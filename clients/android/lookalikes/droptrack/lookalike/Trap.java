// Not an Android or AndroidX type: DropTrack's own marker for a member that is declared at its API
// level but missing on some devices of that level (docs/reference/traps.md names the trap). tools/api_guard.py
// requires each call of such a member to sit inside try/catch or runCatching.
package droptrack.lookalike;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface Trap {
    /** The trap's id in docs/reference/traps.md, e.g. "DT-116". */
    String value();
}
