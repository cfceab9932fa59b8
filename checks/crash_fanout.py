#!/usr/bin/env python3
"""kill -9 the server twice in the middle of a 10k-token fan-out, restart it, and check nothing
was lost or sent twice.

1. 10k push-to-start tokens are imported; a start fans out to all of them; the server is killed
   (SIGKILL) part-way and restarted.
2. 10k update tokens are imported for the activity; three steps fan out through the activity's 16
   fan-out ranges (each streams its tokens in fingerprint order and commits a cursor per batch); the
   server is killed again part-way, at a moment the store shows a range claimed with a committed
   cursor (the server claims only the ranges its free sends fill), and restarted; the ranges
   the killed server held resume at their committed cursors once its leases end; the last steps end
   the activity.
3. At the APNs emulator: no token got two starts (a start whose outcome the crash lost is never
   resent, and the server's timeline names every such start), and every update token's newest
   accepted push is the end, carrying exactly the activity's final content-state and timestamp.

Usage: crash_fanout.py PATH/TO/droptrack [TOKENS]
"""
import os
import re
import secrets
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
ACTIVITY = "order-crash"


def drained(stack):
    status, body, _ = stack.api("GET", f"/v1/activities/{ACTIVITY}?timelineLimit=0")
    return status == 200 and body["pendingSends"] == 0 and body


def range_held(stack):
    """True while a range is claimed with a committed cursor: a kill now leaves a pass to resume."""
    db = sqlite3.connect(f"file:{stack.work}/droptrack.sqlite?mode=ro", uri=True, timeout=5)
    try:
        return db.execute("SELECT COUNT(*) FROM fanout_jobs WHERE claimed_by IS NOT NULL "
                          "AND cursor_fingerprint != ''").fetchone()[0] > 0
    finally:
        db.close()


def kill_mid_fanout(stack, floor, label, ready=lambda: True):
    # `ready` narrows the moment: a kill between two ranges would leave no range pass to resume.
    wait_until(f"{label} to be under way", lambda: stack.accepted_pushes() >= floor and ready())
    at_kill = stack.accepted_pushes()
    stack.kill_server()
    print(f"    kill -9 during the {label} with {at_kill} pushes accepted so far")
    time.sleep(0.3)
    stack.start_server()


# The emulator answers each push 20 ms late and the server keeps at most 100 in flight, so a 10k
# fan-out takes seconds and the kill lands inside it; a 2 s lease brings the dead worker's rows back.
server_env = {"DROPTRACK_MAX_IN_FLIGHT": "100", "DROPTRACK_LEASE_SECONDS": "2", "DROPTRACK_LOG_LEVEL": "warning"}
with Stack(DROPTRACK, server_env=server_env) as stack:
    stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 20}]})
    devices = [f"phone-{index}" for index in range(COUNT)]
    start_tokens = {device: secrets.token_hex(32) for device in devices}
    update_tokens = {device: secrets.token_hex(40) for device in devices}

    print(f"1. a start to {COUNT} push-to-start tokens, killed part-way")
    stack.import_tokens([{"kind": "push_to_start", "userId": "fan", "deviceId": device, "token": token,
                           "environment": "sandbox", "attributesType": "DeliveryAttributes"}
                          for device, token in start_tokens.items()])
    start = {"activityId": ACTIVITY, "userId": "fan", "attributesType": "DeliveryAttributes",
             "attributes": {"orderId": "C-1"}, "event": {"type": "delivery.step", "data": {"step": "placed",
                                                                                           "courierName": "Sam"}},
             "alert": {"title": "Order placed", "body": "Sam is on it"}, "idempotencyKey": "crash-start"}
    status, first_answer, _ = stack.api("POST", "/v1/activities", start)
    check(status == 201 and first_answer["destinations"] == COUNT, f"the start fans out to {COUNT} tokens")
    kill_mid_fanout(stack, COUNT // 4, "start fan-out")
    status, again, _ = stack.api("POST", "/v1/activities", start)
    check(status == 200 and again == first_answer, "after the restart the same idempotency key gives the same answer")
    wait_until("the start fan-out to finish", lambda: drained(stack), timeout=300)
    metrics = stack.api("GET", "/metrics")[1]
    found = re.search(r"^droptrack_starts_in_doubt_total (\d+)", metrics, re.M)
    in_doubt = int(found.group(1)) if found else 0
    print(f"    the restarted server found {in_doubt} starts in doubt (claimed by the killed one, no outcome)")

    print(f"2. three steps to {COUNT} update tokens, killed part-way")
    stack.import_tokens([{"kind": "activity", "activityId": ACTIVITY, "deviceId": device, "token": token,
                           "environment": "sandbox"} for device, token in update_tokens.items()])
    before = stack.accepted_pushes()
    for step in ["confirmed", "preparing", "picked_up"]:
        status, _, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                 {"type": "delivery.step", "data": {"step": step}})
        check(status == 200, f"step {step} accepted")
    kill_mid_fanout(stack, before + COUNT // 4, "update fan-out", ready=lambda: range_held(stack))

    print("3. the last steps end the activity")
    for event in [{"type": "delivery.step", "data": {"step": "on_the_way"}},
                  {"type": "delivery.reassign", "data": {"courierName": "Priya"}},
                  {"type": "delivery.step", "data": {"step": "delivered"}}]:
        status, body, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events", event)
        check(status == 200, f"{event['type']} accepted")
    final = wait_until("the end to reach every token", lambda: drained(stack), timeout=300)
    check(final["state"] == "ended", "the activity has ended")

    print("4. what the devices hold")
    by_token = {device["token"]: device for device in stack.emulator("apns", "/_emulator/devices")["devices"]}
    starts = [by_token.get(token, {}).get("accepted", {}).get("start", 0) for token in start_tokens.values()]
    duplicated = sum(1 for count in starts if count > 1)
    missing = sum(1 for count in starts if count == 0)
    check(duplicated == 0, f"no token got two starts ({sum(starts)} starts for {COUNT} tokens)")
    check(missing <= in_doubt, f"every start that did not arrive ({missing}) is one the crash left in doubt "
                               f"({in_doubt}; the timeline names each as outcome_unknown)")
    wrong = [token for token in update_tokens.values()
             if by_token.get(token, {}).get("latestEvent") != "end"
             or by_token[token].get("latestContentState") != final["contentState"]
             or by_token[token].get("latestTimestamp") != final["timestamp"]]
    check(not wrong, f"all {COUNT} update tokens end on the final state and timestamp ({len(wrong)} do not)")
    updates = sum(by_token.get(token, {}).get("accepted", {}).get("update", 0) for token in update_tokens.values())
    print(f"    {updates} updates accepted for {COUNT} tokens over 6 events (coalesced; resends after the kill "
          f"are harmless: same timestamp)")
    # Each range pass writes one summary entry; a pass the killed server held says it was resumed.
    status, described, _ = stack.api("GET", f"/v1/activities/{ACTIVITY}?timelineLimit=10000")
    passes = [entry for entry in described["timeline"] if entry["reason"] == "fanout_pass"]
    resumed = [entry for entry in passes if "resumed" in (entry["note"] or "")]
    check(resumed, f"the kill landed in the middle of a range: {len(resumed)} of {len(passes)} range passes "
                   f"resumed at a committed cursor after the killed server's lease ended")
    if resumed:
        print(f"    e.g. {resumed[0]['destination']}: {resumed[0]['note']}")
    log = open(f"{stack.work}/server.log").read()
    check(all(token not in log for token in list(start_tokens.values())[:200]), "no token appears in the server log")

if failures:
    print(f"{len(failures)} crash check(s) failed")
    sys.exit(1)
print("crash test: all checks passed")
