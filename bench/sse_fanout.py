#!/usr/bin/env python3
"""Do event-stream subscribers slow sending? One event to N update tokens (2,000 by default) through
`droptrack serve` and the APNs emulator, timed with no subscriber, then with the server's whole
stream budget in use (10 reading streams on each of 20 apps, one of them the sending app), in one
run. Prints both fan-out times and their ratio (1.0 means subscribers cost nothing).

Before the delivery queue, 500 subscribers took a 2,000-token fan-out from 0.53 s to 39.9 s (75x).

Usage: bench/sse_fanout.py PATH/TO/droptrack [N] [ROUNDS]
"""
import os
import secrets
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks"))
from stack import Stack, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/release/droptrack"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
APPS = [f"app{index}" for index in range(1, 21)]


def pending(stack):
    status, body, _ = stack.api("GET", "/v1/activities/bench-order?timelineLimit=0")
    return body["pendingSends"] if status == 200 else None


def fan_out(stack, step):
    started = time.perf_counter()
    status, _, _ = stack.api("POST", "/v1/activities/bench-order/events",
                             {"type": "delivery.step", "data": {"step": step}})
    assert status == 200, status
    wait_until("the fan-out to finish", lambda: pending(stack) == 0, timeout=600)
    return time.perf_counter() - started


def reader(sock, stop, counts, index):
    sock.settimeout(0.5)
    while not stop.is_set():
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            return
        if not data:
            return
        counts[index] += data.count(b"event: send")


with Stack(DROPTRACK, apps=APPS, server_env={"DROPTRACK_LOG_LEVEL": "warning"}) as stack:
    start = {"activityId": "bench-order", "userId": "nobody", "attributesType": "DeliveryAttributes",
             "attributes": {"orderId": "B-1"}, "idempotencyKey": "bench-start",
             "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}},
             "alert": {"title": "Order placed", "body": "On it"}}
    assert stack.api("POST", "/v1/activities", start)[0] == 201
    stack.import_tokens([{"kind": "activity", "activityId": "bench-order", "deviceId": f"d{index}",
                          "token": secrets.token_hex(32), "environment": "sandbox"} for index in range(COUNT)])
    wait_until("the tokens to catch up", lambda: pending(stack) == 0, timeout=600)
    steps = iter(["confirmed", "preparing", "picked_up", "on_the_way"] * ROUNDS * 2)
    quiet = [fan_out(stack, next(steps)) for _ in range(ROUNDS)]

    stop = threading.Event()
    sockets = []
    for number, app in enumerate(APPS):
        for _ in range(10):
            # Each app's streams from a loopback address of its own: the server allows 64 connections per address.
            sock = socket.create_connection(("127.0.0.1", stack.api_port), source_address=(f"127.0.1.{number + 1}", 0))
            sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {stack.keys[app]}\r\n\r\n"
                         .encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200"), app
            sockets.append(sock)
    counts = [0] * len(sockets)
    threads = [threading.Thread(target=reader, args=(sock, stop, counts, index), daemon=True)
               for index, sock in enumerate(sockets)]
    for thread in threads:
        thread.start()
    watched = [fan_out(stack, next(steps)) for _ in range(ROUNDS)]
    time.sleep(1)
    stop.set()
    delivered = sum(counts[:10])

    quiet_median = sorted(quiet)[len(quiet) // 2]
    watched_median = sorted(watched)[len(watched) // 2]
    print(f"fan-out of one event to {COUNT} tokens, medians of {ROUNDS} rounds")
    print(f"  no subscriber:               {quiet_median:.2f} s  ({', '.join(f'{t:.2f}' for t in quiet)})")
    print(f"  {len(sockets)} reading subscribers:   {watched_median:.2f} s  "
          f"({', '.join(f'{t:.2f}' for t in watched)})")
    print(f"  ratio (watched / quiet):     {watched_median / quiet_median:.2f}")
    print(f"  send events read by the sending app's 10 streams: {delivered} "
          f"(of {10 * COUNT * ROUNDS} published; a slow stream drops the oldest and is told)")
