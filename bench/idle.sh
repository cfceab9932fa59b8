#!/usr/bin/env bash
# The idle footprint of `droptrack serve` (issue 13, target ≤ 30 MB resident): no apps, a fresh
# SQLite store, read from /proc three seconds after start. For each binary: resident set (anonymous
# and file-backed), proportional set size, threads, and the mappings holding the most resident pages.
# Binaries are measured in interleaved rounds, so noise on a shared host hits them alike; each figure
# is the median of ROUNDS.
# Usage: bench/idle.sh [ROUNDS] [BINARY...]
#   With no binaries: builds the release binary twice, linked against the toolchain's Swift runtime
#   (`swift build -c release`) and with it linked in statically as the Debian package does
#   (`-static-stdlib`, lld, packed relocations: scripts/package-deb.sh's build), and measures both.
# Each binary is measured as a fresh copy dropped from the page cache, then read back by its first
# run: a file mapping's resident pages depend on how the page cache holds the file (the kernel maps
# whole cached folios around a fault), and the same bytes measured up to 1.6 MiB apart as written
# by the linker or by `cp`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
shift || true
BINARIES=("$@")
if [ "${#BINARIES[@]}" -eq 0 ]; then
  swift build -c release --product droptrack >/dev/null
  swift build -c release --product droptrack -Xswiftc -static-stdlib -Xswiftc -use-ld=lld \
    -Xlinker -z -Xlinker pack-relative-relocs --scratch-path .build/static >/dev/null
  BINARIES=(.build/release/droptrack .build/static/release/droptrack)
fi
WORK=$(mktemp -d)
PID=
cleanup() { [ -z "$PID" ] || kill "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
COPIES=()
for index in "${!BINARIES[@]}"; do
  COPIES+=("$WORK/bin-$index-$(basename "${BINARIES[$index]}")")
  cp "${BINARIES[$index]}" "${COPIES[$index]}"
  # Out of the page cache again, so every copy is read back the way an installed binary is.
  python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' \
    "${COPIES[$index]}"
done

port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
kib() { awk -v key="$1:" '$1 == key {print $2}' "$2"; }

measure() {  # BINARY INDEX ROUND -> one line of figures in $WORK/figures.INDEX
  local binary=$1 index=$2 round=$3 store="$WORK/store-$2-$3"
  mkdir -p "$store"
  "$binary" serve --listen "127.0.0.1:$(port)" --store "sqlite:$store/droptrack.sqlite" >"$store/log" 2>&1 &
  PID=$!
  sleep 3
  kill -0 "$PID" 2>/dev/null || { echo "idle: $binary serve exited; its log:" >&2; cat "$store/log" >&2; exit 1; }
  cp "/proc/$PID/status" "$store/status"
  cp "/proc/$PID/smaps_rollup" "$store/rollup"
  awk '/^[0-9a-f]+-[0-9a-f]+ /{name=($6 == "" ? "[anonymous]" : $6)} /^Rss:/{rss[name]+=$2}
    END{for (n in rss) if (rss[n] > 0) printf "%d %s\n", rss[n], n}' "/proc/$PID/smaps" | sort -rn >"$store/mappings"
  kill "$PID"
  wait "$PID" 2>/dev/null || true
  PID=
  echo "$(kib VmRSS "$store/status") $(kib RssAnon "$store/status") $(kib RssFile "$store/status")" \
    "$(kib Pss "$store/rollup") $(kib Threads "$store/status")" >>"$WORK/figures.$index"
}

for round in $(seq 1 "$ROUNDS"); do
  for index in "${!BINARIES[@]}"; do measure "${COPIES[$index]}" "$index" "$round"; done
done

median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
mib() { awk -v k="$1" 'BEGIN{printf "%.1f", k/1024}'; }
for index in "${!BINARIES[@]}"; do
  figures="$WORK/figures.$index"
  rss=$(awk '{print $1}' "$figures" | median)
  anon=$(awk '{print $2}' "$figures" | median)
  file=$(awk '{print $3}' "$figures" | median)
  pss=$(awk '{print $4}' "$figures" | median)
  threads=$(awk '{print $5}' "$figures" | median)
  echo "${BINARIES[$index]}: resident $(mib "$rss") MiB (anonymous $(mib "$anon"), file-backed $(mib "$file")), PSS $(mib "$pss") MiB, $threads threads (median of $ROUNDS)"
  echo "  most resident mappings, last round:"
  head -8 "$WORK/store-$index-$ROUNDS/mappings" | while read -r kb name; do
    printf "    %6.1f MiB %s\n" "$(mib "$kb")" "$name"
  done
done
