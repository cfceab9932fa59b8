"""The iOS client code type-checks against Apple's real iOS SDK, here on Linux: DropTrackSHA256,
DropTrackContract, DropTrackLive, DropTrackWidgets, the Expo module and the iOS tutorial's examples (docs/tutorials/ios-app.md)
(Tests/LiveTests/ReadmeAdoptionExamples.swift) at iOS 15.1, Expo's default deployment target and the
one the CocoaPods pods and the Swift package declare (what needs ActivityKit is marked iOS 16.1 or
16.2 and guarded), in Swift 6 mode
with warnings as errors, against ActivityKit, SwiftUI, WidgetKit, AppIntents and Foundation built from the SDK's
.swiftinterface files. ExpoModulesCore is not in the SDK: the Expo module is checked against the
look-alike (Sources/ExpoModulesCoreShim) compiled for iOS under ExpoModulesCore's name, and so is a
copy of the module provider Expo's autolinking generates, which names `DropTrackModule` with no
availability check.

    python3 checks/ios_typecheck.py --sdk /path/to/iPhoneOS26.2.sdk

The SDK is an Xcode's (Xcode.app/Contents/Developer/Platforms/iPhoneOS.platform/Developer/SDKs/),
or a copy of one. Without --sdk or DROPTRACK_IOS_SDK the check says so and passes: the SDK is not
redistributable and not on this machine by default. The first run builds Apple's modules from their
interfaces (minutes); they are cached in .build/ios-typecheck.

What it cannot show: code generation, linking, the app running; only a build in Xcode does.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Each module in dependency order: name, deployment target, source files (relative), swiftc extras.
MODULES = [
    ("DropTrackSHA256", "15.1", ["Sources/DropTrackSHA256"]),
    ("DropTrackContract", "15.1", ["Sources/DropTrackContract"]),
    ("DropTrackLive", "15.1", ["Sources/DropTrackLive"]),
    ("ExpoModulesCore", "15.1", ["Sources/ExpoModulesCoreShim"]),
    ("DropTrackExpo", "15.1", ["clients/expo/ios"]),
    ("DropTrackWidgets", "15.1", ["Sources/DropTrackWidgets"]),
    ("ReadmeExamples", "15.1", ["Tests/LiveTests/ReadmeAdoptionExamples.swift"]),
]
# What expo-modules-autolinking generates (ExpoModulesProvider.swift), reduced to the line that matters:
# the module named with no availability check, compiled at the app's deployment target.
PROVIDER = """internal import ExpoModulesCore
internal import DropTrackExpo

func getModuleClasses() -> [(module: any AnyModule.Type, name: String?)] {
    [(module: DropTrackModule.self, name: nil)]
}
"""


def swift_files(paths):
    files = []
    for path in paths:
        folder = os.path.join(REPOSITORY, path)
        if path.endswith(".swift"):
            files.append(folder)
            continue
        files += sorted(
            os.path.join(root, name) for root, _, names in os.walk(folder) for name in names if name.endswith(".swift"))
    return files


def resource_dir(work):
    """The toolchain's resource folder without its Linux-only headers (os/, dispatch/), which would hide
    the SDK's own."""
    info = json.loads(subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True).stdout)
    toolchain = info["paths"]["runtimeResourcePath"]
    folder = os.path.join(work, "resource")
    os.makedirs(folder, exist_ok=True)
    for name in ("shims", "clang", "apinotes"):
        link = os.path.join(folder, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(toolchain, name), link)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdk", default=os.environ.get("DROPTRACK_IOS_SDK"), help="an iPhoneOS*.sdk folder")
    arguments = parser.parse_args()
    if not arguments.sdk:
        print("SKIP the iOS type-check: no SDK (give --sdk or DROPTRACK_IOS_SDK an iPhoneOS*.sdk folder)")
        return 0
    work = os.path.join(REPOSITORY, ".build", "ios-typecheck")
    modules = os.path.join(work, "modules")
    shutil.rmtree(modules, ignore_errors=True)
    os.makedirs(modules)
    resources = resource_dir(work)
    failed = False
    for name, target, paths in MODULES + [("ExpoModulesProvider", "15.1", None)]:
        flags = [
            "swiftc", "-target", f"arm64-apple-ios{target}", "-sdk", arguments.sdk, "-resource-dir", resources,
            "-I", os.path.join(resources, "shims"), "-module-cache-path", os.path.join(work, "module-cache"),
            "-swift-version", "6", "-enable-upcoming-feature", "ExistentialAny", "-enable-upcoming-feature",
            "MemberImportVisibility", "-warnings-as-errors", "-parse-as-library", "-I", modules,
            "-package-name", "droptrack", "-module-name", name,
        ]
        with tempfile.TemporaryDirectory() as scratch:
            if paths is None:
                provider = os.path.join(scratch, "ExpoModulesProvider.swift")
                with open(provider, "w", encoding="utf-8") as file:
                    file.write(PROVIDER)
                command = flags + ["-typecheck", provider]
            else:
                command = flags + ["-emit-module", "-emit-module-path", os.path.join(modules, name + ".swiftmodule")]
                command += swift_files(paths)
            result = subprocess.run(command, capture_output=True, text=True, errors="replace")
        diagnostics = [line for line in (result.stdout + result.stderr).splitlines()
                       if ": error:" in line or ": warning:" in line]
        if result.returncode == 0:
            print(f"PASS {name} type-checks for iOS {target} against {os.path.basename(arguments.sdk)}")
        else:
            failed = True
            print(f"FAIL {name} does not type-check for iOS {target}:")
            for line in sorted(set(diagnostics)) or (result.stdout + result.stderr).splitlines()[-20:]:
                print("    " + line.replace(REPOSITORY + "/", ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
