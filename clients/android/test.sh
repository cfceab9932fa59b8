#!/usr/bin/env bash
# Compiles the DropTrack Android library against the Android/Firebase look-alikes and runs its
# JUnit 4 tests on the JVM: the notification plan for every vector, and the registration client
# against a real `droptrack serve`. Needs kotlinc, junit4 and a JDK (scripts/install-deps.sh).
#   clients/android/test.sh [path/to/droptrack]     (default .build/debug/droptrack)
# Builds into .build/android/; exits non-zero on any compile error or failed test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
droptrack="$(realpath "${1:-$root/.build/debug/droptrack}")"
out="$root/.build/android"
[ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }

stdlib=/usr/share/java/kotlin-stdlib.jar
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
rm -rf "$out" && mkdir -p "$out/lookalikes" "$out/main" "$out/test"
# kotlinc 1.3 on JDK 17 warns about -Xverify on every run; keep the output to what matters.
quiet() { grep -v -e "Options -Xverify:none and -noverify were deprecated" || true; }

started=$(date +%s)
echo "-- look-alikes (javac)"
find "$here/lookalikes" -name '*.java' > "$out/lookalikes.txt"
javac -nowarn -d "$out/lookalikes" @"$out/lookalikes.txt"

echo "-- library (kotlinc $(kotlinc -version 2>&1 | grep -o 'kotlinc-jvm [^ ]*' || true))"
set +e
kotlinc -jvm-target 1.8 -Werror -cp "$out/lookalikes" -d "$out/main" "$here/src/main/kotlin" 2>&1 | quiet
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { echo "library did not compile" >&2; exit 1; }
echo "-- tests"
kotlinc -jvm-target 1.8 -cp "$out/main:$junit" -d "$out/test" "$here/src/test/kotlin" 2>&1 | quiet
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "tests did not compile" >&2; exit 1; }

# The tests run without the look-alikes on the class path: the core must not need Android.
classes=$(cd "$out/test" && find . -name '*Tests.class' ! -name '*$*' | sed 's|^\./||; s|\.class$||; s|/|.|g' | sort)
echo "-- JUnit: $(echo $classes | wc -w) classes"
java -Ddroptrack.binary="$droptrack" -Ddroptrack.vectors="$root/vectors" \
  -cp "$out/main:$out/test:$stdlib:$junit" org.junit.runner.JUnitCore $classes
echo "-- clients/android/test.sh took $(( $(date +%s) - started )) s"
