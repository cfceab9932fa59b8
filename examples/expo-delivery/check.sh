#!/usr/bin/env bash
# Checks the example app as far as this machine can (no npm, Xcode or Android SDK):
#   1. tsc over App.tsx, index.ts and config.ts, against the module's sources and look-alike
#      declarations of react, react-native and expo (types/);
#   2. app.json's plugin entry, through the module's built config plugin (clients/expo/test.sh
#      builds it and runs its iOS mods on a sample project): the options are accepted, the iOS
#      deployment target is left alone, and the widget extension is declared for EAS Build;
#   3. dev-backend.mjs against a real `droptrack serve`: the README's path to a device credential.
#   examples/expo-delivery/check.sh [path/to/droptrack [--update-declarations]]   (default .build/debug/droptrack)
# The declarations of the look-alikes in types/ must match the committed types/DECLARATIONS.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
droptrack="$(realpath "${1:-$root/.build/debug/droptrack}")"
[ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }
stubs="$root/.build/expo/node_modules"
[ -f "$root/clients/expo/build/plugin/src/withDropTrack.js" ] && [ -d "$stubs" ] \
  || { echo "the module's plugin is not built: run clients/expo/test.sh first" >&2; exit 1; }

echo "-- tsc (the example app) and its look-alikes' declarations"
tsc -p "$here/tsconfig.check.json"
NODE_PATH=/usr/share/nodejs node "$root/clients/expo/tools/ts-declarations.js" "$root/.build/expo/example-declarations.txt" "$here"/types/*.d.ts
if [ "${2:-}" = "--update-declarations" ]; then
  cp "$root/.build/expo/example-declarations.txt" "$here/types/DECLARATIONS.txt"
elif ! diff -u "$here/types/DECLARATIONS.txt" "$root/.build/expo/example-declarations.txt"; then
  echo "the example's look-alikes changed: review the diff, then run check.sh <droptrack> --update-declarations" >&2
  exit 1
fi

echo "-- app.json through the built config plugin"
NODE_PATH="$stubs" node -e "
  const app = require('$here/app.json').expo;
  const [name, options] = app.plugins.find((entry) => entry[0] === 'droptrack-expo');
  const plugin = require('$root/clients/expo/app.plugin.js');
  const applied = plugin(app, options);
  if (JSON.stringify(applied.ios) !== JSON.stringify(app.ios)) throw new Error('the plugin changed ios: ' + JSON.stringify(applied.ios));
  if (applied.android.googleServicesFile !== './google-services.json') throw new Error('android.googleServicesFile is not set');
  const [widget] = applied.extra.eas.build.experimental.ios.appExtensions;
  if (widget.bundleIdentifier !== app.ios.bundleIdentifier + '.widgets') throw new Error('the widget extension is not declared for EAS: ' + JSON.stringify(widget));
  console.log('   ' + name + ': ' + applied.mods.map((mod) => mod.name).join(', '));"

echo "-- dev-backend.mjs mints a device credential from a real droptrack serve"
work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cd "$work"
"$(dirname "$droptrack")/droptrack-dev" keys dev --out dev > /dev/null
key_id=$(sed -n 's/.*"keyId" *: *"\([^"]*\)".*/\1/p' dev/apns/apns.json)
team_id=$(sed -n 's/.*"teamId" *: *"\([^"]*\)".*/\1/p' dev/apns/apns.json)
api_key=$("$droptrack" apps add --config droptrack.json --id shop --bundle-id com.droptrack.demo \
  --apns-key-file "dev/apns/AuthKey_$key_id.p8" --apns-key-id "$key_id" --apns-team-id "$team_id" \
  --fcm-service-account dev/fcm/service-account.json 2> apps.log)
"$droptrack" apps device-key rotate --config droptrack.json --app shop > /dev/null 2>> apps.log
port=$(free_port)
"$droptrack" serve --config droptrack.json --listen "127.0.0.1:$port" > serve.log 2>&1 &
pids+=($!)
backend_port=$(free_port)
DROPTRACK_URL="http://127.0.0.1:$port" DROPTRACK_API_KEY="$api_key" PORT="$backend_port" node "$here/dev-backend.mjs" > backend.log 2>&1 &
pids+=($!)
curl -s --retry 30 --retry-connrefused --retry-delay 1 "http://127.0.0.1:$port/readyz" > /dev/null
answer=$(curl -s --retry 30 --retry-connrefused --retry-delay 1 "http://127.0.0.1:$backend_port/credential?userId=u1")
node -e "
  const answer = JSON.parse(process.argv[1]);
  if (typeof answer.credential !== 'string' || answer.credential.split('.').length !== 3) throw new Error('no credential in ' + Object.keys(answer));
  console.log('   a device credential for u1, expiring at ' + answer.expiresAt);" "$answer"
if grep -q -- "$api_key" backend.log serve.log; then echo "the API key appears in a log" >&2; exit 1; fi
echo "== the example app: tsc, app.json and the dev backend passed"
