#!/usr/bin/env bash
# Tests the Node backend SDK without npm:
#   1. tsc --noEmit over the SDK and its tests, against the Node declarations in types/, which must match
#      the committed list (types/DECLARATIONS.txt);
#   2. the package's `build` script on a copy of the package, and a consumer type-checked and run through
#      package.json's `exports` (node16 resolution), as `require('droptrack')` in an app would;
#   3. node --test: the retry rules against a scripted HTTP server on 127.0.0.1 (test/retries.test.ts), and
#      the SDK against a real `droptrack serve` with the emulators, started by checks/sdk_server.py
#      (test/server.test.ts): starts, events, audiences, tags, device credentials minted here (and forged
#      ones refused), and a webhook delivery from the server verified;
#   4. README.md's example, compiled as written through the package's exports and run against the server.
# Needs Debian's node-typescript, Node 20, openssl and the .venv (scripts/install-deps.sh).
#   clients/node/test.sh [path/to/droptrack]     (default .build/debug/droptrack)
#   clients/node/test.sh --update-declarations    rewrite types/DECLARATIONS.txt, then stop
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
update=0
if [ "${1:-}" = "--update-declarations" ]; then update=1; shift; fi
droptrack="$(realpath -m "${1:-$root/.build/debug/droptrack}")"
python="$root/.venv/bin/python"
out="$root/.build/node-sdk"
[ "$update" -eq 1 ] || [ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }
[ -x "$python" ] || { echo "no $python: run scripts/install-deps.sh" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

echo "-- tsc --noEmit (the SDK and its tests) and the Node declarations it relies on"
tsc -p "$here/tsconfig.json" --noEmit
# The Expo module's lister serves both: one line per declaration in the look-alike files.
NODE_PATH=/usr/share/nodejs node "$root/clients/expo/tools/ts-declarations.js" "$out/DECLARATIONS.txt" "$here"/types/*.d.ts
if [ "$update" -eq 1 ]; then cp "$out/DECLARATIONS.txt" "$here/types/DECLARATIONS.txt"; echo "   wrote types/DECLARATIONS.txt"; exit 0; fi
diff -u "$here/types/DECLARATIONS.txt" "$out/DECLARATIONS.txt" || {
  echo "the Node declarations changed: review the diff, then run clients/node/test.sh --update-declarations" >&2
  exit 1
}

package="$out/node_modules/droptrack"
echo "-- the package's build script: $(node -p "require('$here/package.json').scripts.build")"
mkdir -p "$package"
cp -r "$here/package.json" "$here/tsconfig.build.json" "$here/README.md" "$here/src" "$here/types" "$package/"
(cd "$package" && sh -c "$(node -p "require('./package.json').scripts.build")")
for file in $(node -p "Object.values(require('$package/package.json').exports['.']).join(' ')"); do
  [ -f "$package/$file" ] || { echo "package.json exports $file, which the build did not emit" >&2; exit 1; }
done
mkdir -p "$out/consumer"
cat > "$out/consumer/index.ts" <<'TS'
import { Client, DeviceKey, WebhookVerifier, type Started } from 'droptrack';
const client: Client = new Client('http://127.0.0.1:8787', 'dt_app_key');
const pending: Promise<Started> | undefined = undefined;
console.log(String(client), typeof DeviceKey, typeof WebhookVerifier, pending === undefined);
TS
# The consumer's own Node declarations stand in for @types/node.
cp "$here/types/node-subset.d.ts" "$out/consumer/"
cat > "$out/consumer/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "module": "node16", "moduleResolution": "node16", "target": "ES2022",
    "lib": ["ES2022"], "types": [], "typeRoots": [] },
  "files": ["index.ts", "node-subset.d.ts"] }
JSON
tsc -p "$out/consumer/tsconfig.json"
(cd "$out/consumer" && node index.js | grep -q "droptrack.Client(http://127.0.0.1:8787, api key " && echo "   a consumer resolves the package's exports and types")

echo "-- tsc (compile for the tests) and node --test: the retry rules"
tsc -p "$here/tsconfig.json"
node --test "$out/compiled/test/retries.test.js"

echo "-- node --test: against droptrack serve and the emulators"
facts="$out/facts.json"
"$python" "$root/checks/sdk_server.py" "$droptrack" "$facts" > "$out/server.log" 2>&1 &
server=$!
stop() { kill $server 2>/dev/null; wait $server 2>/dev/null || true; }
trap stop EXIT
trap 'exit 143' TERM INT
for _ in $(seq 600); do
  [ -f "$facts" ] && break
  kill -0 $server 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -f "$facts" ] || { echo "the server did not start within 60 s" >&2; cat "$out/server.log" >&2; exit 1; }
DROPTRACK_SDK_FACTS="$facts" node --test "$out/compiled/test/server.test.js"

echo "-- README.md's example, compiled as written through the package's exports and run against the server"
mkdir -p "$out/readme-example"
awk '/^```ts$/ {on=1; next} /^```$/ {if (on) exit} on' "$here/README.md" > "$out/readme-example/index.ts"
cp "$here/types/node-subset.d.ts" "$out/consumer/tsconfig.json" "$out/readme-example/"
tsc -p "$out/readme-example/tsconfig.json"
example_ok=1
node -e "
  const facts = require('$facts');
  Object.assign(process.env, { DROPTRACK_URL: facts.baseUrl, DROPTRACK_API_KEY: facts.apiKey, DROPTRACK_APP: facts.appId,
    DEVICE_KEY_FILE: facts.privateKeyFile, DROPTRACK_WEBHOOK_SECRET: facts.webhookSecret });
  require('$out/readme-example/index.js');" > "$out/readme-example/output.txt" || example_ok=0
cat "$out/readme-example/output.txt"
[ "$example_ok" -eq 1 ] && grep -q "^422 " "$out/readme-example/output.txt" && grep -qx "order-3001 3 3" "$out/readme-example/output.txt" \
  || { echo "README.md's example failed, or did not print the 422 and the activity with two credentials" >&2; exit 1; }
echo "== Node SDK: tsc, the build, the package's exports, the retry rules and the real server's checks passed"
