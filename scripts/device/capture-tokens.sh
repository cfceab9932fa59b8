#!/usr/bin/env bash
# Follows a phone's log for DropTrack's token lines, as the handbook's loop captures tokens:
# the example app (a development build) logs each token event as
#   [DropTrack] <kind> token <fingerprint>: <status>
# DropTrack never logs a token itself (a token is a secret): the fingerprint is what the server's
# events, diagnoses and `droptrack` commands print beside the token it holds.
#
#   scripts/device/capture-tokens.sh --platform ios --device ID --bundle-id ID   (an iPhone)
#   scripts/device/capture-tokens.sh --platform ios-simulator [--device UDID]
#   scripts/device/capture-tokens.sh --platform android [--device SERIAL]
#   scripts/device/capture-tokens.sh --from FILE      (a saved log, any platform)
#
#   ios            relaunches the app with its console attached (`xcrun devicectl device process
#                  launch --console --terminate-existing`), so the launch's lines are caught; React
#                  Native logs JavaScript to the unified log, which OS_ACTIVITY_DT_MODE (as Xcode
#                  sets it) mirrors to the console
#   ios-simulator  the simulator's unified log (`xcrun simctl spawn … log stream`), React Native's
#                  subsystem (com.facebook.react.log)
#   android        `adb logcat` of React Native's JavaScript tag (ReactNativeJS)
#   --from         reads a log already captured, e.g. to pick the lines out of a CI artifact
#   --once         stops at the first token line
set -euo pipefail
# shellcheck source=scripts/device/lib.sh
. "$(dirname "$0")/lib.sh"
platform="" device="" bundle="" from="" once=0
while [ $# -gt 0 ]; do
  case "$1" in
    --platform) platform=$(value "$@"); shift 2 ;;
    --device) device=$(value "$@"); shift 2 ;;
    --bundle-id) bundle=$(value "$@"); shift 2 ;;
    --from) from=$(value "$@"); shift 2 ;;
    --once) once=1; shift ;;
    -h|--help) usage ;;
    *) usage "unknown argument $1" ;;
  esac
done
# The app's line, whatever the log puts before it (a timestamp, a tag, a process id).
pattern='\[DropTrack\] [a-z_]+ token [0-9a-f]{16}: [a-z-]+'
pick() {
  if [ "$once" -eq 1 ]; then grep --line-buffered -o -E -m 1 "$pattern"; else grep --line-buffered -o -E "$pattern"; fi
}
if [ -n "$from" ]; then
  [ -z "$platform" ] || usage "--from reads a file; leave out --platform"
  [ -f "$from" ] || usage "no file $from"
  pick < "$from" || { echo "$(basename "$0"): no DropTrack token line in $from" >&2; exit 1; }
  exit 0
fi
case "$platform" in
  ios)
    [ -n "$device" ] && [ -n "$bundle" ] || usage "--platform ios needs --device (the iPhone's CoreDevice id) and --bundle-id"
    need xcrun "install Xcode (with its command line tools) on a Mac"
    xcrun devicectl device process launch --console --terminate-existing --device "$device" \
      --environment-variables '{"OS_ACTIVITY_DT_MODE": "enable"}' "$bundle" 2>&1 | pick ;;
  ios-simulator)
    need xcrun "install Xcode (with its command line tools) on a Mac"
    xcrun simctl spawn "${device:-booted}" log stream --style compact \
      --predicate 'subsystem == "com.facebook.react.log"' 2>&1 | pick ;;
  android)
    need adb "install Android's platform-tools (apt install adb, or the Android SDK)"
    adb ${device:+-s "$device"} logcat -v brief ReactNativeJS:I '*:S' | pick ;;
  "") usage "which platform: ios, ios-simulator or android (or --from FILE)" ;;
  *) usage "unknown platform '$platform'" ;;
esac
