#!/usr/bin/env python3
"""The server's wall clock jumps an hour forward, then back, during a stream of updates: every update
the API accepted arrives at APNs.

`droptrack serve` runs under libfaketime with a control file (FAKETIME_TIMESTAMP_FILE, re-read on every
call with FAKETIME_NO_CACHE=1), so the offset changes while it runs; FAKETIME_DONT_FAKE_MONOTONIC=1
leaves CLOCK_MONOTONIC (Swift's ContinuousClock) alone, as a real clock step does. The APNs emulator
runs apart, on the real clock, so it judges the provider token's iat as APNs would. The offsets go
0, +1 h, 0, -1 h: three jumps. Before the fix the provider token was aged by the wall clock, so the
jumps made new tokens on a connection that had one: TooManyProviderTokenUpdates and then
ExpiredProviderToken until dead-lettered (9 of 12 accepted updates never arrived).

Usage: clock_jump.py PATH/TO/droptrack [UPDATES_PER_PHASE]
"""
import json
import os
import secrets
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
PER_PHASE = int(sys.argv[2]) if len(sys.argv) > 2 else 8
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
ACTIVITY = "order-clock"
PHASES = [("the real time", "+0"), ("an hour ahead", "+3600"), ("the real time again", "+0"),
          ("an hour behind", "-3600")]
DEADLINE = 8.0

if not os.path.exists(LIBFAKETIME):
    sys.exit(f"FAIL {LIBFAKETIME} is missing: apt-get install faketime (scripts/install-deps.sh installs it)")

control = f"/tmp/droptrack-faketime-{os.getpid()}"
with open(control, "w") as f:
    f.write("+0\n")
server_env = {
    "LD_PRELOAD": LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": control, "FAKETIME_NO_CACHE": "1",
    "FAKETIME_DONT_FAKE_MONOTONIC": "1", "DROPTRACK_LOG_LEVEL": "notice",
}
try:
    with Stack(DROPTRACK, server_env=server_env) as stack:
        token = secrets.token_hex(32)
        status, _, _ = stack.api("POST", "/v1/tokens/push-to-start", {
            "userId": "u1", "deviceId": "d1", "token": secrets.token_hex(32), "environment": "sandbox",
            "attributesType": "DeliveryAttributes"})
        check(status in (200, 201), f"a push-to-start token is registered ({status})")
        status, body, _ = stack.api("POST", "/v1/activities", {
            "activityId": ACTIVITY, "userId": "u1", "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": "J-1"}, "event": {"type": "delivery.step",
                                                        "data": {"step": "placed", "courierName": "Sam"}},
            "alert": {"title": "Order placed", "body": "Sam is on it"}, "idempotencyKey": "clock-start"})
        check(status == 201, f"the activity starts ({status} {body})")
        status, _, _ = stack.api("POST", "/v1/tokens/activity", {
            "activityId": ACTIVITY, "deviceId": "d1", "token": token, "environment": "sandbox"})
        check(status in (200, 201), f"the activity's update token is registered ({status})")

        def latest_courier():
            for device in stack.emulator("apns", "/_emulator/devices")["devices"]:
                if device["token"] == token:
                    return (device.get("latestContentState") or {}).get("courierName")
            return None

        accepted = arrived = 0
        latencies = []
        missing = []
        number = 0
        for label, offset in PHASES:
            with open(control, "w") as f:
                f.write(offset + "\n")
            print(f"{PHASES.index((label, offset)) + 1}. the server's clock at {label} ({offset} s): "
                  f"{PER_PHASE} updates")
            for _ in range(PER_PHASE):
                number += 1
                courier = f"Courier {number}"
                status, body, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                            {"type": "delivery.reassign", "data": {"courierName": courier}})
                if status != 200:
                    print(f"    update {number} refused: {status} {body}")
                    continue
                accepted += 1
                sent = time.time()
                while time.time() - sent < DEADLINE and latest_courier() != courier:
                    time.sleep(0.02)
                if latest_courier() == courier:
                    arrived += 1
                    latencies.append(time.time() - sent)
                else:
                    missing.append(number)
        with open(control, "w") as f:
            f.write("+0\n")
        latencies.sort()
        if latencies:
            print(f"    {arrived} of {accepted} accepted updates arrived; median {latencies[len(latencies) // 2]:.2f} s, "
                  f"slowest {latencies[-1]:.2f} s")
        check(accepted == number, f"the API accepted all {number} updates ({accepted})")
        check(arrived == accepted, f"every accepted update arrived at APNs within {DEADLINE:g} s "
                                   f"({arrived} of {accepted}; missing: {missing})")
        stats = stack.emulator("apns", "/_emulator/stats")
        print(f"    the emulator answered {stats['statuses']}")
        lines = [json.loads(line) for line in open(f"{stack.work}/server.log") if line.startswith("{")]
        jumps = [line for line in lines if line.get("msg") == "apns.clock_jump"]
        print(f"    apns.clock_jump: {[line.get('jump_seconds') for line in jumps]}")
        check(len(jumps) == len(PHASES) - 1, f"each of the {len(PHASES) - 1} jumps is logged once ({len(jumps)})")
        check(all(line.get("level") == "warning" and "monotonic" in line.get("effect", "") for line in jumps),
              "each as a warning saying what the server does about it")
        dead = [line for line in lines if line.get("msg") == "dispatch.dead_letter"]
        check(not dead, f"no dead letter ({len(dead)})")
finally:
    os.remove(control)

if failures:
    print(f"{len(failures)} clock-jump check(s) failed")
    sys.exit(1)
print("clock jumps: all checks passed")
