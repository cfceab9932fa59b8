#!/usr/bin/env bash
# A tour of the low-level CLI (the README's demo is scripts/demo.sh): installs what is needed,
# builds droptrack, starts the local APNs emulator with development keys made on the spot, and
# sends a Live Activity through its whole life to it with `droptrack push apns`: push-to-start, updates, a rider
# reassignment, the end, and one deliberately broken push to show what the emulator catches.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build -c release 2>&1 | grep -E "error|warning: |Compiling|Build complete" | tail -3
BIN=.build/release/droptrack
DEV=.build/release/droptrack-dev   # the emulators, development keys and the bench client
WORK=$(mktemp -d)
EMULATOR_PID=""
FCM_PID=""
cleanup() { for pid in $EMULATOR_PID $FCM_PID; do kill "$pid" 2>/dev/null; done; rm -rf "$WORK"; }
trap cleanup EXIT

FCM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$DEV" keys dev --out "$WORK/keys" --fcm-token-uri "https://localhost:$FCM_PORT/token" | head -7
KID=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['keyId'])" "$WORK/keys/apns/apns.json")
TID=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['teamId'])" "$WORK/keys/apns/apns.json")
"$DEV" emulate apns --listen 127.0.0.1:0 --auth-key-pub "$WORK/keys/apns/AuthKey_$KID.pub.pem" --key-id "$KID" \
  --team-id "$TID" --bundle-id com.droptrack.demo --tls-cert "$WORK/keys/server.pem" \
  --tls-key "$WORK/keys/server-key.pem" > "$WORK/emulator.log" 2>&1 &
EMULATOR_PID=$!
for _ in $(seq 50); do grep -q 'listening on' "$WORK/emulator.log" && break; sleep 0.1; done
HOST=$(grep -oE '127.0.0.1:[0-9]+' "$WORK/emulator.log" | head -1)
echo; echo "APNs emulator on $HOST"

export DROPTRACK_APNS_KEY="$WORK/keys/apns/AuthKey_$KID.p8" DROPTRACK_APNS_KEY_ID="$KID" DROPTRACK_APNS_TEAM_ID="$TID"
export DROPTRACK_APNS_BUNDLE_ID=com.droptrack.demo DROPTRACK_APNS_HOST="$HOST" DROPTRACK_APNS_CA_FILE="$WORK/keys/ca.pem"
START_TOKEN=$(openssl rand -hex 32)
UPDATE_TOKEN=$(openssl rand -hex 80)
# Tell the emulator which ActivityAttributes type the token belongs to, as the simulated phone
# would, so it can decode content-state exactly as ActivityKit does.
curl -s --cacert "$WORK/keys/ca.pem" -X POST "https://$HOST/_emulator/tokens" \
  -d "{\"token\":\"$UPDATE_TOKEN\",\"environment\":\"sandbox\",\"attributesType\":\"DeliveryAttributes\"}"
NOW=$(date +%s)
state() {  # status progress stops courier reassigned minutes
  printf '{"status":"%s","progress":%s,"etaEpochMillis":%s,"stopsRemaining":%s,"courierName":"%s","riderReassigned":%s}' \
    "$1" "$2" $(( (NOW + $6 * 60) * 1000 )) "$3" "$4" "$5"
}
# Tokens are secrets: the echoed command shows a fingerprint-style stand-in.
step() { echo; echo "\$ droptrack push apns $*" | sed -E 's/[0-9a-f]{64,}/<token>/g' | cut -c1-150; "$BIN" push apns "$@"; }

step --token "$START_TOKEN" --event start --attributes '{"orderId":"A-1042"}' --alert-title "Order A-1042 placed" \
  --alert-body "Sam is on it" --state "$(state 'Order placed' 0.142857 3 Sam false 45)" --timestamp "$NOW"
step --token "$UPDATE_TOKEN" --event update --state "$(state 'Picked up' 0.571428 3 Sam false 20)" --timestamp $((NOW + 1))
step --token "$UPDATE_TOKEN" --event update --state "$(state 'On the way' 0.714285 2 Priya true 12)" \
  --alert-title "New courier" --alert-body "Priya is now delivering your order" --timestamp $((NOW + 2))
step --token "$UPDATE_TOKEN" --event end --state "$(state 'Delivered' 1 0 Priya true 0)" --timestamp $((NOW + 3)) \
  --dismissal-date $((NOW + 3600))
echo; echo "A broken push: the eta in Unix seconds instead of seconds since 2001. APNs says 200; the phone would show a date 31 years ahead."
step --token "$UPDATE_TOKEN" --event update --timestamp $((NOW + 4)) \
  --state "{\"status\":\"Late\",\"progress\":1,\"eta\":$NOW,\"stopsRemaining\":0,\"courierName\":\"Priya\",\"riderReassigned\":true}"

echo; echo "What the emulator recorded for the update token (lint findings are the silent failures APNs never reports):"
curl -s --cacert "$WORK/keys/ca.pem" "https://$HOST/_emulator/records?token=$UPDATE_TOKEN" | python3 -c '
import json, sys
for record in json.load(sys.stdin)["records"]:
    state = record.get("payload", {}).get("aps", {}).get("content-state", {})
    print("  #%s %s %-6s %r" % (record["sequence"], record["status"], record.get("event"), state.get("status")))
    for finding in record["findings"]:
        print("      %s %s" % (finding["trap"], finding["message"]))
        print("      fix: %s" % finding["fix"])
'

echo; echo "The same delivery on Android: an FCM data message (every value a string) to the local FCM."
"$DEV" emulate fcm --listen "127.0.0.1:$FCM_PORT" --project droptrack-demo \
  --service-account-pub "$WORK/keys/fcm/service-account.pub.pem" --tls-cert "$WORK/keys/server.pem" \
  --tls-key "$WORK/keys/server-key.pem" > "$WORK/fcm.log" 2>&1 &
FCM_PID=$!
for _ in $(seq 50); do grep -q 'listening on' "$WORK/fcm.log" && break; sleep 0.1; done
FCM_TOKEN="demo-android:APA91b$(openssl rand -hex 40)"
curl -s --cacert "$WORK/keys/ca.pem" -X POST "https://localhost:$FCM_PORT/_emulator/tokens" -d "{\"token\":\"$FCM_TOKEN\"}"
export DROPTRACK_FCM_SERVICE_ACCOUNT="$WORK/keys/fcm/service-account.json" DROPTRACK_FCM_BASE_URL="https://localhost:$FCM_PORT"
export DROPTRACK_FCM_CA_FILE="$WORK/keys/ca.pem"
echo "\$ droptrack push fcm --token <token> --event update --activity-id act-A-1042 --order-id A-1042 --state …"
"$BIN" push fcm --token "$FCM_TOKEN" --event update --activity-id act-A-1042 --order-id A-1042 \
  --state "$(state 'On the way' 0.714285 2 Priya true 12)" --ttl 60
echo; echo "A broken one: a key FCM reserves. It is refused before sending, naming the field:"
echo "\$ droptrack push fcm --token <token> --data '{\"progress\":\"0.9\",\"google.sent_time\":\"1\"}'"
"$BIN" push fcm --token "$FCM_TOKEN" --data '{"progress":"0.9","google.sent_time":"1"}' || true
