#!/usr/bin/env bash
# Reads the entitlements signed into a built app, and those of its widget extension, as the
# handbook checks them: without aps-environment iOS issues no push token, whatever app.json says.
#
#   scripts/device/check-entitlements.sh [--aps development|production] [--app-group GROUP] APP.app
#   scripts/device/check-entitlements.sh [--aps …] [--app-group GROUP] --from FILE.xml
#
#   APP.app      e.g. build/Build/Products/Debug-iphoneos/DropTrackDelivery.app; read with
#                `codesign -d --entitlements - --xml` (a Mac), and each PlugIns/*.appex in it
#   --from       an entitlements plist already printed (what codesign prints), for one bundle
#   --aps        the aps-environment the app must carry (default: either)
#   --app-group  an App Group the app and every extension must carry
set -euo pipefail
# shellcheck source=scripts/device/lib.sh
. "$(dirname "$0")/lib.sh"
aps="" group="" from="" app=""
while [ $# -gt 0 ]; do
  case "$1" in
    --aps) aps=$(value "$@"); shift 2 ;;
    --app-group) group=$(value "$@"); shift 2 ;;
    --from) from=$(value "$@"); shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) [ -z "$app" ] || usage "one app at a time"; app=$1; shift ;;
  esac
done
case "$aps" in ""|development|production) ;; *) usage "--aps is development or production, not '$aps'" ;; esac
[ -n "$from" ] || [ -n "$app" ] || usage "which app: APP.app or --from FILE"
[ -z "$from" ] || [ -z "$app" ] || usage "APP.app or --from, not both"
failures=0
fail() { echo "FAIL $1" >&2; failures=$((failures + 1)); }

# One bundle's entitlements checked: $1 names it, $2 is app|extension, $3 is the plist's XML.
check() {
  local name=$1 kind=$2 xml
  xml=$(printf '%s' "$3" | tr -d '\n\t ')
  local environment
  environment=$(printf '%s' "$xml" | sed -n 's/.*<key>aps-environment<\/key><string>\([a-z]*\)<\/string>.*/\1/p')
  if [ "$kind" = app ]; then
    if [ -z "$environment" ]; then
      fail "$name has no aps-environment: ActivityKit issues no push token (add the Push Notifications capability; the plugin's apsEnvironment)"
    elif [ -n "$aps" ] && [ "$environment" != "$aps" ]; then
      fail "$name is signed for aps-environment $environment, not $aps (development tokens go to the sandbox, production to production)"
    else
      echo "ok   $name: aps-environment $environment"
    fi
  fi
  if [ -n "$group" ]; then
    local groups
    groups=$(printf '%s' "$xml" | sed -n 's/.*<key>com.apple.security.application-groups<\/key><array>\(.*\)/\1/p' | sed 's/<\/array>.*//')
    if [[ "$groups" == *"<string>$group</string>"* ]]; then
      echo "ok   $name: App Group $group"
    else
      fail "$name does not carry the App Group $group (the plugin's appGroup; register it for both ids in your Apple account)"
    fi
  fi
}

if [ -n "$from" ]; then
  [ -f "$from" ] || usage "no file $from"
  check "$(basename "$from")" app "$(cat "$from")"
else
  [ -d "$app" ] || usage "no app bundle $app"
  need codesign "codesign is macOS's; on Linux give --from with what it printed on a Mac"
  # Not piped into check: its count of failures must outlive the pipeline's subshell.
  check "$(basename "$app")" app "$(codesign -d --entitlements - --xml "$app" 2> /dev/null)"
  for extension in "$app"/PlugIns/*.appex; do
    [ -d "$extension" ] || continue
    check "$(basename "$extension")" extension "$(codesign -d --entitlements - --xml "$extension" 2> /dev/null)"
  done
fi
[ "$failures" -eq 0 ] || exit 1
