// Look-alike of androidx.annotation.NonNull (androidx.annotation:annotation), which the api.txt files
// mark as "@NonNull" (platform) or as a Kotlin-style type (AndroidX). kotlinc reads it as a nullability
// annotation, as it reads the real one. Simplified: RUNTIME retention (the real one is CLASS) so
// tools/LookalikeInventory.java can list it; retention does not change what compiles.
package androidx.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.PARAMETER, ElementType.FIELD, ElementType.LOCAL_VARIABLE})
public @interface NonNull {
}
