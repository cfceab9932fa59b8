#!/usr/bin/env python3
"""One event to N update tokens (default 100k): `droptrack serve` on SQLite, sending to the APNs
emulator over HTTP/2 + TLS. Prints the fan-out time, pushes per second and the server's peak RSS,
with two references measured in the same run against the same emulator:
  - h2load pushing the same number of requests (the loopback + emulator ceiling);
  - `droptrack bench apns`, the bare APNs client with no store (what dispatch costs on top).

Usage: bench/fanout.py PATH/TO/droptrack [N]
"""
import json
import os
import re
import secrets
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checks"))
from stack import Stack  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/release/droptrack"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
ACTIVITY = "score-final"


def fail(message):
    print(f"FAIL {message}")
    sys.exit(1)


def accepted(stack):
    return stack.emulator("apns", "/_emulator/stats")["statuses"].get("200", 0)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def h2load_rate(stack):
    # h2load opens 100 streams at once; APNs (and the emulator by default) allows one until the first
    # valid provider token, which a real client waits for.
    stack.emulator("apns", "/_emulator/faults", {"faults": [], "oneStreamUntilValidToken": False})
    token_file = f"{stack.work}/keys/apns/AuthKey_{stack.key_id}.p8"
    jwt = stack.run("keys", "apns-token", "--key", token_file, "--key-id", stack.key_id, "--team-id",
                    stack.team_id).strip()
    now = int(time.time())
    payload = f"{stack.work}/payload.json"
    with open(payload, "w") as f:
        json.dump({"aps": {"event": "update", "timestamp": now, "content-state": {
            "status": "On the way", "progress": 0.7142857142857143, "eta": now - 978307200 + 720,
            "stopsRemaining": 2, "courierName": "Sam", "riderReassigned": False}}}, f)
    out = subprocess.run(
        ["h2load", "-n", str(N), "-c", "1", "-m", "100", "-d", payload, "-H", f"authorization: bearer {jwt}",
         "-H", f"apns-topic: {stack.bundle_id}.push-type.liveactivity", "-H", "apns-push-type: liveactivity",
         "-H", "apns-priority: 5", f"https://{stack.apns_host}/3/device/{'2a' * 32}"],
        capture_output=True, text=True, timeout=300).stdout
    if not re.search(rf"status codes: {N} 2xx", out):
        fail(f"h2load did not get {N} 2xx answers:\n{out[-1500:]}")
    return float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", out).group(1))


def client_rate(stack):
    out = stack.run("bench", "apns", "--host", stack.apns_host, "--ca-file", stack.ca_file, "-n", str(N),
                    "--concurrency", "100", "--key", f"{stack.work}/keys/apns/AuthKey_{stack.key_id}.p8",
                    "--key-id", stack.key_id, "--team-id", stack.team_id, "--bundle-id", stack.bundle_id)
    if f"statuses=200:{N}" not in out:
        fail(f"droptrack bench apns did not get {N} 200s:\n{out}")
    return float(re.search(r"pushes_per_second=([\d.]+)", out).group(1))


server_env = {"DROPTRACK_LOG_LEVEL": "warning"}
with Stack(DROPTRACK, server_env=server_env) as stack:
    status, _, _ = stack.api("POST", "/v1/activities", {
        "activityId": ACTIVITY, "userId": "stadium", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "F-1"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
        "alert": {"title": "Kick-off"}, "idempotencyKey": "bench-start"})
    if status != 201:
        fail(f"start answered {status}")
    path = f"{stack.work}/tokens.jsonl"
    with open(path, "w") as f:
        for index in range(N):
            f.write(json.dumps({"kind": "activity", "activityId": ACTIVITY, "deviceId": f"fan-{index}",
                                "token": secrets.token_hex(32), "environment": "sandbox"}) + "\n")
    env = {**os.environ, **stack.server_environment()}
    started = time.time()
    subprocess.run([stack.droptrack, "tokens", "import", "--config", stack.config, "--app", "app1", "--file", path],
                   check=True, capture_output=True, env=env)
    import_seconds = time.time() - started

    before = accepted(stack)
    profiler = None
    if os.environ.get("FANOUT_PERF"):
        profiler = subprocess.Popen(["perf", "record", "-F", "999", "-g", "-o", os.environ["FANOUT_PERF"], "-p",
                                     str(stack.processes["server"].pid)], stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    server_cpu = cpu_seconds(stack.processes["server"].pid)
    emulator_cpu = cpu_seconds(stack.processes["apns"].pid)
    started = time.time()
    status, answer, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                  {"type": "delivery.step", "data": {"step": "picked_up"}}, timeout=120)
    accept_seconds = time.time() - started
    if status != 200 or answer["destinations"] != N:
        fail(f"the event answered {status}: {answer}")
    # Poll the cheap way (the emulator's counter, then the outbox gauge), so watching costs the server nothing.
    deadline = started + 600
    while time.time() < deadline and accepted(stack) - before < N:
        time.sleep(0.02)
    while time.time() < deadline:
        metrics = stack.api("GET", "/metrics")[1]
        if re.search(r"^droptrack_outbox_depth 0$", metrics, re.M):
            break
        time.sleep(0.02)
    fanout_seconds = time.time() - started
    server_cpu = cpu_seconds(stack.processes["server"].pid) - server_cpu
    emulator_cpu = cpu_seconds(stack.processes["apns"].pid) - emulator_cpu
    if profiler:
        profiler.send_signal(2)
        profiler.wait()
    sent = accepted(stack) - before
    if sent != N:
        fail(f"the emulator accepted {sent} pushes, not {N}")
    rss = peak_rss_mib(stack.processes["server"].pid)

    h2load = h2load_rate(stack)
    client = client_rate(stack)
    rate = N / fanout_seconds
    print(f"fanout_tokens={N}")
    print(f"import_seconds={import_seconds:.1f} ({N / import_seconds:.0f} tokens/s through `droptrack tokens import`)")
    print(f"event_accept_seconds={accept_seconds:.2f} (POST /events: map, store version, queue {N} sends)")
    print(f"fanout_seconds={fanout_seconds:.2f} (event accepted to the last outcome written)")
    print(f"fanout_pushes_per_second={rate:.0f}")
    print(f"server_peak_rss_mib={rss:.0f}")
    print(f"server_cpu_seconds={server_cpu:.2f} emulator_cpu_seconds={emulator_cpu:.2f} (during the fan-out; 2 cores)")
    print(f"reference_h2load_pushes_per_second={h2load:.0f} (same emulator, same count, no store)")
    print(f"reference_client_pushes_per_second={client:.0f} (droptrack bench apns: the bare client)")
    print(f"ratio_fanout_to_h2load={rate / h2load:.2f}")
    print(f"ratio_fanout_to_client={rate / client:.2f}")
