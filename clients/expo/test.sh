#!/usr/bin/env bash
# Type-checks the Expo module (TypeScript, against the look-alike declarations in types/) and runs
# its tests with Node's test runner. Needs Debian's node-typescript and Node 18+.
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
echo "== Expo module: tsc and tests passed"
