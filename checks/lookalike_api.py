"""The look-alikes' public declarations, as the Swift compiler prints them, against their lists in
Tests/LookalikeAPI/ (one per framework), and, given Apple's interface files, against Apple's.

    python3 checks/lookalike_api.py                 check each look-alike against its list (the test command)
    python3 checks/lookalike_api.py --update        rewrite the lists after a deliberate change
    python3 checks/lookalike_api.py --real SDK      also compare every declaration with Apple's files
                                                    (SDK: an iPhoneOS*.sdk folder; the count is printed)

Each look-alike is compiled here with `swiftc -emit-module-interface`: the printer Apple's .swiftinterface
files come from, so both sides read alike. A declaration's line holds its context (the type or
extension it is in), its iOS availability (its own, or its context's), its isolation and the
attributes that change what a caller may write, and its signature without module prefixes.

A change to a look-alike's API fails the check until its list is updated, so every change shows in
review as a diff of Tests/LookalikeAPI/*.api.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTS = os.path.join(REPOSITORY, "Tests", "LookalikeAPI")
# Look-alike target, the framework it stands for, the look-alikes it imports (built first).
LOOKALIKES = [
    ("ActivityKitShim", "ActivityKit", []),
    ("SwiftUICoreShim", "SwiftUICore", []),
    ("SwiftUIShim", "SwiftUI", ["SwiftUICoreShim"]),
    ("WidgetKitShim", "WidgetKit", ["ActivityKitShim", "SwiftUICoreShim", "SwiftUIShim"]),
    ("ExpoModulesCoreShim", "ExpoModulesCore", []),
    ("AppIntentsShim", "AppIntents", ["ActivityKitShim"]),
    ("AppIntentsSwiftUIShim", "_AppIntents_SwiftUI", ["AppIntentsShim", "SwiftUICoreShim", "SwiftUIShim"]),
]
# Where each framework's interface lives in an iPhoneOS SDK; a look-alike may also carry a type another
# framework declares (Foundation's LocalizedStringResource, which Linux's Foundation lacks).
APPLE_INTERFACES = {
    name: [f"System/Library/Frameworks/{name}.framework/Modules/{name}.swiftmodule/arm64e-apple-ios.swiftinterface"]
    for name in ["ActivityKit", "SwiftUICore", "SwiftUI", "WidgetKit", "AppIntents", "_AppIntents_SwiftUI"]
}
ALSO_FROM = {"ActivityKit": ["Foundation"]}
MODULES = (
    "Swift|_Concurrency|Foundation|FoundationEssentials|CoreFoundation|CoreGraphics|SwiftUICore|SwiftUI|WidgetKit|"
    "ActivityKit|AppIntents|_AppIntents_SwiftUI|ObjectiveC|Combine|ExpoModulesCore|Synchronization|Dispatch"
)
SHIM_NAMES = {shim: framework for shim, framework, _ in LOOKALIKES}
TYPE_KEYWORDS = ("struct", "class", "enum", "protocol", "extension", "actor")
DECL_KEYWORDS = TYPE_KEYWORDS + (
    "func", "init", "var", "let", "case", "typealias", "associatedtype", "subscript", "deinit", "macro",
)
# Attributes that change nothing a caller can write, or that the two printers spell differently.
DROPPED_ATTRIBUTES = re.compile(
    r"@(inlinable|_alwaysEmitIntoClient|usableFromInline|_transparent|frozen|_hasMissingDesignatedInitializers|"
    r"_originallyDefinedIn\([^)]*\)|_semantics\([^)]*\)|_effects\([^)]*\)|backDeployed\([^)]*\)|"
    r"_typeEraser\([^)]*\)|objc(\([^)]*\))?|_spi\([^)]*\)|_disallowFeatureSuppression\([^)]*\)|"
    r"_documentation\([^)]*\)|_silgen_name\([^)]*\)|_unsafeInheritExecutor)\s*"
)


def compile_interfaces(folder):
    """Prints each look-alike's interface into `folder`; answers {framework: interface text}."""
    flags = ["-swift-version", "6", "-package-name", "droptrack", "-enable-library-evolution", "-parse-as-library",
             "-enable-upcoming-feature", "ExistentialAny", "-enable-upcoming-feature", "MemberImportVisibility",
             "-I", folder, "-suppress-warnings"]
    texts = {}
    for shim, framework, _ in LOOKALIKES:
        sources_dir = os.path.join(REPOSITORY, "Sources", shim)
        sources = sorted(os.path.join(sources_dir, f) for f in os.listdir(sources_dir) if f.endswith(".swift"))
        interface = os.path.join(folder, shim + ".swiftinterface")
        subprocess.run(
            ["swiftc", *flags, "-module-name", shim, "-emit-module", "-emit-module-path",
             os.path.join(folder, shim + ".swiftmodule"), "-emit-module-interface-path", interface, *sources],
            check=True)
        with open(interface, encoding="utf-8") as file:
            texts[framework] = file.read()
    return texts


def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line)


def normalize(text):
    for shim, framework in SHIM_NAMES.items():
        text = re.sub(rf"\b{shim}\b", framework, text)
    text = re.sub(rf"\b(?:{MODULES})\.(?=[A-Za-z_])", "", text)
    # What a Swift 6 look-alike must write on a stored `static let` or `var` of a non-Sendable type that
    # Apple's Swift 5 modules need not; callers cannot tell the two apart.
    text = re.sub(r"nonisolated\(unsafe\) (?=public static (?:let|var) )", "", text)
    # An opaque type's mangled name holds its module's name.
    text = re.sub(r'@_opaqueReturnTypeOf\("[^"]*", \d+\) __', "@_opaqueReturnTypeOf", text)
    # An operator's parameter names are not part of its API (synthesized ones are `a` and `b`).
    text = re.sub(r"(func [^\sA-Za-z_(]+ ?)\((\w+): (.+?), (\w+): ", r"\1(_: \3, _: ", text)
    # A main-actor function type is Sendable in Swift 6 (SE-0434), and a Swift 6 look-alike's printer says so.
    text = text.replace("@MainActor @Sendable (", "@MainActor (")
    text = text.replace("@_functionBuilder", "@resultBuilder").replace("@_Concurrency.MainActor", "@MainActor")
    return re.sub(r"\s+", " ", text).strip()


def ios_availability(attribute):
    """The iOS part of an `@available(...)`: '16.2', 'unavailable' or None."""
    version = _ios_availability(attribute)
    return version + ".0" if version and re.fullmatch(r"\d+", version) else version


def _ios_availability(attribute):
    body = attribute[len("@available("):-1]
    parts = [part.strip() for part in body.split(",")]
    if parts[0] == "*":
        return "unavailable" if "unavailable" in parts else None
    if parts[0].startswith("iOS "):
        return parts[0][4:]
    if parts[0] == "iOS":
        for part in parts[1:]:
            if part == "unavailable":
                return "unavailable"
            if part.startswith("introduced:"):
                return part.split(":", 1)[1].strip()
    for part in parts:
        if part.startswith("iOS "):
            return part[4:]
    return None


def split_attributes(line):
    """Leading attributes (with their parentheses) and the rest of a line."""
    attributes = []
    rest = line.strip()
    while rest.startswith("@"):
        match = re.match(r"@[A-Za-z_.]+", rest)
        end = match.end()
        if end < len(rest) and rest[end] == "(":
            depth = 0
            for index in range(end, len(rest)):
                depth += {"(": 1, ")": -1}.get(rest[index], 0)
                if depth == 0:
                    end = index + 1
                    break
        attributes.append(rest[:end])
        rest = rest[end:].strip()
    return attributes, rest


def keyword_of(rest):
    words = re.sub(r"nonisolated\(unsafe\)", "", rest)
    words = re.sub(r"\b(public|open|package|final|static|class(?= (?:func|var|subscript))|mutating|nonmutating|"
                   r"nonisolated|override|required|convenience|indirect|optional|lazy|weak|"
                   r"dynamic|consuming|borrowing|__consuming|isolated)\b", "", words).strip()
    match = re.match(r"[A-Za-z_]+", words)
    return match.group(0) if match and match.group(0) in DECL_KEYWORDS else None


def type_name(rest, keyword):
    after = rest.split(keyword, 1)[1].strip()
    return normalize(re.match(r"[A-Za-z_][A-Za-z0-9_.]*", after).group(0))


def declarations(text):
    """Each declaration as (context, availability, markers, signature), in the order printed."""
    found = []
    # Each open scope: (context name, availability, markers, brace depth at which it closes, is a type).
    scopes = []
    pending = []
    depth = 0
    skip_until = None  # brace depth below which a body being skipped ends
    accessor_target = None
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("//") or line.startswith("#"):
            continue
        clean = strip_strings(line)
        opens, closes = clean.count("{"), clean.count("}")
        if skip_until is not None:
            if accessor_target is not None:
                accessor_target.extend(word for word in re.findall(r"\b(get|set|_modify|_read)\b", clean))
            depth += opens - closes
            if depth <= skip_until:
                if accessor_target is not None:
                    context, availability, markers, signature = found[-1]
                    found[-1] = (context, availability, markers, signature + " { " + " ".join(accessor_target) + " }")
                skip_until, accessor_target = None, None
            continue
        if line == "}":
            depth -= 1
            while scopes and scopes[-1][3] > depth:
                scopes.pop()
            continue
        attributes, rest = split_attributes(line)
        attributes = pending + attributes
        if not rest:
            pending = attributes
            continue
        pending = []
        keyword = keyword_of(rest)
        if keyword is None or keyword == "deinit":
            depth += opens - closes
            if depth > (scopes[-1][3] if scopes else 0) and opens > closes:
                skip_until = depth - (opens - closes)
            continue
        availability, markers = None, []
        for attribute in attributes:
            if attribute.startswith("@available("):
                availability = ios_availability(attribute) or availability
                if re.match(r"@available\((iOS|\*), .*deprecated", attribute):
                    markers.append("deprecated")
            elif not DROPPED_ATTRIBUTES.fullmatch(attribute + " "):
                markers.append(normalize(attribute))
        context = ".".join(scope[0] for scope in scopes)
        inherited = next((scope[1] for scope in reversed(scopes) if scope[1]), None)
        signature = normalize(DROPPED_ATTRIBUTES.sub("", re.sub(r"\s*\{\s*\}?$", "", rest).strip()))
        if keyword in ("func", "init") and "{" in signature:
            signature = signature[: signature.index("{")].strip()  # a body printed on the same line
        if keyword in TYPE_KEYWORDS:
            name = type_name(rest, keyword)
            where = " where " + signature.split(" where ", 1)[1] if keyword == "extension" and " where " in signature else ""
            found.append((context, availability or inherited, " ".join(markers), signature))
            if opens > closes:
                depth += 1
                scope_name = name.split(".")[-1] + where if keyword == "extension" else name
                if keyword == "extension" and context == "":
                    scope_name = name + where
                scopes.append((scope_name, availability or inherited, markers, depth))
            continue
        found.append((context, availability or inherited, " ".join(markers), signature))
        if opens > closes:
            depth += opens - closes
            skip_until = depth - (opens - closes)
            accessor_target = [] if keyword in ("var", "let", "subscript") and "(" not in rest.split("{")[-1] else None
    return found


# Protocols whose conformers are main-actor isolated where they conform in their declaration. Apple's
# printer leaves that inferred isolation out and newer ones print it; both are made to show it.
MAIN_ACTOR_PROTOCOLS = {"View", "Widget", "WidgetConfiguration", "WidgetBundle"}
UNISOLATED_KINDS = ("typealias", "case", "associatedtype", "deinit")


def infer_isolation(found):
    isolated = set()
    for context, _, markers, signature in found:
        keyword = keyword_of(signature)
        header = signature.split(" where ")[0]
        if keyword in ("struct", "class", "enum") and " : " in header:
            conformances = re.split(r",\s*", header.split(" : ", 1)[1])
            if MAIN_ACTOR_PROTOCOLS & set(conformances):
                isolated.add(((context + ".") if context else "") + type_name(signature, keyword))
    result = []
    for context, availability, markers, signature in found:
        keyword = keyword_of(signature)
        owner = context.split(" where ")[0]
        declares = keyword in ("struct", "class", "enum")
        name = ((context + ".") if context else "") + type_name(signature, keyword) if declares else ""
        inside = owner in isolated and keyword not in UNISOLATED_KINDS and keyword not in TYPE_KEYWORDS
        if (name in isolated or inside) and "MainActor" not in markers and "nonisolated" not in signature:
            markers = (markers + " @MainActor @preconcurrency").strip()
        result.append((context, availability, " ".join(sorted(set(markers.split()))), signature))
    return result


def unread_lines(text):
    """The lines of an interface the parser did not take for a declaration, an attribute or an import."""
    unread = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith(("//", "#", "@", "}", "import ")) or line in ("get", "set"):
            continue
        _, rest = split_attributes(line)
        if rest and keyword_of(rest) is None and not rest.startswith("import "):
            unread.append(rest)
    return unread


def listing(text):
    lines = set()
    for context, availability, markers, signature in infer_isolation(declarations(text)):
        if re.search(r"\b(deinit|__Async\w+_Failure)\b", signature) or re.search(r" : BitwiseCopyable$", signature):
            continue  # printed for every class, sequence or frozen type alike; says nothing about the API
        if signature.startswith("extension ") and not re.match(r"extension [\w.]+ : ", signature):
            continue  # an extension without a conformance is only a place; its members are listed
        lines.add(" | ".join([context or "-", "iOS " + (availability or "any"), markers or "-", signature]))
    return sorted(lines)


def key_of(line):
    """A declaration's context, kind and name with its argument labels, for finding its twin."""
    context, _, _, signature = line.split(" | ", 3)
    keyword = keyword_of(signature) or ""
    tail = signature.split(keyword, 1)[1] if keyword else signature
    name = re.match(r"\s*(`?[A-Za-z_][A-Za-z0-9_]*`?|[^\s(<]+)?", tail).group(1) or ""
    labels = ""
    if keyword in ("func", "init", "subscript"):
        params = re.search(r"\((.*)\)", tail)
        labels = ":".join(re.findall(r"(?:^|,\s*)([A-Za-z_`]+)\s*(?:[A-Za-z_]+\s*)?:", params.group(1))) if params else ""
    return (context.split(" where ")[0], keyword, name, labels)


def compare_with_real(framework, lines, sdk):
    real = set()
    for name in [framework] + ALSO_FROM.get(framework, []):
        for relative in APPLE_INTERFACES.get(name, [f"System/Library/Frameworks/{name}.framework/Modules/"
                                                       f"{name}.swiftmodule/arm64e-apple-ios.swiftinterface"]):
            with open(os.path.join(sdk, relative), encoding="utf-8") as file:
                real.update(listing(file.read()))
    by_key = {}
    for line in real:
        by_key.setdefault(key_of(line), []).append(line)
    same, differ, absent = [], [], []
    for line in lines:
        if line in real:
            same.append(line)
        elif key_of(line) in by_key:
            differ.append((line, by_key[key_of(line)]))
        else:
            absent.append(line)
    return same, differ, absent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite Tests/LookalikeAPI/*.api")
    parser.add_argument("--real", metavar="SDK", help="an iPhoneOS*.sdk folder to compare the Apple look-alikes with")
    arguments = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        texts = compile_interfaces(folder)
    total_same = total = 0
    for _, framework, _ in LOOKALIKES:
        unread = unread_lines(texts[framework])
        if unread:
            failed = True
            print(f"FAIL {framework}: lines of the printed interface this check cannot read: {unread}")
        lines = listing(texts[framework])
        path = os.path.join(LISTS, framework + ".api")
        if arguments.update:
            os.makedirs(LISTS, exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write("\n".join(lines) + "\n")
        with open(path, encoding="utf-8") as file:
            listed = file.read().splitlines()
        if listed == lines:
            print(f"PASS {framework}: the look-alike offers the {len(lines)} declarations of {os.path.relpath(path, REPOSITORY)}")
        else:
            failed = True
            print(f"FAIL {framework}: the look-alike's API differs from {os.path.relpath(path, REPOSITORY)}; "
                  "if the change is meant, run checks/lookalike_api.py --update and review the diff")
            sys.stdout.writelines(difflib.unified_diff(
                [line + "\n" for line in listed], [line + "\n" for line in lines], "listed", "look-alike"))
        if arguments.real and framework in APPLE_INTERFACES:
            same, differ, absent = compare_with_real(framework, lines, arguments.real)
            total_same, total = total_same + len(same), total + len(lines)
            print(f"  {framework} against Apple's: {len(same)} of {len(lines)} declarations match")
            for line, twins in differ:
                print(f"  DIFFERS {line}\n          Apple: " + "\n          Apple: ".join(sorted(twins)))
            for line in absent:
                print(f"  NOT IN APPLE'S {line}")
    if arguments.real:
        print(f"Apple look-alikes: {total_same} of {total} declarations match Apple's iOS interfaces")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
