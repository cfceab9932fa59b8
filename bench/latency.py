#!/usr/bin/env python3
"""Event → push latency through `droptrack serve` on SQLite, measured where the push lands.

Updates are posted at a steady rate (PATCH /v1/activities/{id}, round robin over ACTIVITIES
activities with one update token each), every one with a content-state of its own, so each push
the APNs emulator receives names the post it came from. For each rate the bench prints, from the
emulator's arrival times (milliseconds) minus the moment each update was posted: p50, p99 and max,
the rate achieved, how many posts were coalesced into a newer push (the server sends the newest
version, so a post overtaken before its send has no push of its own), and beside them the server's
own `droptrack_fanout_lag_seconds` percentiles (bucket upper bounds) over the same step.

Rates: 1,000/s, then doubling while the achieved rate keeps up (≥ 90 % of the target) and the p99
stays under one second, up to MAX_RATE; the last rate that kept up is "the highest this machine
sustains". Each step lasts SECONDS seconds. Every loop is bounded by count and time.

Usage: bench/latency.py PATH/TO/droptrack [SECONDS] [MAX_RATE]     (defaults 10 and 8000)
"""
import http.client
import json
import os
import sys
import threading
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "checks"))
from stack import Stack  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/release/droptrack"
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
MAX_RATE = int(sys.argv[3]) if len(sys.argv) > 3 else 8000
ACTIVITIES = 200
POSTERS = 8


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def histogram(stack, name):
    """{upper bound: cumulative count} of a histogram on /metrics."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.api_port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    buckets = {}
    for line in text.splitlines():
        if line.startswith(name + "_bucket{"):
            bound = line.split('le="')[1].split('"')[0]
            buckets[float("inf") if bound == "+Inf" else float(bound)] = float(line.rsplit(" ", 1)[1])
    return buckets


def histogram_percentile(before, after, fraction):
    """The upper bound of the bucket holding the percentile of what was observed between two reads."""
    counts = sorted((bound, after[bound] - before.get(bound, 0)) for bound in after)
    total = counts[-1][1] if counts else 0
    if total <= 0:
        return float("nan")
    for bound, cumulative in counts:
        if cumulative >= fraction * total:
            return bound
    return float("inf")


def state(tag):
    return {"status": "On the way", "progress": 0.5, "eta": 817693520, "stopsRemaining": 2,
            "courierName": tag, "riderReassigned": False}


def post_steadily(stack, rate, seconds):
    """Posts rate×seconds updates evenly spaced; returns {tag: posted at (Unix s)} and the rate achieved."""
    total = int(rate * seconds)
    posted = {}
    lock = threading.Lock()
    start = time.time() + 0.2
    failures = []

    def worker(index):
        connection = http.client.HTTPConnection("127.0.0.1", stack.api_port, timeout=30)
        headers = {"Authorization": f"Bearer {stack.keys['app1']}", "Content-Type": "application/json"}
        for number in range(index, total, POSTERS):
            due = start + number / rate
            delay = due - time.time()
            if delay > 0:
                time.sleep(delay)
            tag = f"c{number}"
            body = json.dumps({"contentState": state(tag), "priority": 5})
            sent = time.time()
            connection.request("PATCH", f"/v1/activities/lat-{number % ACTIVITIES}", body, headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                failures.append(response.status)
                continue
            with lock:
                posted[tag] = sent
            if time.time() > start + seconds * 3:
                return  # far behind: stop rather than run on unbounded

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(POSTERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds * 4 + 30)
    elapsed = max(time.time() - start, 1e-9)
    if failures:
        print(f"    {len(failures)} posts refused (first status {failures[0]})")
    return posted, len(posted) / elapsed


def arrivals(stack, after, expected, settle_seconds=10):
    """{tag: arrival (Unix s)} for pushes after emulator sequence `after`, waiting for the last ones."""
    found = {}
    last = after
    deadline = time.time() + settle_seconds + 60
    quiet_since = time.time()
    while time.time() < deadline:
        records = stack.emulator("apns", f"/_emulator/records?after={last}")["records"]
        for record in records:
            last = max(last, record["sequence"])
            state_value = ((record.get("payload") or {}).get("aps") or {}).get("content-state") or {}
            tag = state_value.get("courierName")
            if record["status"] == 200 and tag:
                found[tag] = record["receivedAtUnixMillis"] / 1000
        if records:
            quiet_since = time.time()
        if len(found) >= expected or time.time() - quiet_since > settle_seconds:
            break
        time.sleep(0.5)
    return found, last


def main():
    with Stack(DROPTRACK, server_env={"DROPTRACK_REQUESTS_PER_SECOND_PER_KEY": "0"}) as stack:
        for index in range(ACTIVITIES):
            status, body, _ = stack.api("POST", "/v1/activities", {
                "activityId": f"lat-{index}", "userId": f"user-{index}", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": f"L-{index}"}, "contentState": state("start"),
                "alert": {"title": "Order placed"}, "idempotencyKey": f"lat-start-{index}"})
            if status != 201:
                sys.exit(f"FAIL start answered {status}: {body}")
        stack.import_tokens([{"kind": "activity", "activityId": f"lat-{index}", "deviceId": f"lat-phone-{index}",
                              "token": f"{index:08x}" * 8, "environment": "sandbox"} for index in range(ACTIVITIES)])
        time.sleep(1)
        sequence = stack.emulator("apns", "/_emulator/stats").get("requests", 0)
        print(f"event → push latency, {ACTIVITIES} activities × 1 update token, SQLite, {SECONDS:.0f} s per rate")
        print(f"  {'target/s':>9} {'achieved/s':>10} {'pushes':>7} {'coalesced':>9} "
              f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} | server lag p50 ≤ / p99 ≤ (ms)")
        rate, sustained = 1000, None
        while rate <= MAX_RATE:
            lag_before = histogram(stack, "droptrack_fanout_lag_seconds")
            posted, achieved = post_steadily(stack, rate, SECONDS)
            found, sequence = arrivals(stack, sequence, len(posted))
            lag_after = histogram(stack, "droptrack_fanout_lag_seconds")
            latencies = [(found[tag] - posted[tag]) * 1000 for tag in posted if tag in found]
            lag50 = histogram_percentile(lag_before, lag_after, 0.5) * 1000
            lag99 = histogram_percentile(lag_before, lag_after, 0.99) * 1000
            p99 = percentile(latencies, 0.99)
            print(f"  {rate:>9} {achieved:>10.0f} {len(latencies):>7} {len(posted) - len(latencies):>9} "
                  f"{percentile(latencies, 0.5):>7.1f} {p99:>7.1f} {max(latencies, default=float('nan')):>7.1f} "
                  f"| {lag50:.1f} / {lag99:.1f}")
            if achieved < 0.9 * rate or not latencies or p99 > 1000:
                break
            sustained = rate
            rate *= 2
        print(f"  highest rate sustained here: {sustained or 'below 1000'}/s "
              f"(achieved ≥ 90 % of the target with p99 under 1 s)")


if __name__ == "__main__":
    main()
