#!/usr/bin/env bash
# Compiles the DropTrack Android library against the Android/AndroidX/Firebase look-alikes and
# checks it as far as this machine can without Gradle or the Android SDK:
#   1. the look-alikes' declarations against the committed list (lookalikes/DECLARATIONS.txt);
#   2. the library, with warnings as errors;
#   3. tools/api_guard.py (lint's NewApi rule: API levels and traps), its self-test first;
#   4. tools/check_module.py (the manifest, resources and Gradle scripts);
#   5. the JUnit 4 tests on the JVM: the notification plan for every vector, the platform rules,
#      and the registration client against a real `droptrack serve`.
# Needs kotlinc, junit4, a JDK and python3 (scripts/install-deps.sh).
#   clients/android/test.sh [path/to/droptrack]     (default .build/debug/droptrack)
#   clients/android/test.sh --update-declarations    rewrite lookalikes/DECLARATIONS.txt, then stop
# Builds into .build/android/; exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
update=0
if [ "${1:-}" = "--update-declarations" ]; then update=1; shift; fi
droptrack="$(realpath "${1:-$root/.build/debug/droptrack}")"
out="$root/.build/android"
[ "$update" -eq 1 ] || [ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }

stdlib=/usr/share/java/kotlin-stdlib.jar
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
rm -rf "$out" && mkdir -p "$out/lookalikes" "$out/tools" "$out/main" "$out/test" "$out/fixtures"
# kotlinc 1.3 on JDK 17 warns about -Xverify on every run; keep the output to what matters.
quiet() { grep -v -e "Options -Xverify:none and -noverify were deprecated" || true; }
kotlin() {
  set +e
  kotlinc -jvm-target 1.8 "$@" 2>&1 | quiet
  local status=${PIPESTATUS[0]}
  set -e
  return "$status"
}

started=$(date +%s)
echo "-- look-alikes (javac) and their declarations"
find "$here/lookalikes" -name '*.java' > "$out/lookalikes.txt"
javac -nowarn -d "$out/lookalikes" @"$out/lookalikes.txt"
javac -nowarn -d "$out/tools" "$here/tools/LookalikeInventory.java"
java -cp "$out/tools:$out/lookalikes" LookalikeInventory "$out/lookalikes" "$out/DECLARATIONS.txt" "$out/levels.tsv"
if [ "$update" -eq 1 ]; then
  cp "$out/DECLARATIONS.txt" "$here/lookalikes/DECLARATIONS.txt"
  echo "wrote lookalikes/DECLARATIONS.txt ($(grep -c '^  ' "$here/lookalikes/DECLARATIONS.txt") members)"
  exit 0
fi
if ! diff -u "$here/lookalikes/DECLARATIONS.txt" "$out/DECLARATIONS.txt"; then
  echo "the look-alikes changed: review the diff, then run clients/android/test.sh --update-declarations" >&2
  exit 1
fi
echo "   $(grep -c '^  ' "$out/DECLARATIONS.txt") members in $(grep -vc '^  ' "$out/DECLARATIONS.txt") types, as listed"

echo "-- library (kotlinc $(kotlinc -version 2>&1 | grep -o 'kotlinc-jvm [^ ]*' || true))"
kotlin -Werror -cp "$out/lookalikes" -d "$out/main" "$here/src/main/kotlin" || { echo "library did not compile" >&2; exit 1; }

echo "-- API levels (tools/api_guard.py): its self-test, then the library"
kotlin -cp "$out/lookalikes" -d "$out/fixtures" "$here/tools/fixtures" || { echo "the guard fixtures did not compile" >&2; exit 1; }
guard=(python3 "$here/tools/api_guard.py" --levels "$out/levels.tsv")
(cd "$here" && "${guard[@]}" --classes "$out/fixtures" --package fixtures.sdk36_1. --sources tools/fixtures/sdk36_1 \
  --compile-sdk 36.1 --min-sdk 24 --expect-fixtures)
(cd "$here" && "${guard[@]}" --classes "$out/fixtures" --package fixtures.sdk36. --sources tools/fixtures/sdk36 \
  --compile-sdk 36 --min-sdk 24 --expect-fixtures)
(cd "$here" && "${guard[@]}" --classes "$out/main" --sources src/main/kotlin --gradle build.gradle.kts)

echo "-- the Android tutorial's Application.onCreate block, as written (tools/docs_example.py)"
mkdir -p "$out/docs-example"
python3 "$here/tools/docs_example.py" "$out/docs-example/TutorialApplication.kt"
kotlin -Werror -cp "$out/main:$out/lookalikes" -d "$out/docs-example" "$out/docs-example/TutorialApplication.kt" \
  || { echo "docs/tutorials/android-app.md's Kotlin block does not compile against the library" >&2; exit 1; }

echo "-- the Gradle module's files (tools/check_module.py)"
python3 "$here/tools/check_module.py" "$here" "$out/main:$out/lookalikes"

echo "-- tests"
kotlin -cp "$out/main:$junit" -d "$out/test" "$here/src/test/kotlin" || { echo "tests did not compile" >&2; exit 1; }

# The tests run without the look-alikes on the class path: the core must not need Android.
classes=$(cd "$out/test" && find . -name '*Tests.class' ! -name '*$*' | sed 's|^\./||; s|\.class$||; s|/|.|g' | sort)
echo "-- JUnit: $(echo $classes | wc -w) classes"
java -Ddroptrack.binary="$droptrack" -Ddroptrack.vectors="$root/vectors" \
  -cp "$out/main:$out/test:$stdlib:$junit" org.junit.runner.JUnitCore $classes
echo "-- clients/android/test.sh took $(( $(date +%s) - started )) s"
