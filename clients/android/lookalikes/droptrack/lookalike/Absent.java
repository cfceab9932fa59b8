// Not an Android type: what every look-alike body throws. The look-alikes exist to compile
// against; nothing may call them at run time (the JVM tests run without them on the class path).
package droptrack.lookalike;

public final class Absent {
    private Absent() {}

    public static UnsupportedOperationException here() {
        return new UnsupportedOperationException("look-alike: compile-only, never run");
    }
}
