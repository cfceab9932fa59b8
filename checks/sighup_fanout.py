#!/usr/bin/env python3
"""SIGHUP in the middle of a push-to-start fan-out: the server drains and exits like on SIGTERM, so no
start is left in doubt.

Left to its default, SIGHUP (a closed terminal or session sends it) killed the server on the spot,
like kill -9: the starts in flight were in doubt (never resent, so some devices got no activity), and
nothing was logged. Here 2,000 push-to-start tokens get a start; once a few hundred have arrived the
server gets SIGHUP. It must log server.stopping naming the signal, finish the sends in flight and
exit 0; the restarted server finds no start in doubt and sends the rest, and every device ends with
exactly one start.

Usage: sighup_fanout.py PATH/TO/droptrack [TOKENS]
"""
import json
import os
import re
import secrets
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000
ACTIVITY = "order-hup"


def drained(stack):
    status, body, _ = stack.api("GET", f"/v1/activities/{ACTIVITY}?timelineLimit=0")
    return status == 200 and body["pendingSends"] == 0 and body


# Each push is answered 20 ms late with at most 100 in flight: the fan-out takes seconds, so the signal
# lands inside it with sends in flight; a 2 s lease would bring a killed server's rows back quickly.
server_env = {"DROPTRACK_MAX_IN_FLIGHT": "100", "DROPTRACK_LEASE_SECONDS": "2", "DROPTRACK_LOG_LEVEL": "notice"}
with Stack(DROPTRACK, server_env=server_env) as stack:
    stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 20}]})
    tokens = [secrets.token_hex(32) for _ in range(COUNT)]
    stack.import_tokens([{"kind": "push_to_start", "userId": "hup", "deviceId": f"phone-{index}", "token": token,
                          "environment": "sandbox", "attributesType": "DeliveryAttributes"}
                         for index, token in enumerate(tokens)])
    print(f"1. a start to {COUNT} push-to-start tokens; SIGHUP part-way")
    status, answer, _ = stack.api("POST", "/v1/activities", {
        "activityId": ACTIVITY, "userId": "hup", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "H-1"}, "event": {"type": "delivery.step",
                                                    "data": {"step": "placed", "courierName": "Sam"}},
        "alert": {"title": "Order placed", "body": "Sam is on it"}, "idempotencyKey": "hup-start"})
    check(status == 201 and answer["destinations"] == COUNT, f"the start fans out to {COUNT} tokens")
    wait_until("the fan-out to be under way", lambda: stack.accepted_pushes() >= COUNT // 5, timeout=120)
    at_signal = stack.accepted_pushes()
    started = time.time()
    code = stack.kill_server(sig=signal.SIGHUP)
    print(f"    SIGHUP with {at_signal} starts accepted; the server exited {code} after {time.time() - started:.1f} s "
          f"with {stack.accepted_pushes()} accepted")
    check(code == 0, f"the server drains and exits 0 on SIGHUP (exit {code}; -1 is death by the signal)")
    lines = [json.loads(line) for line in open(f"{stack.work}/server.log") if line.startswith("{")]
    stopping = [line for line in lines if line.get("msg") == "server.stopping"]
    check(stopping and stopping[0].get("signal") == "SIGHUP", f"the log says server.stopping on SIGHUP: {stopping}")

    print("2. the restarted server sends the rest")
    stack.start_server()
    wait_until("the fan-out to finish", lambda: drained(stack), timeout=300)
    metrics = stack.api("GET", "/metrics")[1]
    found = re.search(r"^droptrack_starts_in_doubt_total (\d+)", metrics, re.M)
    in_doubt = int(found.group(1)) if found else 0
    check(in_doubt == 0, f"no start is in doubt after the SIGHUP ({in_doubt})")
    by_token = {device["token"]: device for device in stack.emulator("apns", "/_emulator/devices")["devices"]}
    starts = [by_token.get(token, {}).get("accepted", {}).get("start", 0) for token in tokens]
    print(f"    {sum(starts)} starts accepted for {COUNT} tokens")
    check(all(count == 1 for count in starts),
          f"every device got exactly one start ({sum(1 for c in starts if c == 0)} none, "
          f"{sum(1 for c in starts if c > 1)} two or more)")

if failures:
    print(f"{len(failures)} SIGHUP check(s) failed")
    sys.exit(1)
print("SIGHUP during a fan-out: all checks passed")
