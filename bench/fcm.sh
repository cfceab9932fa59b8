#!/usr/bin/env bash
# FCM speed against a reference measured in the same run: `droptrack-dev bench fcm` and firebase-admin
# (send_each_async, HTTP/2) against the same FCM emulator. Medians of ROUNDS interleaved rounds.
# Usage: bench/fcm.sh [N] [ROUNDS]        (defaults 20000 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
ROUNDS=${2:-3}
./scripts/install-deps.sh >/dev/null
swift build -c release >/dev/null
BIN=.build/release/droptrack
DEV=.build/release/droptrack-dev   # the emulators, development keys and the bench client
WORK=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$DEV" keys dev --out "$WORK/keys" --fcm-token-uri "https://localhost:$PORT/token" >/dev/null
PROJECT=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['project_id'])" "$WORK/keys/fcm/service-account.json")
"$DEV" emulate fcm --listen "127.0.0.1:$PORT" --project "$PROJECT" --service-account-pub "$WORK/keys/fcm/service-account.pub.pem" \
  --tls-cert "$WORK/keys/server.pem" --tls-key "$WORK/keys/server-key.pem" --accept-unknown-tokens > "$WORK/emulator.log" 2>&1 &
PID=$!
for _ in $(seq 50); do grep -q 'listening on' "$WORK/emulator.log" && break; sleep 0.1; done

ours=""; theirs=""
for round in $(seq "$ROUNDS"); do
  value=$("$DEV" bench fcm --service-account "$WORK/keys/fcm/service-account.json" --base-url "https://localhost:$PORT" \
    --ca-file "$WORK/keys/ca.pem" -n "$N" --concurrency 100 2>/dev/null | awk -F= '/sends_per_second/ {print $2}')
  [ -n "$value" ] || { echo "droptrack-dev bench fcm failed" >&2; exit 1; }
  ours+="$value "
  value=$(.venv/bin/python -W ignore bench/fcm_admin_rate.py "$WORK/keys/fcm/service-account.json" "https://localhost:$PORT" \
    "$WORK/keys/ca.pem" $((N / 4)) 2>/dev/null | awk -F= '/sends_per_second/ {print $2}')
  [ -n "$value" ] || { echo "firebase-admin bench failed" >&2; exit 1; }
  theirs+="$value "
  echo "round $round of $ROUNDS done" >&2
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m_ours=$(echo "$ours" | median); m_theirs=$(echo "$theirs" | median)
echo "FCM sends/s against droptrack-dev emulate fcm, median of $ROUNDS rounds"
printf '  %-48s %8s   rounds: %s\n' "droptrack-dev bench fcm ($N, 100 in flight, 1 connection)" "$m_ours" "$ours"
printf '  %-48s %8s   rounds: %s\n' "firebase-admin send_each_async ($((N / 4)), batches of 500)" "$m_theirs" "$theirs"
echo "ratio droptrack / firebase-admin: $(python3 -c "print(f'{$m_ours/$m_theirs:.1f}')")"
