#!/usr/bin/env python3
"""A bounded soak: abusive clients on one side, a well-behaved tenant on the other.

For SECONDS (40 by default), from loopback addresses of their own (127.0.0.2 and up, so the
per-address limit tells them apart from the tenant on 127.0.0.1):
- made-up HTTP methods, thousands of distinct ones, 2 KB each, with no key;
- a slowloris: 100 connections each trickling one header line a second;
- one key churning Server-Sent-Event streams (open, read a little, close) and flooding past its
  stream limit;
while a second app's key calls the API on a keep-alive connection every 20 ms. Then: that tenant's
p99 is under 100 ms, nothing it sent failed, the metrics stayed small, the trickles were cut, the
connections past the per-address limit and the streams past the per-key limit were refused with
Retry-After, and the server's memory came back down.

Usage: soak.py PATH/TO/droptrack [SECONDS]
"""
import http.client
import os
import random
import socket
import string
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, process_usage  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 40
tallies = {}
lock = threading.Lock()


def tally(name, amount=1):
    with lock:
        tallies[name] = tallies.get(name, 0) + amount


def connect(port, source):
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    sock.settimeout(15)
    return sock


def status_of(sock):
    """The status code of the answer waiting on `sock` (0 if the connection just closed)."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def made_up_methods(port, until):
    while time.time() < until:
        try:
            sock = connect(port, "127.0.0.2")
            for _ in range(50):
                method = "".join(random.choices(string.ascii_uppercase, k=2048))
                sock.sendall(f"{method} /v1/activities HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode())
                status = status_of(sock)
                tally(f"method:{status}")
                if status == 0:
                    break
            sock.close()
        except OSError:
            tally("method:error")


def slowloris(port, until):
    """100 connections from 127.0.0.3 that each send a header line a second and never finish."""
    sockets = []
    for _ in range(100):
        try:
            sock = connect(port, "127.0.0.3")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            sockets.append(sock)
        except OSError:
            tally("slow:connect_error")
    opened = time.time()
    # Connections past the per-address limit are answered at once; the rest trickle on.
    time.sleep(0.5)
    alive = []
    for sock in sockets:
        sock.setblocking(False)
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            alive.append(sock)
            sock.setblocking(True)
            continue
        except OSError:
            data = b""
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "closed"
        tally(f"slow:refused:{status}{'+retry' if b'retry-after' in data.lower() else ''}")
        sock.close()
    while time.time() < until and alive:
        time.sleep(1)
        for sock in list(alive):
            try:
                sock.sendall(b"X-Trickle: 1\r\n")
                sock.setblocking(False)
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    data = None
                sock.setblocking(True)
                if data is not None:
                    status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "closed"
                    retry = b"retry-after" in data.lower()
                    tally(f"slow:{status}{'+retry' if retry else ''}")
                    tally("slow:cut_after", time.time() - opened)
                    tally("slow:cut")
                    alive.remove(sock)
                    sock.close()
            except OSError:
                tally("slow:cut")
                tally("slow:cut_after", time.time() - opened)
                alive.remove(sock)
    tally("slow:still_open", len(alive))
    for sock in alive:
        sock.close()


def stream_churn(port, key, until):
    """Opens SSE streams with one key from 127.0.0.4: some held, the rest refused past the limit."""
    held = []
    while time.time() < until:
        try:
            sock = connect(port, "127.0.0.4")
            sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\r\n".encode())
            answer = sock.recv(4096)
            status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
            tally(f"sse:{status}")
            if status == 200:
                held.append(sock)
                if len(held) > 8:
                    held.pop(0).close()  # churn: the oldest goes, a new one comes
            else:
                if b"retry-after" in answer.lower():
                    tally("sse:refused_with_retry_after")
                sock.close()
        except OSError:
            tally("sse:error")
        time.sleep(0.01)
    for sock in held:
        sock.close()


def tenant(port, key, until, latencies):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while time.time() < until:
        started = time.perf_counter()
        try:
            connection.request("GET", "/v1/activities/tenant-order?timelineLimit=0",
                               headers={"Authorization": f"Bearer {key}"})
            response = connection.getresponse()
            response.read()
            latencies.append(time.perf_counter() - started)
            tally(f"tenant:{response.status}")
        except (OSError, http.client.HTTPException) as error:
            tally(f"tenant:error:{type(error).__name__}")
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        time.sleep(0.02)


with Stack(DROPTRACK, apps=("app1", "app2"), server_env={"DROPTRACK_LOG_LEVEL": "warning"}) as stack:
    start = {"activityId": "tenant-order", "userId": "u", "attributesType": "DeliveryAttributes",
             "attributes": {"orderId": "T-1"}, "idempotencyKey": "tenant-start",
             "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}},
             "alert": {"title": "Order placed", "body": "On it"}}
    check(stack.api("POST", "/v1/activities", start, app="app2")[0] == 201, "the tenant's activity starts")
    server = stack.processes["server"].pid
    rss_before, _ = process_usage(server)
    until = time.time() + SECONDS
    latencies = []
    threads = [threading.Thread(target=made_up_methods, args=(stack.api_port, until)),
               threading.Thread(target=slowloris, args=(stack.api_port, until)),
               threading.Thread(target=stream_churn, args=(stack.api_port, stack.keys["app1"], until)),
               threading.Thread(target=tenant, args=(stack.api_port, stack.keys["app2"], until, latencies))]
    for thread in threads:
        thread.start()
    peak = rss_before
    while any(thread.is_alive() for thread in threads):
        peak = max(peak, process_usage(server)[0])
        time.sleep(1)
    for thread in threads:
        thread.join()
    time.sleep(2)
    rss_after, _ = process_usage(server)

    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000 if latencies else float("inf")
    print(f"    tenant: {len(latencies)} calls, p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, "
          f"p99 {p99:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    print(f"    abuse: {dict(sorted((k, round(v, 1)) for k, v in tallies.items() if not k.startswith('tenant')))}")
    print(f"    server RSS {rss_before:.0f} MiB before, peak {peak:.0f}, {rss_after:.0f} after")
    check(p99 < 100, f"the tenant's p99 stays under 100 ms ({p99:.1f} ms)")
    check(tallies.get("tenant:200", 0) == len(latencies) and len(latencies) > SECONDS * 10,
          f"every tenant call succeeded ({tallies.get('tenant:200', 0)} of {len(latencies)})")
    methods = sum(v for k, v in tallies.items() if k.startswith("method:") and k[7:].isdigit())
    check(methods > 1000, f"thousands of made-up methods were sent ({methods})")
    metrics = stack.api("GET", "/metrics")[1]
    check(len(metrics) < 256 * 1024, f"/metrics stays small ({len(metrics)} bytes)")
    check("AAAA" not in metrics and not any(line.count("method=") and len(line) > 400
                                             for line in metrics.splitlines()),
          "no made-up method became a metric label")
    refused = tallies.get("slow:refused:429+retry", 0)
    check(refused == 100 - 64, f"the connections past the per-address limit (64) were refused at once with 429 and "
                               f"Retry-After ({refused} of 36)")
    check(tallies.get("slow:408", 0) == 64, f"the 64 trickling connections were cut with 408 "
                                            f"({tallies.get('slow:408', 0)}, after "
                                            f"{tallies.get('slow:cut_after', 0) / max(1, tallies.get('slow:cut', 1)):.1f} s on average)")
    check(tallies.get("slow:still_open", 0) == 0, "no trickling connection outlived the header deadline")
    check(tallies.get("sse:429", 0) > 0 and tallies.get("sse:refused_with_retry_after", 0) == tallies.get("sse:429"),
          f"streams past the per-key limit were refused with 429 and Retry-After ({tallies.get('sse:429', 0)})")
    check(tallies.get("sse:200", 0) > 15, f"the key kept opening streams as old ones closed ({tallies.get('sse:200', 0)})")
    check(rss_after - rss_before < 64, f"memory came back down ({rss_before:.0f} → {rss_after:.0f} MiB)")
    status, body, _ = stack.api("GET", "/healthz", app="app2")
    check(status == 200, "the server is healthy afterwards")

if failures:
    print(f"{len(failures)} soak check(s) failed")
    sys.exit(1)
print("soak: all checks passed")
