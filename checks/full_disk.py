#!/usr/bin/env python3
"""A full disk under the SQLite store: readiness says so, the refusals are counted, and both recover.

The store lives on a small tmpfs of its own (mounted here, so this runs as root, as CI does). With the
disk filled up, reads still pass and every write is refused with 503 store_unavailable: /readyz must
answer 503 with the reason (before, it answered ready, so a load balancer kept sending writes there),
and droptrack_store_errors_total{operation="api_write"} must count the refused writes. Once the
filler is deleted, /readyz answers 200 again by itself and writes are taken.

Usage: full_disk.py PATH/TO/droptrack
"""
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
ACTIVITY = "order-full"


def metric(text, name, labels):
    found = re.search(rf"^{name}\{{{labels}\}} (\S+)", text, re.M)
    return float(found.group(1)) if found else 0.0


def fill(directory):
    """Writes a file until the filesystem has no room left; returns its path."""
    path = f"{directory}/filler"
    with open(path, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    # Whatever a smaller write still fits.
    try:
        with open(path, "ab") as f:
            while True:
                f.write(b"\0" * 512)
                f.flush()
    except OSError:
        pass
    return path


disk = tempfile.mkdtemp(prefix="droptrack-full-")
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", disk], check=True)
try:
    with Stack(DROPTRACK, store=f"sqlite:{disk}/droptrack.sqlite",
               server_env={"DROPTRACK_LOG_LEVEL": "notice"}) as stack:
        print("1. an activity with a device, on a store with room")
        status, _, _ = stack.api("POST", "/v1/tokens/push-to-start", {
            "userId": "u1", "deviceId": "d1", "token": secrets.token_hex(32), "environment": "sandbox",
            "attributesType": "DeliveryAttributes"})
        check(status in (200, 201), f"a token is registered ({status})")
        status, body, _ = stack.api("POST", "/v1/activities", {
            "activityId": ACTIVITY, "userId": "u1", "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": "F-1"}, "event": {"type": "delivery.step",
                                                        "data": {"step": "placed", "courierName": "Sam"}},
            "alert": {"title": "Order placed", "body": "Sam is on it"}, "idempotencyKey": "full-start"})
        check(status == 201, f"the activity starts ({status} {body})")
        status, body, _ = stack.api("GET", "/readyz")
        check(status == 200, f"/readyz answers {status} while the disk has room")

        print("2. the disk fills up")
        filler = fill(disk)
        steps = ["confirmed", "preparing", "picked_up", "on_the_way"]
        answers = []
        # A write may still fit in space SQLite holds already; the disk refuses the next ones.
        for attempt in range(40):
            status, body, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                        {"type": "delivery.step", "data": {"step": steps[attempt % len(steps)]}})
            answers.append(status)
            if status == 503:
                break
        print(f"    event writes answered {answers}")
        check(answers[-1] == 503 and body["error"]["code"] == "store_unavailable",
              f"a write is refused with 503 store_unavailable ({body})")
        refused = answers.count(503)
        status, body, _ = stack.api("GET", "/readyz")
        print(f"    /readyz: {status} {body}")
        check(status == 503 and body.get("status") == "not_ready" and "refuses writes" in body.get("reason", ""),
              "/readyz answers 503 with the reason while the store refuses writes")
        for _ in range(2):
            status, _, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                     {"type": "delivery.step", "data": {"step": "on_the_way"}})
            refused += status == 503
        metrics = stack.api("GET", "/metrics")[1]
        counted = metric(metrics, "droptrack_store_errors_total", 'operation="api_write"')
        print(f"    {refused} writes refused, droptrack_store_errors_total{{operation=\"api_write\"}} {counted:g}")
        check(counted == refused, "the store-error counter counts every refused API write")
        status, _, _ = stack.api("GET", "/healthz")
        check(status == 200, "/healthz still answers 200: the process is alive, only not ready")

        print("3. space is freed")
        os.remove(filler)
        freed = time.time()
        wait_until("/readyz to answer 200", lambda: stack.api("GET", "/readyz")[0] == 200, timeout=10)
        print(f"    /readyz answered 200 {time.time() - freed:.1f} s after the filler was deleted")
        status, _, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                 {"type": "delivery.step", "data": {"step": "delivered"}})
        check(status == 200, f"a write is taken again ({status})")
        log = open(f"{stack.work}/server.log").read()
        check("database or disk is full" in log, "the server log names the full disk")
finally:
    subprocess.run(["umount", disk], check=False)
    os.rmdir(disk)

if failures:
    print(f"{len(failures)} full-disk check(s) failed")
    sys.exit(1)
print("full disk: all checks passed")
