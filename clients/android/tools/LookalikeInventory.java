// Lists every declaration the compiled look-alikes offer, one line each, so a change to a
// look-alike shows in review as a change to the committed list (test.sh fails until the list is
// regenerated). Also writes the API levels (droptrack.lookalike.Since, androidx RequiresApi) and
// traps of members as a table that tools/api_guard.py reads.
//   java LookalikeInventory <classes dir> <declarations out> <levels out>   (class path: the
//   look-alikes and, for Kotlin look-alikes, the Kotlin standard library)
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public final class LookalikeInventory {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LookalikeInventory <classes dir> <declarations out> <levels out>");
            System.exit(2);
        }
        Path root = Paths.get(args[0]);
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.filter(p -> p.toString().endsWith(".class"))
                .map(p -> root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", ""))
                .filter(n -> !n.startsWith("droptrack.lookalike."))
                .sorted()
                .collect(Collectors.toList());
        }
        List<String> declarations = new ArrayList<>();
        List<String> levels = new ArrayList<>();
        List<String> parents = new ArrayList<>();
        ClassLoader loader = LookalikeInventory.class.getClassLoader();
        for (String name : names) {
            Class<?> type = Class.forName(name, false, loader);
            if (type.isSynthetic() || type.isAnonymousClass() || !isVisible(type.getModifiers())) continue;
            declarations.add(describeClass(type));
            Class<?> parent = type.getSuperclass();
            if (parent != null && parent != Object.class) {
                parents.add(name.replace('.', '/') + "\t<super>\t" + parent.getName().replace('.', '/') + "\t0\t0\t-\t-");
            }
            List<String> members = new ArrayList<>();
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                if (visible(constructor)) members.add("  ctor " + describe(constructor, type.getSimpleName()));
                level(type, constructor, "<init>", descriptor(constructor.getParameterTypes(), void.class), levels);
            }
            for (Method method : type.getDeclaredMethods()) {
                if (visible(method)) members.add("  method " + describe(method, method.getName()));
                level(type, method, method.getName(), descriptor(method.getParameterTypes(), method.getReturnType()), levels);
            }
            for (Field field : type.getDeclaredFields()) {
                if (visible(field)) members.add("  field " + annotations(field) + modifiers(field.getModifiers())
                    + typeName(field.getGenericType()) + " " + field.getName());
                level(type, field, field.getName(), descriptor(field.getType()), levels);
            }
            members.sort(null);
            declarations.addAll(members);
        }
        write(Paths.get(args[1]), declarations);
        levels.sort(null);
        parents.sort(null);
        levels.addAll(parents);
        levels.add(0, "# owner\tname\tdescriptor\tmajor\tminor\ttrap\tconstant");
        write(Paths.get(args[2]), levels);
    }

    private static void write(Path path, List<String> lines) throws IOException {
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(path))) {
            for (String line : lines) out.println(line);
        }
    }

    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static boolean visible(Member member) {
        return isVisible(member.getModifiers()) && !member.isSynthetic()
            && !(member instanceof Method && ((Method) member).isBridge());
    }

    /** One table row for a member with an API level or a trap; a class's level applies to its members. */
    private static void level(Class<?> owner, Member member, String name, String descriptor, List<String> rows) {
        int major = 0;
        int minor = 0;
        for (AnnotatedElement element : new AnnotatedElement[] {owner, (AnnotatedElement) member}) {
            for (Annotation annotation : element.getAnnotations()) {
                int[] level = levelOf(annotation);
                if (level != null && (level[0] > major || (level[0] == major && level[1] > minor))) {
                    major = level[0];
                    minor = level[1];
                }
            }
        }
        String trap = "";
        for (Annotation annotation : ((AnnotatedElement) member).getAnnotations()) {
            if (annotation.annotationType().getName().equals("droptrack.lookalike.Trap")) trap = value(annotation, "value").toString();
        }
        if (major == 0 && trap.isEmpty()) return;
        boolean constant = member instanceof Field && Modifier.isStatic(member.getModifiers())
            && Modifier.isFinal(member.getModifiers()) && isConstantType(((Field) member).getType());
        rows.add(owner.getName().replace('.', '/') + "\t" + name + "\t" + descriptor + "\t" + major + "\t" + minor
            + "\t" + (trap.isEmpty() ? "-" : trap) + "\t" + (constant ? "constant" : "-"));
    }

    private static boolean isConstantType(Class<?> type) {
        return type.isPrimitive() || type == String.class;
    }

    private static int[] levelOf(Annotation annotation) {
        String name = annotation.annotationType().getName();
        if (name.equals("droptrack.lookalike.Since")) {
            return new int[] {(Integer) value(annotation, "value"), (Integer) value(annotation, "minor")};
        }
        if (name.equals("androidx.annotation.RequiresApi")) {
            int api = Math.max((Integer) value(annotation, "value"), (Integer) value(annotation, "api"));
            return new int[] {api, 0};
        }
        return null;
    }

    private static Object value(Annotation annotation, String element) {
        try {
            return annotation.annotationType().getMethod(element).invoke(annotation);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String describeClass(Class<?> type) {
        String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface" : type.isEnum() ? "enum" : "class";
        int modifiers = type.getModifiers();
        if (type.isInterface()) modifiers &= ~(Modifier.ABSTRACT | Modifier.INTERFACE);
        StringBuilder line = new StringBuilder(annotations(type) + modifiers(modifiers) + kind + " " + type.getName().replace('$', '.'));
        Type parent = type.getGenericSuperclass();
        if (parent != null && parent != Object.class && !type.isEnum()) line.append(" extends ").append(typeName(parent));
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0 && !type.isAnnotation()) {
            line.append(type.isInterface() ? " extends " : " implements ");
            List<String> named = new ArrayList<>();
            for (Type each : interfaces) named.add(typeName(each));
            line.append(String.join(", ", named));
        }
        return line.toString();
    }

    private static String describe(Executable executable, String name) {
        StringBuilder line = new StringBuilder(annotations(executable)).append(modifiers(executable.getModifiers()));
        if (executable.getTypeParameters().length > 0) {
            List<String> parameters = new ArrayList<>();
            for (Type each : executable.getTypeParameters()) parameters.add(typeName(each));
            line.append('<').append(String.join(", ", parameters)).append("> ");
        }
        if (executable instanceof Method) line.append(typeName(((Method) executable).getGenericReturnType())).append(' ');
        line.append(name).append('(');
        Type[] types = executable.getGenericParameterTypes();
        Annotation[][] parameterAnnotations = executable.getParameterAnnotations();
        int offset = parameterAnnotations.length - types.length;
        for (int i = 0; i < types.length; i++) {
            if (i > 0) line.append(", ");
            if (i + offset >= 0) for (Annotation each : parameterAnnotations[i + offset]) line.append('@').append(each.annotationType().getSimpleName()).append(' ');
            line.append(typeName(types[i]));
        }
        return line.append(')').toString();
    }

    private static String annotations(AnnotatedElement element) {
        StringBuilder text = new StringBuilder();
        for (Annotation annotation : element.getAnnotations()) {
            String name = annotation.annotationType().getName();
            if (name.equals("droptrack.lookalike.Since")) {
                int minor = (Integer) value(annotation, "minor");
                text.append("@Since(").append(value(annotation, "value")).append(minor == 0 ? "" : "." + minor).append(") ");
            } else if (name.equals("droptrack.lookalike.Trap")) {
                text.append("@Trap(").append(value(annotation, "value")).append(") ");
            } else if (name.equals("androidx.annotation.RequiresApi")) {
                int[] level = levelOf(annotation);
                text.append("@RequiresApi(").append(level[0]).append(") ");
            } else if (!name.startsWith("kotlin.")) {
                text.append('@').append(annotation.annotationType().getSimpleName()).append(' ');
            }
        }
        return text.toString();
    }

    private static String modifiers(int modifiers) {
        String text = Modifier.toString(modifiers & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
            | Modifier.FINAL | Modifier.ABSTRACT));
        return text.isEmpty() ? "" : text + " ";
    }

    private static String typeName(Type type) {
        return type.getTypeName().replace("java.lang.", "").replace('$', '.');
    }

    private static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder text = new StringBuilder("(");
        for (Class<?> each : parameters) text.append(descriptor(each));
        return text.append(')').append(descriptor(result)).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) return "[" + descriptor(type.getComponentType());
        if (type == void.class) return "V";
        if (type == boolean.class) return "Z";
        if (type == byte.class) return "B";
        if (type == char.class) return "C";
        if (type == short.class) return "S";
        if (type == int.class) return "I";
        if (type == long.class) return "J";
        if (type == float.class) return "F";
        if (type == double.class) return "D";
        return "L" + type.getName().replace('.', '/') + ";";
    }
}
