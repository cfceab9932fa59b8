#!/usr/bin/env bash
# Sends a push that `droptrack push apns --dry-run` printed to an iOS simulator with
# `xcrun simctl push` (a Mac with Xcode): the body becomes a .apns file whose
# "Simulator Target Bundle" is the bundle id taken from the dry run's apns-topic.
#
#   scripts/device/sim-push.sh [--device UDID|booted] [--bundle-id ID] [--print] [FILE|-]
#
#   FILE         the dry run's output (default: standard input), e.g.
#                droptrack push apns --dry-run … > push.txt
#   --device     the simulator (default: booted, the one running)
#   --bundle-id  the app, when it is not the topic's (e.g. a push built for another bundle)
#   --print      print the .apns file and stop (no Xcode needed)
set -euo pipefail
# shellcheck source=scripts/device/lib.sh
. "$(dirname "$0")/lib.sh"
device=booted bundle="" print=0 input=-
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=$(value "$@"); shift 2 ;;
    --bundle-id) bundle=$(value "$@"); shift 2 ;;
    --print) print=1; shift ;;
    -h|--help) usage ;;
    -) input=-; shift ;;
    -*) usage "unknown option $1" ;;
    *) input=$1; shift ;;
  esac
done
if [ "$input" = - ]; then dry_run=$(cat); else
  [ -f "$input" ] || usage "no file $input"
  dry_run=$(cat "$input")
fi
# The dry run prints the request's headers, an empty line, then the body on one line.
topic=$(printf '%s\n' "$dry_run" | sed -n 's/^apns-topic: *//p' | head -1)
push_type=$(printf '%s\n' "$dry_run" | sed -n 's/^apns-push-type: *//p' | head -1)
body=$(printf '%s\n' "$dry_run" | sed -n '/^$/,$p' | sed '/^$/d' | head -1)
case "$body" in
  '{"aps":{'*'}') ;;
  *) echo "$(basename "$0"): no APNs body in the input: give it what \`droptrack push apns … --dry-run\` printed" >&2; exit 1 ;;
esac
if [ "$push_type" != liveactivity ]; then
  echo "$(basename "$0"): the push type is '${push_type:-none}', not liveactivity: this is not a Live Activity push" >&2
  exit 1
fi
[ -n "$bundle" ] || bundle=${topic%.push-type.liveactivity}
[ -n "$bundle" ] || { echo "$(basename "$0"): no apns-topic in the input; give --bundle-id" >&2; exit 1; }
apns="{\"Simulator Target Bundle\":\"$bundle\",${body#\{}"
if [ "$print" -eq 1 ]; then printf '%s\n' "$apns"; exit 0; fi
need xcrun "install Xcode (with its command line tools) on a Mac; --print shows the .apns file anywhere"
file=$(mktemp "${TMPDIR:-/tmp}/droptrack-push.XXXXXX.apns")
trap 'rm -f "$file"' EXIT
printf '%s\n' "$apns" > "$file"
xcrun simctl push "$device" "$bundle" "$file"
