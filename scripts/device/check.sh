#!/usr/bin/env bash
# Checks the device scripts as far as a machine without Xcode, adb or a phone can (scripts/test.sh
# runs it): their argument handling (exit 2 with the problem named), their refusal when the tool
# is missing (exit 3 naming it, with xcrun, adb and codesign kept off PATH), the commands they would
# run (recorded by stand-ins for xcrun, adb and codesign that only write down their arguments: no
# simulator or phone is driven here), and what they read: a real `droptrack push apns --dry-run`
# for sim-push.sh, the example app's log line for capture-tokens.sh, entitlements XML for
# check-entitlements.sh.
#   scripts/device/check.sh [path/to/droptrack]     (default .build/debug/droptrack)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
droptrack="$(realpath "${1:-$root/.build/debug/droptrack}")"
[ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# A PATH with what the scripts use and none of xcrun, adb, codesign (absent here anyway; kept off on a Mac).
bare="$work/bare"
mkdir -p "$bare"
for tool in bash sed grep head cat mktemp dirname basename tr rm printf; do
  ln -s "$(command -v "$tool")" "$bare/$tool" 2> /dev/null || true
done
# Stand-ins that write down their arguments (and, for codesign, print a bundle's entitlements).
stand="$work/stand"
mkdir -p "$stand"
cat > "$stand/xcrun" << 'STAND'
#!/usr/bin/env bash
echo "xcrun $*" >> "$RECORD"
for argument in "$@"; do case "$argument" in *.apns) cat "$argument" >> "$RECORD" ;; esac; done
[ "${1:-} ${2:-}" != "devicectl device" ] || [[ " $* " != *" --console "* ]] || cat "$CONSOLE"
[ "${1:-} ${2:-}" != "simctl spawn" ] || cat "$CONSOLE"
STAND
cat > "$stand/adb" << 'STAND'
#!/usr/bin/env bash
echo "adb $*" >> "$RECORD"
[[ " $* " != *" logcat "* ]] || cat "$CONSOLE"
STAND
cat > "$stand/codesign" << 'STAND'
#!/usr/bin/env bash
echo "codesign $*" >> "$RECORD"
cat "${!#}/entitlements.xml"
STAND
chmod +x "$stand"/*
export RECORD="$work/record" CONSOLE="$work/console"

# expect CODE PATTERN NAME -- COMMAND…: the command exits CODE and its output matches PATTERN.
expect() {
  local code=$1 pattern=$2 name=$3 status=0 output
  shift 4
  output=$("$@" 2>&1) || status=$?
  if [ "$status" -eq "$code" ] && [[ "$output" =~ $pattern ]]; then ok "$name"; else
    bad "$name: exit $status (wanted $code), output: ${output:0:300}"
  fi
}
recorded() { # recorded PATTERN NAME: the stand-ins' record matches
  if [[ "$(cat "$RECORD" 2> /dev/null)" =~ $1 ]]; then ok "$2"; else bad "$2: recorded $(cat "$RECORD" 2> /dev/null)"; fi
  rm -f "$RECORD"
}

echo "-- sim-push.sh on a real droptrack push apns --dry-run"
cd "$work"
"$(dirname "$droptrack")/droptrack-dev" keys dev --out dev > /dev/null
key_id=$(sed -n 's/.*"keyId" *: *"\([^"]*\)".*/\1/p' dev/apns/apns.json)
team_id=$(sed -n 's/.*"teamId" *: *"\([^"]*\)".*/\1/p' dev/apns/apns.json)
state='{"status":"Picked up","progress":0.5,"etaEpochMillis":1796323635000,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}'
"$droptrack" push apns --token "$(printf 'ab%.0s' $(seq 32))" --event update --state "$state" \
  --key "dev/apns/AuthKey_$key_id.p8" --key-id "$key_id" --team-id "$team_id" \
  --bundle-id com.example.droptrack.delivery --dry-run > push.txt
"$here/sim-push.sh" --print push.txt > push.apns
python3 - push.apns << 'PY' && ok "the .apns file: the dry run's body, for the topic's bundle" || bad "the .apns file: $(cat push.apns)"
import json, sys
apns = json.load(open(sys.argv[1]))
assert apns["Simulator Target Bundle"] == "com.example.droptrack.delivery", apns
aps = apns["aps"]
assert aps["event"] == "update" and isinstance(aps["timestamp"], int), aps
# droptrack converted the handbook's etaEpochMillis to ActivityKit's seconds since 2001.
assert aps["content-state"]["eta"] == 1796323635 - 978307200 and aps["content-state"]["status"] == "Picked up", aps
PY
expect 0 '"Simulator Target Bundle":"com.example.other"' "--bundle-id replaces the topic's bundle, from standard input" -- \
  bash -c "'$here/sim-push.sh' --print --bundle-id com.example.other - < push.txt"
sed 's/^apns-push-type: liveactivity/apns-push-type: alert/' push.txt > alert.txt
expect 1 "push type is 'alert', not liveactivity" "an alert push is refused" -- "$here/sim-push.sh" --print alert.txt
sed '/^{/d' push.txt > headers.txt
expect 1 'no APNs body in the input' "headers without a body are refused" -- "$here/sim-push.sh" --print headers.txt
expect 2 'no file missing.txt' "a missing file is named" -- "$here/sim-push.sh" missing.txt
expect 2 'unknown option --devices' "an unknown option gives the usage" -- "$here/sim-push.sh" --devices x push.txt
expect 2 '--device needs a value' "an option without its value" -- "$here/sim-push.sh" push.txt --device
expect 3 "needs 'xcrun'.*--print shows" "without xcrun it refuses and says what works" -- env PATH="$bare" "$here/sim-push.sh" push.txt
PATH="$stand:$PATH" "$here/sim-push.sh" --device 1F2E push.txt > /dev/null
recorded '^xcrun simctl push 1F2E com\.example\.droptrack\.delivery [^ ]+\.apns.\{"Simulator Target Bundle":"com\.example\.droptrack\.delivery","aps":\{' \
  "xcrun simctl push gets the device, the bundle and the .apns file"

echo "-- drive.sh: the deep links of the example app"
app="$root/examples/expo-delivery"
scheme=$(python3 -c "import json; print(json.load(open('$app/app.json'))['expo']['scheme'])")
package=$(python3 -c "import json; print(json.load(open('$app/app.json'))['expo']['android']['package'])")
# The script's defaults are the example's app.json, and the app answers the links it sends.
grep -q "scheme=$scheme " "$here/drive.sh" && grep -q "package=$package " "$here/drive.sh" \
  && grep -qF "url?.match(/^droptrack:\/\/drive\/(\w+)\$/)" "$app/App.tsx" \
  && grep -qF "verbs.current = { start, next, end };" "$app/App.tsx" \
  && ok "drive.sh's defaults are app.json's scheme and package; App.tsx answers drive/start, next, end" \
  || bad "drive.sh's defaults or App.tsx's deep links changed"
expect 2 "unknown verb 'fly'" "an unknown verb is refused" -- "$here/drive.sh" fly
expect 2 'which verb' "no verb gives the usage" -- "$here/drive.sh"
expect 2 '--cold needs --device' "--cold without the iPhone" -- env PATH="$stand:$PATH" "$here/drive.sh" --cold next
expect 2 "unknown platform 'web'" "an unknown platform" -- "$here/drive.sh" --platform web next
expect 2 "is not a URL scheme" "a bad scheme" -- "$here/drive.sh" --scheme 'a b' next
expect 3 "needs 'xcrun'" "iOS without xcrun" -- env PATH="$bare" "$here/drive.sh" next
expect 3 "needs 'adb'.*platform-tools" "Android without adb" -- env PATH="$bare" "$here/drive.sh" --platform android next
PATH="$stand:$PATH" "$here/drive.sh" next > /dev/null
recorded '^xcrun simctl openurl booted droptrack://drive/next$' "a simulator: simctl openurl booted droptrack://drive/next"
PATH="$stand:$PATH" "$here/drive.sh" --cold --device 00008110-AAAA --bundle-id com.example.droptrack.delivery start > /dev/null
recorded '^xcrun devicectl device process launch --device 00008110-AAAA --terminate-existing --payload-url droptrack://drive/start com\.example\.droptrack\.delivery$' \
  "a cold start on an iPhone: devicectl --payload-url"
PATH="$stand:$PATH" "$here/drive.sh" --platform android --device emulator-5554 end > /dev/null
recorded "^adb -s emulator-5554 shell am start -W -a android.intent.action.VIEW -d droptrack://drive/end $package\$" \
  "Android: am start VIEW with the link and the package"

echo "-- capture-tokens.sh: the example app's token lines out of a phone's log"
grep -qF 'console.log(`[DropTrack] ${event.kind} token ${event.fingerprint}: ${event.status}`)' "$app/App.tsx" \
  && ok "App.tsx logs the line capture-tokens.sh reads" || bad "App.tsx no longer logs '[DropTrack] <kind> token <fingerprint>: <status>'"
cat > "$CONSOLE" << 'LOG'
I/ReactNativeJS( 4242): Running "main" with {"rootTag":11}
I/ReactNativeJS( 4242): '[DropTrack] fcm token 5f0c9a1be2d34e77: registered'
I/ReactNativeJS( 4242): [DropTrack] drive/next
2026-12-03 17:02:11.317 DropTrackDelivery[912:4411] [DropTrack] push_to_start token 0a1b2c3d4e5f6071: retrying
LOG
expect 0 $'^\\[DropTrack\\] fcm token 5f0c9a1be2d34e77: registered\n\\[DropTrack\\] push_to_start token 0a1b2c3d4e5f6071: retrying$' \
  "--from picks the token lines, whatever precedes them" -- "$here/capture-tokens.sh" --from "$CONSOLE"
expect 0 '^\[DropTrack\] fcm token 5f0c9a1be2d34e77: registered$' "--once stops at the first" -- "$here/capture-tokens.sh" --from "$CONSOLE" --once
expect 1 'no DropTrack token line' "a log without one says so" -- "$here/capture-tokens.sh" --from push.txt
expect 2 '--platform ios needs --device' "an iPhone needs its id and the bundle id" -- "$here/capture-tokens.sh" --platform ios
expect 2 'which platform' "no platform gives the usage" -- "$here/capture-tokens.sh"
expect 3 "needs 'adb'" "Android without adb" -- env PATH="$bare" "$here/capture-tokens.sh" --platform android
expect 3 "needs 'xcrun'" "a simulator without xcrun" -- env PATH="$bare" "$here/capture-tokens.sh" --platform ios-simulator
expect 0 'fcm token 5f0c9a1be2d34e77: registered' "a simulator: its unified log" -- env PATH="$stand:$PATH" "$here/capture-tokens.sh" --platform ios-simulator --once
recorded "^xcrun simctl spawn booted log stream --style compact --predicate subsystem == \"com.facebook.react.log\"\$" "simctl spawn log stream of React Native's subsystem"
expect 0 'fcm token 5f0c9a1be2d34e77: registered' "Android: logcat's ReactNativeJS lines" -- env PATH="$stand:$PATH" "$here/capture-tokens.sh" --platform android --device emulator-5554
recorded "^adb -s emulator-5554 logcat -v brief ReactNativeJS:I \*:S$" "adb logcat of the JavaScript tag only"
expect 0 'push_to_start token 0a1b2c3d4e5f6071' "an iPhone: the relaunched app's console" -- env PATH="$stand:$PATH" "$here/capture-tokens.sh" --platform ios --device 00008110-AAAA --bundle-id com.example.droptrack.delivery
recorded '^xcrun devicectl device process launch --console --terminate-existing --device 00008110-AAAA --environment-variables \{"OS_ACTIVITY_DT_MODE": "enable"\} com\.example\.droptrack\.delivery$' \
  "devicectl --console --terminate-existing, the unified log mirrored"

echo "-- check-entitlements.sh: what codesign prints, for the app and its widget extension"
plist() { # plist [aps] [group]: an entitlements plist as codesign --xml prints it
  printf '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist version="1.0"><dict>'
  [ -z "$1" ] || printf '<key>aps-environment</key><string>%s</string>' "$1"
  [ -z "$2" ] || printf '<key>com.apple.security.application-groups</key><array>\n\t<string>%s</string>\n</array>' "$2"
  printf '</dict></plist>\n'
}
group=group.com.example.droptrack.delivery
mkdir -p Shop.app/PlugIns/DropTrackWidgetExtension.appex
plist development "$group" > Shop.app/entitlements.xml
plist "" "$group" > Shop.app/PlugIns/DropTrackWidgetExtension.appex/entitlements.xml
expect 0 'ok   Shop.app: aps-environment development.*ok   DropTrackWidgetExtension.appex: App Group' \
  "an app and its extension with aps-environment and the App Group" -- env PATH="$stand:$PATH" "$here/check-entitlements.sh" --aps development --app-group "$group" Shop.app
recorded '^codesign -d --entitlements - --xml Shop\.app.codesign -d --entitlements - --xml Shop\.app/PlugIns/DropTrackWidgetExtension\.appex$' \
  "codesign -d --entitlements - --xml on the app, then each PlugIns/*.appex"
plist "" "" > Shop.app/PlugIns/DropTrackWidgetExtension.appex/entitlements.xml
expect 1 'FAIL DropTrackWidgetExtension.appex does not carry the App Group' "an extension without the App Group fails" -- \
  env PATH="$stand:$PATH" "$here/check-entitlements.sh" --app-group "$group" Shop.app
plist "" "$group" > no-aps.xml
expect 1 'FAIL no-aps.xml has no aps-environment: ActivityKit issues no push token' "an app without aps-environment fails" -- "$here/check-entitlements.sh" --from no-aps.xml
plist production "" > production.xml
expect 1 'signed for aps-environment production, not development' "the wrong environment fails" -- "$here/check-entitlements.sh" --aps development --from production.xml
expect 2 '--aps is development or production' "a bad --aps" -- "$here/check-entitlements.sh" --aps sandbox --from production.xml
expect 2 'APP.app or --from, not both' "an app and --from" -- "$here/check-entitlements.sh" --from production.xml Shop.app
expect 3 "needs 'codesign'.*--from" "without codesign it refuses and says what works" -- env PATH="$bare" "$here/check-entitlements.sh" Shop.app
rm -f "$RECORD"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
