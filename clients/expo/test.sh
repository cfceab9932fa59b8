#!/usr/bin/env bash
# Checks the Expo module as far as this machine can without npm, Gradle or Xcode:
#   1. tsc --noEmit over the module, the plugin and the tests, against the look-alike declarations
#      in types/, whose declarations must match the committed list (types/DECLARATIONS.txt);
#   2. the package's `build` script (tsc) and what it emits: app.plugin.js loads the built plugin;
#   3. the tests with Node's test runner, and what the config plugin's iOS mods made of a sample
#      project in two layouts (test/plugin-ios.test.ts leaves them in .build/expo/prebuild): the Xcode project read by
#      mod-pbxproj (tools/check_xcode_project.py), the Podfile evaluated in Ruby (tools/check_podfile.rb),
#      the widget extension's Swift type-checked against DropTrackWidgets and the look-alikes;
#   4. the Android side (Kotlin) on the Android library and the expo-modules-core look-alikes
#      (their declarations, read from the source, listed in android/lookalikes/DECLARATIONS.txt),
#      its API levels
#      (clients/android/tools/api_guard.py), the package files (tools/check_package.py: the
#      expo-module.config.json schema, package.json, android/build.gradle) and its JUnit tests,
#      among them the contract's cases (test/contract/cases.json) run on the Android side.
# Needs Debian's node-typescript, Node 18+, kotlin, junit4, ruby, the .venv (jsonschema, pbxproj),
# clients/android/test.sh run first (it builds .build/android) and a debug `swift build` (the
# DropTrackWidgets module; `swift build --target DropTrackWidgets` is enough).
#   clients/expo/test.sh [--update-declarations]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.build/expo"
android="$root/.build/android"
update=0
[ "${1:-}" = "--update-declarations" ] && update=1
[ -d "$android/main" ] || { echo "no $android/main: run clients/android/test.sh first" >&2; exit 1; }
python="$root/.venv/bin/python"
[ -x "$python" ] || { echo "no $python: run scripts/install-deps.sh" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
quiet() { grep -v -e "Options -Xverify:none and -noverify were deprecated" || true; }
kotlin() {
  set +e
  kotlinc -jvm-target 1.8 "$@" 2>&1 | quiet
  local status=${PIPESTATUS[0]}
  set -e
  return "$status"
}
# Compares a freshly made declaration list with the committed one (or replaces it when updating).
declarations() {
  local made="$1" committed="$2"
  if [ "$update" -eq 1 ]; then cp "$made" "$committed"; echo "   wrote ${committed#$root/}"; return; fi
  diff -u "$committed" "$made" || {
    echo "the look-alikes changed: review the diff, then run clients/expo/test.sh --update-declarations" >&2
    exit 1
  }
}

echo "-- tsc --noEmit (the module, the plugin and the tests)"
tsc -p "$here/tsconfig.json" --noEmit
NODE_PATH=/usr/share/nodejs node "$here/tools/ts-declarations.js" "$out/ts-declarations.txt" "$here"/types/*.d.ts
declarations "$out/ts-declarations.txt" "$here/types/DECLARATIONS.txt"

echo "-- the package's build script: $(node -p "require('$here/package.json').scripts.build")"
(cd "$here" && rm -rf build && sh -c "$(node -p "require('./package.json').scripts.build")")
mkdir -p "$out/node_modules/@expo/config-plugins"
cp "$here/test/runtime/config-plugins.js" "$out/node_modules/@expo/config-plugins/index.js"
NODE_PATH="$out/node_modules" node -e "
  const plugin = require('$here/app.plugin.js');
  if (typeof plugin !== 'function') throw new Error('app.plugin.js does not export a config plugin');
  console.log('   app.plugin.js loads the built plugin (' + plugin.length + ' parameters)');"

echo "-- tsc (compile for the tests) and node --test"
tsc -p "$here/tsconfig.json" --outDir "$out" --declaration false
# At run time the tests load only the plugin's `@expo/config-plugins`; the rest is types.
DROPTRACK_REPOSITORY="$root" DROPTRACK_PREBUILD_OUT="$out/prebuild" NODE_PATH="$out/node_modules" \
  node --test "$out"/test/*.test.js

echo "-- the prebuilt iOS project: the Xcode project (mod-pbxproj), the Podfile (Ruby), the widget's Swift"
# Both layouts: Expo's templates up to SDK 54, and Xcode 26's (test/plugin-ios.test.ts).
for layout in ios ios-xcode26; do
  "$python" "$here/tools/check_xcode_project.py" "$out/prebuild/$layout/ios" HelloWorld DropTrackWidgetExtension \
    com.example.droptrack.delivery.widgets group.com.example.droptrack.delivery
  ruby "$here/tools/check_podfile.rb" "$out/prebuild/$layout/ios" HelloWorld DropTrackWidgetExtension
done
prebuilt="$out/prebuild/ios/ios"
modules="$root/.build/debug/Modules"
[ -f "$modules/DropTrackWidgets.swiftmodule" ] \
  || { echo "no $modules/DropTrackWidgets.swiftmodule: swift build --target DropTrackWidgets first" >&2; exit 1; }
# `import SwiftUI` and `import WidgetKit` load the look-alikes. Without `@main`: the SwiftUI look-alike's
# WidgetBundle has no `main()` (as in Tests/LiveTests/ReadmeAdoptionTests.swift); Xcode's has.
sed '/^@main$/d' "$prebuilt/DropTrackWidgetExtension/DropTrackWidgetBundle.swift" > "$out/DropTrackWidgetBundle.swift"
swiftc -typecheck -parse-as-library -swift-version 5 -warnings-as-errors -I "$modules" \
  -module-alias SwiftUI=SwiftUIShim -module-alias WidgetKit=WidgetKitShim "$out/DropTrackWidgetBundle.swift"
echo "   the widget extension's DropTrackWidgetBundle.swift type-checks against DropTrackWidgets"

echo "-- npm pack's copy of the Android library (scripts/copy-android-library.js)"
node "$here/scripts/copy-android-library.js" --to "$out/android-library"
[ -f "$out/android-library/src/main/AndroidManifest.xml" ] && [ -f "$out/android-library/consumer-rules.pro" ]

echo "-- the Android side (Kotlin) on the Android library"
kotlin_out="$out/android"
mkdir -p "$kotlin_out/lookalikes" "$kotlin_out/main" "$kotlin_out/test"
kotlin -nowarn -cp "$android/lookalikes" -d "$kotlin_out/lookalikes" "$here/android/lookalikes" \
  || { echo "the Expo look-alikes did not compile" >&2; exit 1; }
python3 "$here/tools/kotlin-declarations.py" "$kotlin_out/DECLARATIONS.txt" "$here/android/lookalikes"
declarations "$kotlin_out/DECLARATIONS.txt" "$here/android/lookalikes/DECLARATIONS.txt"
[ "$update" -eq 0 ] || exit 0
kotlin -Werror -cp "$android/lookalikes:$android/main:$kotlin_out/lookalikes" -d "$kotlin_out/main" \
  "$here/android/src/main/java" || { echo "the Expo module's Android side did not compile" >&2; exit 1; }
# Expo's Gradle plugin takes the SDK levels from the app; Expo SDK 54 builds with 36 and 24.
(cd "$here" && python3 "$root/clients/android/tools/api_guard.py" --levels "$android/levels.tsv" \
  --classes "$kotlin_out/main" --sources android/src/main/java --compile-sdk 36 --min-sdk 24)
"$python" "$here/tools/check_package.py" "$here" "$kotlin_out/main"
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
# The library's test support ($android/test: the phone's files and shade) runs the contract's cases.
kotlin -cp "$android/main:$android/test:$kotlin_out/main:$junit" -d "$kotlin_out/test" "$here/android/src/test/kotlin" \
  || { echo "the Expo module's Kotlin tests did not compile" >&2; exit 1; }
# As for the library, the tests run without the look-alikes: the plain-Kotlin part needs no Android.
java -Ddroptrack.contract="$here/test/contract/cases.json" -Ddroptrack.vectors="$root/vectors" \
  -cp "$android/main:$android/test:$kotlin_out/main:$kotlin_out/test:/usr/share/java/kotlin-stdlib.jar:$junit" \
  org.junit.runner.JUnitCore com.droptrack.expo.LocalDeliveryTests com.droptrack.expo.ContractCasesTests
echo "== Expo module: tsc, the build, node tests, the package files and the Kotlin side passed"
