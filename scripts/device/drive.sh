#!/usr/bin/env bash
# Drives the example app's development build by deep link, as the handbook's test loop does:
# droptrack://drive/start, /next or /end run the app's verbs (App.tsx, __DEV__ only) without a tap.
#
#   scripts/device/drive.sh [--platform ios|android] [--device ID] [--cold --bundle-id ID]
#                           [--package NAME] [--scheme SCHEME] start|next|end
#
#   --platform  ios (default): the simulator, `xcrun simctl openurl`; android: `adb shell am start`
#   --device    the simulator's UDID (default booted), the iPhone's CoreDevice id with --cold,
#               or the Android serial (adb -s)
#   --cold      iOS device: launch the app with the link (`xcrun devicectl device process launch
#               --payload-url`); the app reads it from Linking.getInitialURL, not as a 'url' event
#   --bundle-id the app's bundle id, for --cold
#   --package   Android: the app's package (default com.example.droptrack.delivery)
#   --scheme    the app's URL scheme (default droptrack, app.json's "scheme")
set -euo pipefail
# shellcheck source=scripts/device/lib.sh
. "$(dirname "$0")/lib.sh"
platform=ios device="" cold=0 bundle="" package=com.example.droptrack.delivery scheme=droptrack verb=""
while [ $# -gt 0 ]; do
  case "$1" in
    --platform) platform=$(value "$@"); shift 2 ;;
    --device) device=$(value "$@"); shift 2 ;;
    --cold) cold=1; shift ;;
    --bundle-id) bundle=$(value "$@"); shift 2 ;;
    --package) package=$(value "$@"); shift 2 ;;
    --scheme) scheme=$(value "$@"); shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) [ -z "$verb" ] || usage "one verb at a time"; verb=$1; shift ;;
  esac
done
case "$verb" in
  start|next|end) ;;
  "") usage "which verb: start, next or end" ;;
  *) usage "unknown verb '$verb': the app answers start, next and end" ;;
esac
[[ "$scheme" =~ ^[A-Za-z][A-Za-z0-9+.-]*$ ]] || usage "'$scheme' is not a URL scheme"
url="$scheme://drive/$verb"
case "$platform" in
  ios)
    need xcrun "install Xcode (with its command line tools) on a Mac"
    if [ "$cold" -eq 1 ]; then
      [ -n "$device" ] && [ -n "$bundle" ] || usage "--cold needs --device (the iPhone) and --bundle-id"
      xcrun devicectl device process launch --device "$device" --terminate-existing --payload-url "$url" "$bundle"
    else
      xcrun simctl openurl "${device:-booted}" "$url"
    fi ;;
  android)
    [ "$cold" -eq 0 ] || usage "--cold is for iOS devices; on Android \`am start\` starts the app if it is not running"
    need adb "install Android's platform-tools (apt install adb, or the Android SDK)"
    adb ${device:+-s "$device"} shell am start -W -a android.intent.action.VIEW -d "$url" "$package" ;;
  *) usage "unknown platform '$platform': ios or android" ;;
esac
echo "sent $url"
