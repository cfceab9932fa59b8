#!/usr/bin/env python3
"""Lint's NewApi rule, for a build without Gradle: fails when compiled Kotlin calls an Android member
above the API level that the call is guarded for.

The compiled classes say exactly which member each call names (owner, name and descriptor, from
`javap -c -l`) and on which source line; the look-alikes say each member's API level
(tools/LookalikeInventory.java writes them from `@Since` and AndroidX's `@RequiresApi`). The source
line then has to sit where that level is known to hold:

- inside `if (Build.VERSION.SDK_INT >= N) { ... }` (or after `SDK_INT >= N &&` on the same line), or in
  the `else` of `if (SDK_INT < N)`, or after an early `if (SDK_INT < N) return ...` in its function;
- for a minor level (36.1): `SDK_INT_FULL >= Build.VERSION_CODES_FULL.BAKLAVA_1` (or 3600001), which
  `SDK_INT >= 36` does not imply;
- inside a function annotated `@RequiresApi(N)`, whose own callers are then checked the same way.

A member above compileSdk is refused wherever it is called (it is not in android.jar), and so is a
constant above compileSdk, found by name since the compiler inlines constants. A member marked
`@Trap` (declared at its level but missing on some devices of that level) must also be called
inside `try` or `runCatching`.

    api_guard.py --levels levels.tsv --classes DIR --sources DIR [--sources DIR] --gradle build.gradle.kts
    api_guard.py ... --compile-sdk 36.1 --min-sdk 24 --expect-fixtures   (self-test: `// expect:` lines)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from kotlin_guards import Level, Source

def level_text(level: Level) -> str:
    return f"{level[0]}.{level[1]}" if level[1] else str(level[0])


def parse_level(text: str) -> Level:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


@dataclass(frozen=True)
class Entry:
    level: Level
    trap: str | None
    constant: bool


def read_levels(path: str) -> tuple[dict[tuple[str, str, str], Entry], dict[str, str]]:
    members: dict[tuple[str, str, str], Entry] = {}
    parents: dict[str, str] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            owner, name, descriptor, major, minor, trap, constant = line.rstrip("\n").split("\t")
            if name == "<super>":
                parents[owner] = descriptor
                continue
            members[(owner, name, descriptor)] = Entry(
                (int(major), int(minor)), None if trap == "-" else trap, constant == "constant")
    return members, parents


def gradle_sdks(path: str) -> tuple[Level, Level]:
    text = open(path, encoding="utf-8").read()
    minor = re.search(r"release\((\d+)\)\s*\{\s*minorApiLevel\s*=\s*(\d+)", text)
    compile_sdk = re.search(r"\bcompileSdk\s*=\s*(\d+)", text)
    min_sdk = re.search(r"\bminSdk\s*=\s*(\d+)", text)
    if not (minor or compile_sdk) or not min_sdk:
        raise SystemExit(f"api_guard: {path} names no compileSdk or minSdk")
    compiled = (int(minor.group(1)), int(minor.group(2))) if minor else (int(compile_sdk.group(1)), 0)
    return compiled, (int(min_sdk.group(1)), 0)


# --- the compiled classes -----------------------------------------------------------------------

@dataclass
class Call:
    owner: str
    name: str
    descriptor: str
    caller: str  # internal name of the calling class
    source: str  # the file the class was compiled from
    line: int


REFERENCE = re.compile(r"^\s*(\d+): \w+.*//\s*(?:Method|InterfaceMethod|Field) (\S+)$")
LINE = re.compile(r"^\s*line (\d+): (\d+)$")
CLASS = re.compile(r"^(?:[\w ]+ )?(?:class|interface) ([\w.$]+)(?: extends ([\w.$]+))?")


def read_calls(classes_dir: str, package: str = "") -> tuple[list[Call], dict[str, str], set[str]]:
    names = []
    for directory, _, files in os.walk(classes_dir):
        for file in files:
            if file.endswith(".class"):
                name = os.path.relpath(os.path.join(directory, file), classes_dir)[:-6].replace(os.sep, ".")
                if name.startswith(package):
                    names.append(name)
    calls: list[Call] = []
    parents: dict[str, str] = {}
    own = {name.replace(".", "/") for name in names}
    for start in range(0, len(names), 200):
        output = subprocess.run(
            ["javap", "-c", "-l", "-p", "-cp", classes_dir, *sorted(names)[start:start + 200]],
            check=True, capture_output=True, text=True).stdout
        source = caller = ""
        pending: list[tuple[int, str]] = []
        lines: list[tuple[int, int]] = []

        def flush() -> None:
            for offset, target in pending:
                best = [number for number, pc in sorted(lines, key=lambda item: item[1]) if pc <= offset]
                line = best[-1] if best else 0
                owner_name, _, descriptor = target.partition(":")
                owner, _, name = owner_name.rpartition(".")
                calls.append(Call(owner or caller, name.strip('"'), descriptor, caller, source, line))
            pending.clear()
            lines.clear()

        for text in output.splitlines():
            if text.startswith("Compiled from"):
                flush()
                source = text.split('"')[1]
                continue
            header = CLASS.match(text) if not text.startswith(" ") else None
            if header:
                flush()
                caller = header.group(1).replace(".", "/")
                if header.group(2):
                    parents[caller] = header.group(2).replace(".", "/")
                continue
            reference = REFERENCE.match(text)
            if reference:
                pending.append((int(reference.group(1)), reference.group(2)))
                continue
            line = LINE.match(text)
            if line:
                lines.append((int(line.group(1)), int(line.group(2))))
                continue
            if text.startswith("  ") and not text.startswith("   ") and text.rstrip().endswith(";"):
                flush()  # the next method's header
        flush()
    return calls, parents, own


# --- the check ----------------------------------------------------------------------------------

def find_sources(roots: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for root in roots:
        for directory, _, files in os.walk(root):
            for file in files:
                if file.endswith(".kt"):
                    found.setdefault(file, []).append(os.path.join(directory, file))
    return found


def check(args: argparse.Namespace) -> list[tuple[str, int, str]]:
    members, look_alike_parents = read_levels(args.levels)
    compile_sdk, min_sdk = gradle_sdks(args.gradle) if args.gradle else (None, None)
    compile_sdk = parse_level(args.compile_sdk) if args.compile_sdk else compile_sdk
    min_sdk = parse_level(args.min_sdk) if args.min_sdk else min_sdk
    calls, own_parents, own_classes = read_calls(args.classes, args.package)
    parents = {**look_alike_parents, **own_parents}
    files = find_sources(args.sources)
    sources: dict[str, Source] = {}
    own_levels: dict[str, Level] = {}
    for paths in files.values():
        for path in paths:
            sources[path] = Source(path)
            own_levels.update(sources[path].requires_api)

    def source_of(call: Call) -> Source | None:
        package = call.caller.rpartition("/")[0].replace("/", ".")
        for path in files.get(call.source, []):
            if re.search(r"^package\s+" + re.escape(package) + r"\s*$", sources[path].raw, re.M):
                return sources[path]
        paths = files.get(call.source, [])
        return sources[paths[0]] if paths else None

    def entry(owner: str, name: str, descriptor: str) -> Entry | None:
        seen = set()
        while owner and owner not in seen:
            seen.add(owner)
            if (owner, name, descriptor) in members:
                return members[(owner, name, descriptor)]
            owner = parents.get(owner, "")
        return None

    problems: list[tuple[str, int, str]] = []
    checked = 0
    for call in calls:
        found = entry(call.owner, call.name, call.descriptor)
        own = call.owner in own_classes and call.name in own_levels
        if not found and not own:
            continue
        level = found.level if found else own_levels[call.name]
        trap = found.trap if found else None
        source = source_of(call)
        if source is None:
            problems.append((call.source, call.line, f"no source found for {call.caller}"))
            continue
        checked += 1
        owner_label = call.owner.replace("/", ".").replace("$", ".")
        label = f"the {owner_label} constructor" if call.name == "<init>" else f"{owner_label}.{call.name}"
        display = os.path.relpath(source.path)
        name = call.owner.rpartition("/")[2].rpartition("$")[2] if call.name == "<init>" else call.name
        position = source.position(call.line, name)
        if compile_sdk and level > compile_sdk:
            problems.append((display, call.line,
                             f"{label} is API {level_text(level)}, above compileSdk {level_text(compile_sdk)}: it is "
                             f"not in android.jar and throws NoSuchMethodError on older devices; use "
                             f"NotificationCompat (androidx core 1.17 backports it) or raise compileSdk and guard it"))
            continue
        if level > min_sdk:
            guarded = source.guard(position, call.line, name)
            if guarded < level:
                how = "unguarded" if guarded == (0, 0) else f"guarded only for API {level_text(guarded)}"
                fix = ("Build.VERSION.SDK_INT_FULL >= Build.VERSION_CODES_FULL.BAKLAVA_1" if level[1]
                       else f"Build.VERSION.SDK_INT >= {level[0]}")
                problems.append((display, call.line,
                                 f"{label} is API {level_text(level)} ({how}; minSdk {level_text(min_sdk)}): "
                                 f"call it under `if ({fix})` or in a @RequiresApi({level[0]}) function"))
                continue
        if trap and not source.trapped(position):
            problems.append((display, call.line,
                             f"{label} is missing on some devices of its API level ({trap}, docs/reference/traps.md): "
                             f"call it inside try/catch or runCatching and default to false"))
    constants = [(owner, name, e) for (owner, name, _), e in members.items()
                 if e.constant and compile_sdk and e.level > compile_sdk]
    for path, source in sources.items():
        for owner, name, e in constants:
            simple = owner.rpartition("/")[2].rpartition("$")[2]
            for match in re.finditer(r"\b" + re.escape(simple) + r"\s*\.\s*" + re.escape(name) + r"\b", source.code):
                line = source.code.count("\n", 0, match.start()) + 1
                problems.append((os.path.relpath(path), line,
                                 f"{simple}.{name} is API {level_text(e.level)}, above compileSdk "
                                 f"{level_text(compile_sdk)}: it does not compile against android.jar"))
    print(f"api_guard: {checked} calls of members with an API level or a trap checked "
          f"(compileSdk {level_text(compile_sdk) if compile_sdk else '?'}, minSdk {level_text(min_sdk)})")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", required=True)
    parser.add_argument("--classes", required=True)
    parser.add_argument("--sources", action="append", required=True)
    parser.add_argument("--package", default="", help="only the compiled classes of this package")
    parser.add_argument("--gradle")
    parser.add_argument("--compile-sdk")
    parser.add_argument("--min-sdk")
    parser.add_argument("--expect-fixtures", action="store_true",
                        help="self-test: the flagged lines must be exactly those marked `// expect: <words>`")
    args = parser.parse_args()
    problems = check(args)
    if args.expect_fixtures:
        expected = {}
        for root in args.sources:
            for directory, _, files in os.walk(root):
                for file in files:
                    path = os.path.join(directory, file)
                    for number, text in enumerate(open(path, encoding="utf-8"), start=1):
                        if "// expect:" in text:
                            expected[(os.path.relpath(path), number)] = text.split("// expect:")[1].strip()
        flagged = {(path, line): message for path, line, message in problems}
        failures = [f"{p}:{l}: expected a problem containing '{words}', got none" for (p, l), words in expected.items()
                    if (p, l) not in flagged]
        failures += [f"{p}:{l}: '{flagged[(p, l)]}' does not contain '{expected[(p, l)]}'" for (p, l) in flagged
                     if (p, l) in expected and expected[(p, l)] not in flagged[(p, l)]]
        failures += [f"{p}:{l}: unexpected problem: {m}" for (p, l), m in flagged.items() if (p, l) not in expected]
        for failure in failures:
            print(failure, file=sys.stderr)
        print(f"api_guard self-test: {len(expected)} expected problems, {len(flagged)} flagged, "
              f"{len(failures)} mismatches")
        return 1 if failures else 0
    for path, line, message in problems:
        print(f"{path}:{line}: {message}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
