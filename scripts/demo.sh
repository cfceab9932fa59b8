#!/usr/bin/env bash
# The main job, on a fresh Debian 12 machine with the Swift toolchain: installs what building needs
# (the C libraries droptrack links; not the test tools, see scripts/install-deps.sh), builds droptrack,
# and runs `droptrack-dev demo`: the server, the APNs and FCM emulators, a simulated iPhone and a simulated
# Android phone, and the dashboard. Open the URL it prints; Ctrl-C stops it.
# Options pass through, e.g. scripts/demo.sh --listen 127.0.0.1:9000 --data ./demo-data
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh --build
echo "building droptrack (release; the first build takes a few minutes)…"
swift build -c release 2>&1 | grep -E "error|warning: |Build complete" | tail -3
exec .build/release/droptrack-dev demo "$@"
