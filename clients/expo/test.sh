#!/usr/bin/env bash
# Type-checks the Expo module (TypeScript, against the look-alike declarations in types/) and runs
# its tests with Node's test runner; compiles its Android side (Kotlin) against the Android
# library and the look-alikes, and runs that side's JUnit tests. Needs Debian's node-typescript,
# Node 18+, kotlin and junit4, and clients/android/test.sh run first (it builds .build/android).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.build/expo"
rm -rf "$out"
mkdir -p "$out"

echo "-- tsc --noEmit (the module, the plugin and the tests)"
tsc -p "$here/tsconfig.json" --noEmit
echo "-- tsc (compile for the tests)"
tsc -p "$here/tsconfig.json" --outDir "$out" --declaration false
# At run time the tests load only the plugin's `@expo/config-plugins`; the rest is types.
mkdir -p "$out/node_modules/@expo/config-plugins"
cp "$here/test/runtime/config-plugins.js" "$out/node_modules/@expo/config-plugins/index.js"

echo "-- node --test"
DROPTRACK_REPOSITORY="$root" node --test "$out"/test/*.test.js
echo "-- the Android side (Kotlin) on the Android library"
android="$root/.build/android"
[ -d "$android/main" ] || { echo "no $android/main: run clients/android/test.sh first" >&2; exit 1; }
quiet() { grep -v -e "Options -Xverify:none and -noverify were deprecated" || true; }
kotlin_out="$out/android"
mkdir -p "$kotlin_out/lookalikes" "$kotlin_out/main" "$kotlin_out/test"
set +e
kotlinc -jvm-target 1.8 -nowarn -cp "$android/lookalikes" -d "$kotlin_out/lookalikes" "$here/android/lookalikes" 2>&1 | quiet
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { echo "the Expo look-alikes did not compile" >&2; exit 1; }
kotlinc -jvm-target 1.8 -Werror -cp "$android/lookalikes:$android/main:$kotlin_out/lookalikes" -d "$kotlin_out/main" \
  "$here/android/src/main/java" 2>&1 | quiet
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { echo "the Expo module's Android side did not compile" >&2; exit 1; }
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
kotlinc -jvm-target 1.8 -cp "$android/main:$kotlin_out/main:$junit" -d "$kotlin_out/test" "$here/android/src/test/kotlin" 2>&1 | quiet
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "the Expo module's Kotlin tests did not compile" >&2; exit 1; }
# As for the library, the tests run without the look-alikes: the plain-Kotlin part needs no Android.
java -cp "$android/main:$kotlin_out/main:$kotlin_out/test:/usr/share/java/kotlin-stdlib.jar:$junit" \
  org.junit.runner.JUnitCore com.droptrack.expo.LocalDeliveryTests
echo "== Expo module: tsc, node tests and the Kotlin side passed"
