#!/usr/bin/env bash
# A broadcast to N simulated iOS 18 subscribers (default 100k): the server, the APNs emulator and the
# devices in one process. Prints the requests sent (expected: 1 broadcast, 0 per-token), the time
# to accept the event, and the time until the last simulated device shows the new state.
# Usage: bench/broadcast.sh [N] [ROUNDS]        (defaults 100000 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-3}
./scripts/install-deps.sh >/dev/null
swift build -c release >/dev/null
for round in $(seq "$ROUNDS"); do
  echo "round $round of $ROUNDS"
  out=$(.build/release/droptrack-dev bench broadcast -n "$N")
  echo "$out" | sed 's/^/  /'
  grep -q "^broadcast_requests=1$" <<<"$out" || { echo "expected exactly one broadcast request" >&2; exit 1; }
  grep -q "^devices_showing_new_state=$N$" <<<"$out" || { echo "not every device shows the new state" >&2; exit 1; }
done
