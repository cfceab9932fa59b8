// Not an Android or AndroidX type: DropTrack's own marker on its look-alikes. It records the API
// level a platform member first appears at, read by diffing AOSP's public android.txt files
// (msft-mirror-aosp/platform.prebuilts.sdk: 35, 36 and 36.1), so tools/api_guard.py can fail the
// build when code calls a member above the level it guards. No Since means: present at minSdk.
package droptrack.lookalike;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface Since {
    /** The major API level, e.g. 36. */
    int value();

    /** The minor API level (Android 16 QPR1 is 36.1), 0 for a major release. */
    int minor() default 0;
}
