#!/usr/bin/env bash
# Every test DropTrack has, on a fresh Debian 12 machine with the Swift toolchain:
#   1. installs what is needed (scripts/install-deps.sh, idempotent) and starts a throwaway PostgreSQL
#      on 127.0.0.1 (scripts/postgres.sh, idempotent);
#   2. checks formatting (swift format) and builds everything with warnings as errors;
#   3. runs the Swift test suite (unit, integration over real TLS h2 on loopback, CLI), with the store
#      tests on PostgreSQL too (required: an unreachable server fails them), then the PostgreSQL store
#      across a server restart, in a run of its own since the restart drops every connection;
#   4. compiles the Android library (clients/android) with kotlinc against look-alikes of the
#      published interfaces, checks its API levels (lint's NewApi rule) and its Gradle module files,
#      and runs its JUnit tests, the registration client against a real `droptrack serve`; then
#      type-checks and builds the Expo module (clients/expo) with tsc, runs its tests with node
#      --test, checks its package files (expo-module.config.json against its schema) and its Kotlin
#      side, and type-checks the example app (examples/expo-delivery) and runs its dev backend, and checks
#      the device scripts (scripts/device) without a phone; tests the
#      backend SDKs (clients/python installed with pip, clients/node built with tsc and run with node --test):
#      their retry rules against a scripted server, and their calls, device credentials and webhook
#      verification against a real `droptrack serve` (checks/sdk_server.py); checks the
#      look-alikes' APIs against their lists, evaluates the podspecs with Ruby, and, given an iOS SDK
#      (DROPTRACK_IOS_SDK), type-checks the iOS client code against it and compares the look-alikes with it;
#   5. runs the independent checks with clients nobody here wrote (PyJWT, aioapns, firebase-admin,
#      and bash plus curl for the doctor's reading of curl lines), sends webhooks to hostile receivers
#      (a gzip bomb, a 400 MB answer, redirects, silence) while another app's arrive within 2 s and the
#      server's memory stays flat, then runs the shell examples of README.md and every docs/ page as
#      written and checks their other blocks and links (checks/readme_examples.py), checks that the
#      generated reference pages (HTTP API, CLI, configuration) match the code (checks/docs_reference.py),
#      builds and inspects the Debian package (checks/package_deb.py), and
#      builds the container image and runs it with podman against the emulators (checks/container.py);
#   6. checks the HTTP API against its OpenAPI document (openapi-spec-validator, schemathesis), fuzzes every
#      place a caller's value reaches the server with the app schemas in hand (checks/schema_fuzz.py),
#      kill -9s the server in the middle of a fan-out to prove nothing is lost or sent twice, and
#      resets APNs connections during a start and takes APNs away for 150 s (no start twice, no
#      dead letter, flat memory), fills the SQLite store's disk (/readyz 503 until space is freed), sends SIGHUP
#      mid fan-out (a drain, no start in doubt), jumps the server's clock an hour both ways under
#      libfaketime (every accepted update arrives), and soaks it for 40 s with abusive clients (made-up methods, a
#      slowloris, one key flooding event streams) while another key's p99 stays under 100 ms;
#   7. drives the demo's dashboard in headless Chromium (screenshot in .build/artifacts/);
#   8. runs three replicas on one PostgreSQL database through a 20k-token fan-out, kill -9s one, and
#      checks every device ends on its activity's final state with no start sent twice.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

echo "== PostgreSQL for the store tests"
postgres_url=$(./scripts/postgres.sh | tail -1)
case "$postgres_url" in
  DROPTRACK_TEST_POSTGRES_URL=postgres://*) export "$postgres_url" ;;
  *) echo "scripts/postgres.sh did not print DROPTRACK_TEST_POSTGRES_URL=…" >&2; exit 1 ;;
esac
export DROPTRACK_TEST_REQUIRE_POSTGRES=1

echo "== swift format lint"
swift format lint --strict --recursive Sources Tests clients/expo/ios Package.swift

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== swift test"
# The client libraries' suites run apart: they are async all the way down, while many server suites
# block their thread on sockets, and Swift Testing runs both on the one concurrency pool (a thread
# per core), so in one run the async suites could starve for tens of seconds behind the blocking ones.
client_suites="LiveTests|ExpoModuleTests|DemoStackTests"
swift test --skip-build --skip "$client_suites"

echo "== swift test: the client libraries (DropTrackLive, the Expo module's iOS side, the demo's iPhone app)"
# One at a time: in parallel they block each other's pool threads the same way (15 s in all, serially).
swift test --skip-build --no-parallel --filter "$client_suites"

echo "== the PostgreSQL store across a server restart"
DROPTRACK_TEST_POSTGRES_RESTART_COMMAND="scripts/postgres.sh restart" \
  swift test --skip-build --filter PostgresRestartTests

echo "== Android library (Kotlin, JUnit)"
clients/android/test.sh .build/debug/droptrack

echo "== Expo module (tsc, the build, node --test, package files, Kotlin)"
clients/expo/test.sh

echo "== the Expo example app (tsc, app.json through the plugin, its dev backend against droptrack serve)"
timeout 300 examples/expo-delivery/check.sh .build/debug/droptrack

echo "== the device scripts (scripts/device: their arguments, their refusal without Xcode or adb, a real push dry run)"
timeout 120 scripts/device/check.sh .build/debug/droptrack

echo "== the backend SDKs (clients/python, clients/node) against droptrack serve and the emulators"
timeout 300 clients/python/test.sh .build/debug/droptrack
timeout 300 clients/node/test.sh .build/debug/droptrack

echo "== the iOS client's packaging: look-alike APIs, podspecs, and a type-check against an iOS SDK if one is given"
# The look-alikes against their lists (Tests/LookalikeAPI/*.api); with DROPTRACK_IOS_SDK, also against Apple's
# interfaces (the differences are printed), and the client code type-checked for iOS against that SDK.
timeout 300 .venv/bin/python checks/lookalike_api.py ${DROPTRACK_IOS_SDK:+--real "$DROPTRACK_IOS_SDK"}
timeout 120 ruby checks/podspecs.rb
timeout 1800 .venv/bin/python checks/ios_typecheck.py

echo "== independent checks"
.venv/bin/python checks/apns_independent.py .build/debug/droptrack
.venv/bin/python -W ignore checks/fcm_independent.py .build/debug/droptrack
.venv/bin/python checks/doctor_independent.py .build/debug/droptrack
timeout 300 .venv/bin/python checks/webhook_independent.py .build/debug/droptrack
timeout 300 .venv/bin/python checks/webhook_abuse.py .build/debug/droptrack

echo "== the examples of README.md and docs/, run as written, and their links"
timeout 420 .venv/bin/python checks/readme_examples.py .build/debug/droptrack

echo "== the generated reference pages are current (docs/reference: HTTP API, CLI, configuration)"
timeout 120 .venv/bin/python checks/docs_reference.py .build/debug/droptrack

echo "== the Debian package (scripts/package-deb.sh on the debug binary, systemd-analyze verify)"
timeout 300 .venv/bin/python checks/package_deb.py .build/debug/droptrack

echo "== the container image (scripts/package-oci.sh with buildah, run with podman)"
timeout 600 .venv/bin/python checks/container.py .build/debug/droptrack

echo "== the server as a black box"
timeout 900 .venv/bin/python checks/api_conformance.py .build/debug/droptrack
timeout 600 .venv/bin/python checks/schema_fuzz.py .build/debug/droptrack
timeout 900 .venv/bin/python checks/crash_fanout.py .build/debug/droptrack 10000
timeout 900 .venv/bin/python checks/transport_faults.py .build/debug/droptrack 150
timeout 300 .venv/bin/python checks/full_disk.py .build/debug/droptrack
timeout 300 .venv/bin/python checks/sighup_fanout.py .build/debug/droptrack 2000
timeout 300 .venv/bin/python checks/clock_jump.py .build/debug/droptrack 8
timeout 300 .venv/bin/python checks/soak.py .build/debug/droptrack 40
timeout 300 .venv/bin/python checks/dashboard_browser.py .build/debug/droptrack
timeout 300 .venv/bin/python checks/console_browser.py .build/debug/droptrack
timeout 1200 .venv/bin/python checks/replicas.py .build/debug/droptrack 1000 20

echo "== all tests passed"
