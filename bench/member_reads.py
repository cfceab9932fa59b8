#!/usr/bin/env python3
"""Whether one tenant's shared activity can slow every other tenant: another app's token registrations,
timed at rest and while, on a shared activity of N members (default 95,000):
  - one member reads the activity with its device credential at its per-user rate limit (5 a second);
  - the backend refreshes the activity's audience 4 times a second;
  - the backend reads the activity (its view, first page of devices) once a second.
Each phase prints the bystander's p50 and p99 and their ratio to the same calls at rest, and what the
member's and the backend's own calls took.

Usage: bench/member_reads.py PATH/TO/droptrack [N] [SECONDS_PER_PHASE]
"""
import http.client
import json
import os
import secrets
import statistics
import sys
import threading
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "checks"))
from stack import Stack  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/release/droptrack"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 95_000
PHASE = float(sys.argv[3]) if len(sys.argv) > 3 else 15
ACTIVITY = "match-day"
BYSTANDER_RATE = 20


class MemberStack(Stack):
    def start_server(self, name="server"):
        if not getattr(self, "signing", False):
            self.run("apps", "device-key", "rotate", "--config", self.config, "--app", "app1")
            self.signing = True
        super().start_server(name)


def timed_calls(port, method, path, key, body_for, rate, seconds, stop=None):
    """Calls at `rate` a second for `seconds` on one keep-alive connection; returns latencies in ms."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies, statuses = [], {}
    deadline = time.time() + seconds
    next_at = time.time()
    while time.time() < deadline and not (stop and stop.is_set()):
        body = body_for()
        headers = {"Authorization": f"Bearer {key}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        response.read()
        latencies.append((time.perf_counter() - started) * 1000)
        statuses[response.status] = statuses.get(response.status, 0) + 1
        next_at += 1 / rate
        time.sleep(max(0, next_at - time.time()))
    connection.close()
    return latencies, statuses


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def bystander_body():
    return {"userId": f"b-{secrets.token_hex(4)}", "deviceId": f"d-{secrets.token_hex(4)}",
            "token": secrets.token_hex(32), "environment": "sandbox", "attributesType": "DeliveryAttributes"}


def phase(stack, name, load=None):
    """The bystander's registrations for one phase, with `load` running beside them."""
    stop = threading.Event()
    results = {}
    thread = None
    if load:
        def run():
            results["load"] = load(stop)
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.5)
    latencies, statuses = timed_calls(stack.api_port, "POST", "/v1/tokens/push-to-start", stack.keys["app2"],
                                      bystander_body, BYSTANDER_RATE, PHASE)
    stop.set()
    if thread:
        thread.join()
    line = (f"{name}: bystander registrations n={len(latencies)} p50={quantile(latencies, 0.5):.1f} ms "
            f"p99={quantile(latencies, 0.99):.1f} ms statuses={statuses}")
    if "load" in results:
        own, own_statuses = results["load"]
        line += (f"; the load's own calls n={len(own)} p50={quantile(own, 0.5):.1f} ms "
                 f"p99={quantile(own, 0.99):.1f} ms statuses={own_statuses}")
    print(line, flush=True)
    return latencies


def main():
    with MemberStack(DROPTRACK, apps=("app1", "app2")) as stack:
        print(f"importing {N} push-to-start tokens (one user each) …", flush=True)
        stack.import_tokens([{"kind": "push_to_start", "userId": f"u{index}", "deviceId": f"phone-{index}",
                              "token": secrets.token_hex(32), "environment": "sandbox",
                              "attributesType": "DeliveryAttributes"} for index in range(N)])
        started = time.time()
        status, body, _ = stack.api("POST", "/v1/activities", {
            "activityId": ACTIVITY, "audience": "everyone", "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": "M-1"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
            "alert": {"title": "Kick-off"}, "idempotencyKey": "match-day"}, timeout=300)
        print(f"audience start: {status} in {time.time() - started:.2f} s, members {body.get('members')}", flush=True)
        if status != 201:
            raise SystemExit(f"FAIL the start answered {status}: {body}")
        deadline = time.time() + 600
        while time.time() < deadline and stack.accepted_pushes() < N:
            time.sleep(1)
        print(f"starts accepted by the emulator: {stack.accepted_pushes()} after {time.time() - started:.0f} s",
              flush=True)
        status, minted, _ = stack.api("POST", "/v1/device-credentials", {"userId": "u42", "ttlSeconds": 3600})
        if status != 201:
            raise SystemExit(f"FAIL minting answered {status}: {minted}")
        credential = minted["credential"]

        rest = phase(stack, "at rest")
        member = phase(stack, "a member reads the shared activity 5/s", lambda stop: timed_calls(
            stack.api_port, "GET", f"/v1/activities/{ACTIVITY}", credential, lambda: None, 5, PHASE + 1, stop))
        refresh = phase(stack, "the backend refreshes the audience 4/s", lambda stop: timed_calls(
            stack.api_port, "POST", f"/v1/activities/{ACTIVITY}/audience/refresh", stack.keys["app1"],
            lambda: {}, 4, PHASE + 1, stop))
        backend = phase(stack, "the backend reads the shared activity 1/s", lambda stop: timed_calls(
            stack.api_port, "GET", f"/v1/activities/{ACTIVITY}", stack.keys["app1"], lambda: None, 1,
            PHASE + 1, stop))
        for name, values in (("member reads", member), ("refreshes", refresh), ("backend reads", backend)):
            print(f"ratio_p99_{name.replace(' ', '_')}_to_rest={quantile(values, 0.99) / quantile(rest, 0.99):.2f} "
                  f"(p99 {quantile(values, 0.99):.1f} ms against {quantile(rest, 0.99):.1f} ms)")
        print(f"bystander p50 at rest {statistics.median(rest):.1f} ms")


if __name__ == "__main__":
    main()
