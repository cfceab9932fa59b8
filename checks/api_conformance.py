#!/usr/bin/env python3
"""The HTTP API against its own OpenAPI document, with tools nobody here wrote.

1. openapi-spec-validator checks Sources/DropTrackAPI/openapi.json is valid OpenAPI 3.1, and the
   running server serves exactly that file at /openapi.json.
2. schemathesis runs every phase (examples, coverage, fuzzing, stateful) against `droptrack serve`
   wired to the APNs and FCM emulators: no 5xx, every status and body as documented, schema-valid
   requests accepted, schema-violating ones refused, and no key means 401. Bounded in examples and time.

Usage: api_conformance.py PATH/TO/droptrack [MAX_EXAMPLES]
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENT = os.path.join(ROOT, "Sources/DropTrackAPI/openapi.json")
VENV = os.path.join(ROOT, ".venv/bin")
DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
EXAMPLES = sys.argv[2] if len(sys.argv) > 2 else "40"
failures = []


def check(condition, message):
    print(f"  {'ok  ' if condition else 'FAIL'} {message}")
    if not condition:
        failures.append(message)


print("openapi-spec-validator")
result = subprocess.run([f"{VENV}/openapi-spec-validator", DOCUMENT], capture_output=True, text=True)
check(result.returncode == 0, f"the document is valid OpenAPI 3.1 ({result.stdout.strip() or result.stderr.strip()})")

with Stack(DROPTRACK, apps=("app1", "app2")) as stack:
    status, served, _ = stack.api("GET", "/openapi.json")
    with open(DOCUMENT, "rb") as f:
        check(status == 200 and served == json.load(f), "/openapi.json serves the repository's file")
    # The documented example activity exists, so the examples phase reaches past 404.
    status, _, _ = stack.api("POST", "/v1/activities", {
        "activityId": "order-1042", "userId": "user-42", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "A-1042"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
        "alert": {"title": "Order placed"}, "idempotencyKey": "seed-order-1042"})
    check(status == 201, "the example activity is started")

    print(f"schemathesis ({EXAMPLES} examples per operation, every phase)")
    started = time.time()
    run = subprocess.run(
        [f"{VENV}/st", "--config-file", os.path.join(ROOT, "checks/schemathesis.toml"), "run", DOCUMENT,
         "--url", stack.base, "-H", f"Authorization: Bearer {stack.keys['app1']}",
         "--max-examples", EXAMPLES, "--exclude-path", "/v1/events", "--request-timeout", "15",
         "--no-color", "--seed", "20261130"],
        capture_output=True, text=True, timeout=600)
    summary = run.stdout[run.stdout.rfind("SUMMARY"):] if "SUMMARY" in run.stdout else run.stdout[-3000:]
    print("\n".join("    " + line for line in summary.splitlines() if line.strip()))
    check(run.returncode == 0, f"schemathesis found no failure ({time.time() - started:.0f} s)")
    if run.returncode != 0:
        # Generated bodies can be huge: show every line of the failure report, each cut short.
        report = run.stdout[run.stdout.find("FAILURES"):] if "FAILURES" in run.stdout else run.stdout[-20000:]
        print("\n".join(line if len(line) <= 400 else line[:400] + f" … ({len(line)} characters)"
                        for line in report.splitlines()[:400]))
        print(run.stderr[-3000:])
    server_log = open(f"{stack.work}/server.log").read()
    check('"level":"error"' not in server_log, "the server logged no error")
    check(all(key not in server_log for key in stack.keys.values()), "no API key appears in the server log")

if failures:
    print(f"{len(failures)} API conformance check(s) failed")
    sys.exit(1)
print("API conformance: all checks passed")
