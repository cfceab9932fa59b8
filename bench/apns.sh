#!/usr/bin/env bash
# APNs speed, measured against references in the same run:
#   1. the emulator under h2load, against nghttpd under h2load     (target ≥ 0.8×)
#   2. `droptrack-dev bench apns` against h2load, on the same server    (target ≥ 0.5×)
#   3. `droptrack-dev bench apns` against aioapns, on the same emulator (target ≥ 10×)
# Each figure is the median of ROUNDS rounds, rounds interleaved so noise hits all sides alike.
# Usage: bench/apns.sh [N] [ROUNDS]        (defaults 200000 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200000}
ROUNDS=${2:-3}
CONCURRENCY=100
./scripts/install-deps.sh >/dev/null
swift build -c release >/dev/null
BIN=.build/release/droptrack
DEV=.build/release/droptrack-dev   # the emulators, development keys and the bench client
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

"$DEV" keys dev --out "$WORK/keys" >/dev/null
KID=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['keyId'])" "$WORK/keys/apns/apns.json")
TID=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['teamId'])" "$WORK/keys/apns/apns.json")
BUNDLE=com.droptrack.demo
KEY="$WORK/keys/apns/AuthKey_$KID.p8"
# h2load keeps up to 100 streams open from the start; a real client waits for the first answer.
echo '{"faults":[],"oneStreamUntilValidToken":false}' > "$WORK/faults.json"
"$DEV" emulate apns --listen 127.0.0.1:0 --auth-key-pub "$WORK/keys/apns/AuthKey_$KID.pub.pem" --key-id "$KID" \
  --team-id "$TID" --bundle-id "$BUNDLE" --tls-cert "$WORK/keys/server.pem" --tls-key "$WORK/keys/server-key.pem" \
  --faults "$WORK/faults.json" > "$WORK/emulator.log" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do grep -q 'listening on' "$WORK/emulator.log" 2>/dev/null && break; sleep 0.1; done
EMULATOR_PORT=$(grep -oE '127.0.0.1:[0-9]+' "$WORK/emulator.log" | head -1 | cut -d: -f2)
mkdir -p "$WORK/docroot"
# A port the kernel just handed out and released, not the emulator's + 1 (which may be taken); then
# wait until nghttpd answers, and stop if it died (a bench against nothing would print nonsense).
NGHTTPD_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
nghttpd --address=127.0.0.1 -d "$WORK/docroot" "$NGHTTPD_PORT" "$WORK/keys/server-key.pem" "$WORK/keys/server.pem" \
  >"$WORK/nghttpd.log" 2>&1 &
NGHTTPD_PID=$!
PIDS+=($NGHTTPD_PID)
for _ in $(seq 100); do
  kill -0 "$NGHTTPD_PID" 2>/dev/null || { echo "nghttpd exited: $(cat "$WORK/nghttpd.log")" >&2; exit 1; }
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$NGHTTPD_PORT" \
    2>/dev/null && break
  sleep 0.1
done
python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$NGHTTPD_PORT" \
  || { echo "nghttpd is not answering on 127.0.0.1:$NGHTTPD_PORT" >&2; exit 1; }

JWT=$("$BIN" keys apns-token --key "$KEY" --key-id "$KID" --team-id "$TID")
NOW=$(date +%s)
printf '{"aps":{"event":"update","timestamp":%s,"content-state":{"status":"On the way","progress":0.7142857142857143,"eta":%s,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}}}' \
  "$NOW" $((NOW - 978307200 + 720)) > "$WORK/payload.json"
TOKEN=$(printf '%064x' 42)

# $2 is the status class every answer must have (2xx from the emulator, 4xx from nghttpd's 404).
h2load_rate() {
  local out
  out=$(h2load -n "$N" -c 1 -m "$CONCURRENCY" -d "$WORK/payload.json" -H "authorization: bearer $JWT" \
    -H "apns-topic: $BUNDLE.push-type.liveactivity" -H "apns-push-type: liveactivity" -H "apns-priority: 5" \
    "https://127.0.0.1:$1/3/device/$TOKEN" 2>/dev/null)
  if ! grep -q "status codes: .*$N $2" <<<"$out"; then
    echo "h2load against port $1 did not get $N answers of $2:" >&2
    echo "$out" | grep -E 'requests:|status codes' >&2
    exit 1
  fi
  echo "$out" | awk '/finished in/ {print int($4)}'
}
# $2 is the status every answer must have (200 from the emulator, 404 from nghttpd).
client_rate() {
  local out
  out=$("$DEV" bench apns --host "127.0.0.1:$1" --ca-file "$WORK/keys/ca.pem" -n "$N" --concurrency "$CONCURRENCY" \
    --key "$KEY" --key-id "$KID" --team-id "$TID" --bundle-id "$BUNDLE" 2>/dev/null)
  if ! grep -q "^statuses=$2:$N\$" <<<"$out"; then
    echo "droptrack-dev bench against port $1 did not get $N answers of $2: $(echo "$out" | grep statuses)" >&2
    exit 1
  fi
  echo "$out" | awk -F= '/pushes_per_second/ {print $2}'
}
aioapns_rate() {
  .venv/bin/python bench/aioapns_rate.py 127.0.0.1 "$EMULATOR_PORT" "$WORK/keys/ca.pem" "$KEY" "$KID" "$TID" "$BUNDLE" \
    $((N / 10)) "$CONCURRENCY" 2>/dev/null | awk -F= '/pushes_per_second/ {print $2}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A results
measure() {
  local key=$1 value
  shift
  value=$("$@") || true
  if [ -z "$value" ]; then echo "bench/apns.sh: $key failed; no figure" >&2; exit 1; fi
  results[$key]+="$value "
}
for round in $(seq "$ROUNDS"); do
  measure h2_nghttpd h2load_rate "$NGHTTPD_PORT" 4xx
  measure h2_emulator h2load_rate "$EMULATOR_PORT" 2xx
  measure client_emulator client_rate "$EMULATOR_PORT" 200
  measure client_nghttpd client_rate "$NGHTTPD_PORT" 404
  measure aioapns_emulator aioapns_rate
  echo "round $round of $ROUNDS done" >&2
done
declare -A med
for key in "${!results[@]}"; do med[$key]=$(echo "${results[$key]}" | tr ' ' '\n' | grep -v '^$' | median); done
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
echo "APNs throughput, pushes/s, median of $ROUNDS rounds of $N (aioapns: $((N / 10))), $CONCURRENCY in flight, one connection"
printf '  %-42s %10s   rounds: %s\n' "h2load -> nghttpd" "${med[h2_nghttpd]}" "${results[h2_nghttpd]}"
printf '  %-42s %10s   rounds: %s\n' "h2load -> droptrack-dev emulate apns" "${med[h2_emulator]}" "${results[h2_emulator]}"
printf '  %-42s %10s   rounds: %s\n' "droptrack-dev bench apns -> emulator" "${med[client_emulator]}" "${results[client_emulator]}"
printf '  %-42s %10s   rounds: %s\n' "droptrack-dev bench apns -> nghttpd" "${med[client_nghttpd]}" "${results[client_nghttpd]}"
printf '  %-42s %10s   rounds: %s\n' "aioapns -> emulator" "${med[aioapns_emulator]}" "${results[aioapns_emulator]}"
echo "ratios:"
echo "  emulator vs nghttpd under h2load:        $(ratio "${med[h2_emulator]}" "${med[h2_nghttpd]}")   (target >= 0.8)"
echo "  client vs h2load, same server (emulator): $(ratio "${med[client_emulator]}" "${med[h2_emulator]}")   (target >= 0.5)"
echo "  client vs h2load, same server (nghttpd):  $(ratio "${med[client_nghttpd]}" "${med[h2_nghttpd]}")   (target >= 0.5)"
echo "  client vs aioapns, same emulator:         $(ratio "${med[client_emulator]}" "${med[aioapns_emulator]}")   (target >= 10)"
