// Look-alike of androidx.annotation.RequiresApi: DropTrack's Kotlin marks functions that need an API
// level with it (lint's rule, which tools/api_guard.py applies here), and AndroidX members carry it
// where core's api.txt does. Simplified: RUNTIME retention (the real one is CLASS), no @IntRange.
package androidx.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface RequiresApi {
    int value() default 1;

    int api() default 1;
}
