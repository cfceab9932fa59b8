#!/usr/bin/env python3
"""Checks the Expo module's package files as far as this machine can without npm or Gradle.

- expo-module.config.json against tools/expo-module-config.schema.json (jsonschema, from PyPI), and
  each Android module class it names among the compiled classes;
- package.json: `main`, `types` and app.plugin.js point at files the `build` script made, the peer
  dependencies are there, `files` ships what autolinking and the plugin need;
- android/build.gradle: Expo's Gradle plugin, the namespace, the library's sources, manifest and
  resources, and the same dependency versions as the library's build.gradle.kts.

    check_package.py <module dir> <compiled Android classes dir>
"""

from __future__ import annotations

import json
import os
import re
import sys

import jsonschema


def config_problems(module: str, classes: str) -> list[str]:
    schema = json.load(open(os.path.join(module, "tools/expo-module-config.schema.json"), encoding="utf-8"))
    config = json.load(open(os.path.join(module, "expo-module.config.json"), encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    problems = [f"expo-module.config.json: {'/'.join(map(str, e.path)) or '(top)'}: {e.message}"
                for e in validator.iter_errors(config)]
    for name in config.get("android", {}).get("modules", []):
        if not os.path.isfile(os.path.join(classes, *name.split(".")) + ".class"):
            problems.append(f"expo-module.config.json names the Android module {name}, which is not among the compiled classes")
    if "android" not in config.get("platforms", []):
        problems.append("expo-module.config.json: platforms does not list android")
    return problems


def package_problems(module: str) -> list[str]:
    package = json.load(open(os.path.join(module, "package.json"), encoding="utf-8"))
    problems = []
    for field in ("main", "types"):
        target = package.get(field, "")
        if not target.startswith("build/") or not os.path.isfile(os.path.join(module, target)):
            problems.append(f"package.json: {field} is '{target}', which the build script did not make")
    plugin = open(os.path.join(module, "app.plugin.js"), encoding="utf-8").read()
    required = re.search(r"require\('(\./build/[^']+)'\)", plugin)
    if not required or not os.path.isfile(os.path.join(module, required.group(1) + ".js")):
        problems.append("app.plugin.js does not require a plugin the build made")
    if "tsc" not in package.get("scripts", {}).get("build", ""):
        problems.append("package.json: no build script running tsc")
    for peer in ("expo", "react", "react-native"):
        if peer not in package.get("peerDependencies", {}):
            problems.append(f"package.json: {peer} is not a peer dependency")
    files = package.get("files", [])
    for needed in ("build/src", "build/plugin", "android", "android-library", "ios", "app.plugin.js", "expo-module.config.json"):
        if needed not in files:
            problems.append(f"package.json: files does not ship {needed}")
    return problems


def gradle_problems(module: str) -> list[str]:
    gradle = open(os.path.join(module, "android/build.gradle"), encoding="utf-8").read()
    library = open(os.path.join(module, "../android/build.gradle.kts"), encoding="utf-8").read()
    problems = []
    for what, pattern in {
        "id 'com.android.library'": r"plugins\s*\{[^}]*id 'com\.android\.library'",
        "id 'expo-module-gradle-plugin'": r"plugins\s*\{[^}]*id 'expo-module-gradle-plugin'",
        "namespace 'com.droptrack.expo'": r"android\s*\{[\s\S]*namespace 'com\.droptrack\.expo'",
        "the library's manifest": r"manifest\.srcFile \"\$\{droptrackAndroid\}/src/main/AndroidManifest\.xml\"",
        "the library's Kotlin": r"java\.srcDirs \+= \"\$\{droptrackAndroid\}/src/main/kotlin\"",
        "the library's resources": r"res\.srcDirs \+= \"\$\{droptrackAndroid\}/src/main/res\"",
    }.items():
        if not re.search(pattern, gradle):
            problems.append(f"android/build.gradle: expected {what}")
    if gradle.count("{") != gradle.count("}"):
        problems.append("android/build.gradle: the braces do not balance")
    ours = dict(re.findall(r"implementation '([^:]+:[^:]+):([^']+)'", gradle))
    theirs = dict(re.findall(r"implementation\(\"([^:]+:[^:]+):([^\"]+)\"\)", library))
    if ours != theirs:
        problems.append(f"android/build.gradle depends on {ours}, the library's build.gradle.kts on {theirs}")
    for candidate in ("../android-library", "../../android"):
        if os.path.isfile(os.path.join(module, "android", candidate, "src/main/AndroidManifest.xml")):
            break
    else:
        problems.append("android/build.gradle finds no library: neither android-library/ nor ../android is there")
    return problems


def main() -> int:
    module, classes = sys.argv[1], sys.argv[2]
    problems = config_problems(module, classes) + package_problems(module) + gradle_problems(module)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_package: expo-module.config.json, package.json and android/build.gradle "
          f"{'have ' + str(len(problems)) + ' problems' if problems else 'as expected'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
