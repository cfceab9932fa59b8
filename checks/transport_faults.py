#!/usr/bin/env python3
"""The server as a black box against an APNs emulator that drops connections and then goes away.

1. Two connection resets during a start to 2,000 push-to-start tokens (answers 20 ms late, so each
   reset leaves requests written and unanswered): no token gets two starts, and every token without
   one is a start in doubt, counted by droptrack_starts_in_doubt_total.
2. An APNs outage of OUTAGE seconds (150 by default) while 2,000 updates wait, with the default retry
   settings (8 attempts, backoff from 1 s): nothing is dead-lettered, the server's memory stays flat
   and its CPU near idle, and once APNs is back every device gets the update.

Usage: transport_faults.py PATH/TO/droptrack [OUTAGE_SECONDS]
"""
import os
import re
import secrets
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, process_usage, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
OUTAGE = int(sys.argv[2]) if len(sys.argv) > 2 else 150
COUNT = 2000


def metric(stack, name):
    found = re.search(rf"^{name}(?:{{[^}}]*}})? (\S+)", stack.api("GET", "/metrics")[1], re.M)
    return float(found.group(1)) if found else 0.0


def pending(stack, activity):
    status, body, _ = stack.api("GET", f"/v1/activities/{activity}?timelineLimit=0")
    return body["pendingSends"] if status == 200 else None


def start_body(activity, user):
    return {"activityId": activity, "userId": user, "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": activity}, "idempotencyKey": f"start-{activity}",
            "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}},
            "alert": {"title": "Order placed", "body": "Sam is on it"}}


with Stack(DROPTRACK, server_env={"DROPTRACK_LOG_LEVEL": "notice"}) as stack:
    print(f"1. two connection resets during a start to {COUNT} push-to-start tokens")
    tokens = [secrets.token_hex(32) for _ in range(COUNT)]
    stack.import_tokens([{"kind": "push_to_start", "userId": "fan", "deviceId": f"phone-{index}", "token": token,
                          "environment": "sandbox", "attributesType": "DeliveryAttributes"}
                         for index, token in enumerate(tokens)])
    stack.emulator("apns", "/_emulator/faults", {"faults": [
        {"kind": "connectionReset", "everyNth": 400, "times": 2}, {"kind": "delay", "delayMilliseconds": 20}]})
    status, _, _ = stack.api("POST", "/v1/activities", start_body("order-reset", "fan"))
    check(status == 201, "the start is accepted")
    wait_until("the start fan-out to finish", lambda: pending(stack, "order-reset") == 0, timeout=120)
    by_token = {device["token"]: device for device in stack.emulator("apns", "/_emulator/devices")["devices"]}
    starts = [by_token.get(token, {}).get("accepted", {}).get("start", 0) for token in tokens]
    in_doubt = int(metric(stack, "droptrack_starts_in_doubt_total"))
    twice = sum(1 for count in starts if count > 1)
    missing = sum(1 for count in starts if count == 0)
    check(twice == 0, f"no token got two starts ({sum(starts)} starts accepted for {COUNT} tokens)")
    check(in_doubt > 0, f"the resets left starts in doubt ({in_doubt}), counted")
    check(missing <= in_doubt, f"every token without a start ({missing}) is among those in doubt ({in_doubt})")
    stack.emulator("apns", "/_emulator/faults", {"faults": []})

    print(f"2. a {OUTAGE} s APNs outage while {COUNT} updates wait")
    status, _, _ = stack.api("POST", "/v1/activities", start_body("order-outage", "nobody"))
    check(status == 201, "a second activity starts")
    update_tokens = [secrets.token_hex(40) for _ in range(COUNT)]
    stack.import_tokens([{"kind": "activity", "activityId": "order-outage", "deviceId": f"tablet-{index}",
                          "token": token, "environment": "sandbox"} for index, token in enumerate(update_tokens)])
    wait_until("the tokens to catch up", lambda: pending(stack, "order-outage") == 0, timeout=120)
    listen = stack.apns_host
    stack.stop_apns()
    server = stack.processes["server"].pid
    status, _, _ = stack.api("POST", "/v1/activities/order-outage/events",
                             {"type": "delivery.step", "data": {"step": "confirmed"}})
    check(status == 200, "an event is accepted while APNs is down")
    samples = []
    began = time.time()
    while time.time() - began < OUTAGE:
        time.sleep(5)
        samples.append((time.time() - began, *process_usage(server)))
    early = [rss for at, rss, _ in samples if at <= 30]
    late = [rss for at, rss, _ in samples if at > OUTAGE - 30]
    cpu = (samples[-1][2] - samples[0][2]) / (samples[-1][0] - samples[0][0])
    print(f"    server RSS {min(early):.0f}-{max(early):.0f} MiB in the first 30 s, "
          f"{min(late):.0f}-{max(late):.0f} MiB in the last 30 s, peak {max(s[1] for s in samples):.0f} MiB; "
          f"CPU {cpu:.3f} cores during the outage")
    check(max(late) - max(early) < 16, "memory stays flat through the outage (under 16 MiB of growth)")
    check(cpu < 0.25, "the server stays near idle while APNs is unreachable (under 0.25 cores)")
    check(metric(stack, "droptrack_dead_letters_total") == 0, "nothing is dead-lettered during the outage")
    check(metric(stack, "droptrack_provider_unreachable") == 1, "the metrics show APNs unreachable")
    log = open(f"{stack.work}/server.log").read()
    check("dispatch.provider_unreachable" in log, "the log says APNs is unreachable, with the fix")

    stack.start_apns(listen)
    recovered = time.time()
    wait_until("every update to arrive after the outage", lambda: pending(stack, "order-outage") == 0, timeout=180)
    by_token = {device["token"]: device for device in stack.emulator("apns", "/_emulator/devices")["devices"]}
    arrived = sum(1 for token in update_tokens if by_token.get(token, {}).get("latestEvent") == "update")
    print(f"    all sent {time.time() - recovered:.0f} s after APNs came back")
    check(arrived == COUNT, f"every device got the update ({arrived} of {COUNT})")
    check(metric(stack, "droptrack_dead_letters_total") == 0, "nothing was dead-lettered")
    check(metric(stack, "droptrack_provider_unreachable") == 0, "the metrics show APNs reachable again")
    check("dispatch.provider_reachable" in open(f"{stack.work}/server.log").read(), "the log says APNs is back")

if failures:
    print(f"{len(failures)} transport-fault check(s) failed")
    sys.exit(1)
print("transport faults: all checks passed")
