#!/usr/bin/env python3
"""One event to N update tokens (default 100k) through `droptrack serve`, sending to the APNs
emulator over HTTP/2 + TLS, in three set-ups measured in the same run:
  - one replica on SQLite;
  - one replica on PostgreSQL;
  - two replicas on the same PostgreSQL database (the second event of the same activity).
For each: the fan-out time, pushes per second, server CPU and peak RSS, how busy the whole machine
was, and the ratio to the SQLite run. References, on a fresh start of the same emulator (as the SQLite
fan-out had): h2load pushing N requests to one token (the loopback + emulator ceiling), and
`droptrack-dev bench apns`, the bare client with no store (what dispatch costs on top), twice: pushing to N
distinct tokens, one push each as the fan-out does (the reference the ratio is taken against), and
cycling over 1,000 tokens (the reference of earlier runs). The emulator keeps state per token, and a
thousand tokens stay in the caches where N do not: that reference runs faster than the same job
would.

Usage: bench/fanout.py PATH/TO/droptrack [N]
PostgreSQL comes from DROPTRACK_TEST_POSTGRES_URL, or scripts/postgres.sh is run to start one;
with DROPTRACK_FANOUT_SQLITE_ONLY=1 only the SQLite set-up runs. DROPTRACK_MAX_IN_FLIGHT, when set,
is passed to every replica: with few sends in flight a replica waits on round trips rather than on
the cores, which shows whether a second replica adds what a first leaves idle.
DROPTRACK_FANOUT_APNS_DELAY_MS, when set, has the emulator answer every push that many milliseconds
late (the round trip to APNs that loopback lacks), in the fan-outs and in the bare client's references;
h2load still runs without it.
"""
import json
import os
import re
import secrets
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "checks"))
from stack import Stack, drop_database, fresh_database  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/release/droptrack"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
ACTIVITY = "score-final"
STEPS = ["confirmed", "preparing", "picked_up"]


def fail(message):
    print(f"FAIL {message}")
    sys.exit(1)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu():
    """(busy, total) jiffies of every core together, from /proc/stat: how full the box was during a run."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle and iowait
    return sum(values) - idle, sum(values)


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def prepare(stack):
    """Starts the activity and registers N update tokens for it; returns the import time."""
    status, body, _ = stack.api("POST", "/v1/activities", {
        "activityId": ACTIVITY, "userId": "stadium", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "F-1"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
        "alert": {"title": "Kick-off"}, "idempotencyKey": "bench-start"})
    if status != 201:
        fail(f"start answered {status}: {body}")
    return stack.import_tokens([{"kind": "activity", "activityId": ACTIVITY, "deviceId": f"fan-{index}",
                                 "token": secrets.token_hex(32), "environment": "sandbox"} for index in range(N)])


def sends(stack, name):
    """`droptrack_sends_total` of one replica, every provider and outcome."""
    text = stack.api("GET", "/metrics", server=name)[1]
    return sum(float(value) for value in re.findall(r"^droptrack_sends_total(?:\{[^}]*\})? (\S+)$", text, re.M))


DELAY_MS = int(os.environ.get("DROPTRACK_FANOUT_APNS_DELAY_MS") or 0)


# With answers late, 100 pushes in flight would cap the reference at 100 per round trip: it then keeps as many
# in flight as a replica does (maxInFlight, 2,000 by default), over as many connections as a replica may open
# (4: one connection carries at most the emulator's 1,000 streams).
CLIENT_CONCURRENCY = int(os.environ.get("DROPTRACK_MAX_IN_FLIGHT") or 2000) if DELAY_MS else 100
CLIENT_CONNECTIONS = 4 if DELAY_MS else 1


def emulate_round_trip(stack):
    """Every push answered DELAY_MS late, when asked for."""
    if DELAY_MS:
        stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": DELAY_MS}]})


def fanout(stack, step, replicas):
    """Posts one event and waits until every send has an outcome; returns the figures."""
    sent_before = [sends(stack, name) for name in replicas]
    before = stack.accepted_pushes()
    pids = [stack.processes[name].pid for name in replicas]
    cpu = [cpu_seconds(pid) for pid in pids]
    emulator = stack.processes["apns"].pid
    emulator_cpu = cpu_seconds(emulator)
    machine = machine_cpu()
    started = time.time()
    status, answer, _ = stack.api("POST", f"/v1/activities/{ACTIVITY}/events",
                                  {"type": "delivery.step", "data": {"step": step}}, timeout=300)
    accept_seconds = time.time() - started
    if status != 200 or answer["destinations"] != N:
        fail(f"the event answered {status}: {answer}")
    # Poll the cheap way (the emulator's counter, then the outbox gauge) so watching costs the server nothing.
    deadline = started + 900
    while time.time() < deadline and stack.accepted_pushes() - before < N:
        time.sleep(0.02)
    while time.time() < deadline:
        if re.search(r"^droptrack_outbox_depth 0$", stack.api("GET", "/metrics")[1], re.M):
            break
        time.sleep(0.02)
    seconds = time.time() - started
    if stack.accepted_pushes() - before != N:
        fail(f"the emulator accepted {stack.accepted_pushes() - before} pushes, not {N}")
    busy, total = (after - was for after, was in zip(machine_cpu(), machine))
    return {"accept": accept_seconds, "seconds": seconds, "rate": N / seconds, "busy": busy / max(total, 1),
            "cpu": sum(cpu_seconds(pid) - was for pid, was in zip(pids, cpu)),
            "emulator_cpu": cpu_seconds(emulator) - emulator_cpu,
            "rss": max(peak_rss_mib(pid) for pid in pids),
            "shares": [sends(stack, name) - was for name, was in zip(replicas, sent_before)]}


def h2load_rate(stack):
    # h2load opens 100 streams at once; APNs (and the emulator by default) allows one until the first
    # valid provider token, which a real client waits for.
    stack.emulator("apns", "/_emulator/faults", {"faults": [], "oneStreamUntilValidToken": False})
    key_file = f"{stack.work}/keys/apns/AuthKey_{stack.key_id}.p8"
    jwt = stack.run("keys", "apns-token", "--key", key_file, "--key-id", stack.key_id, "--team-id",
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


def client_rate(stack, tokens):
    out = stack.run_dev("bench", "apns", "--host", stack.apns_host, "--ca-file", stack.ca_file, "-n", str(N),
                    "--tokens", str(tokens),
                    "--concurrency", str(CLIENT_CONCURRENCY), "--connections", str(CLIENT_CONNECTIONS), "--key", f"{stack.work}/keys/apns/AuthKey_{stack.key_id}.p8",
                    "--key-id", stack.key_id, "--team-id", stack.team_id, "--bundle-id", stack.bundle_id)
    if f"statuses=200:{N}" not in out:
        fail(f"droptrack-dev bench apns did not get {N} 200s:\n{out}")
    return float(re.search(r"pushes_per_second=([\d.]+)", out).group(1))


def postgres_url():
    url = os.environ.get("DROPTRACK_TEST_POSTGRES_URL")
    if not url:
        out = subprocess.run([os.path.join(ROOT, "scripts/postgres.sh")], capture_output=True, text=True,
                             check=True).stdout.strip().splitlines()[-1]
        url = out.split("=", 1)[1]
    return (url, *fresh_database(url))


server_env = {"DROPTRACK_LOG_LEVEL": "warning"}
if os.environ.get("DROPTRACK_MAX_IN_FLIGHT"):
    server_env["DROPTRACK_MAX_IN_FLIGHT"] = os.environ["DROPTRACK_MAX_IN_FLIGHT"]
results = []
with Stack(DROPTRACK, server_env=server_env) as stack:
    imported = prepare(stack)
    emulate_round_trip(stack)
    results.append(("1 replica, SQLite", imported, fanout(stack, STEPS[0], ["server"])))
    # The references start from an empty emulator, as the fan-out did.
    stack.stop_apns()
    stack.start_apns(stack.apns_host)
    h2load = h2load_rate(stack)
    emulate_round_trip(stack)
    client = client_rate(stack, N)
    client_cycling = client_rate(stack, 1000)

if os.environ.get("DROPTRACK_FANOUT_SQLITE_ONLY") != "1":
    admin, database, url = postgres_url()
    try:
        with Stack(DROPTRACK, store=url, server_env=server_env) as stack:
            imported = prepare(stack)
            emulate_round_trip(stack)
            results.append(("1 replica, PostgreSQL", imported, fanout(stack, STEPS[0], ["server"])))
            stack.start_server("r2")
            results.append(("2 replicas, PostgreSQL", None, fanout(stack, STEPS[1], ["server", "r2"])))
    finally:
        drop_database(admin, database)

base = results[0][2]["rate"]
print(f"fan-out of one event to {N} update tokens, APNs emulator over HTTP/2 + TLS"
      + (f", maxInFlight {server_env['DROPTRACK_MAX_IN_FLIGHT']} per replica"
         if "DROPTRACK_MAX_IN_FLIGHT" in server_env else "")
      + (f", every push answered {DELAY_MS} ms late" if DELAY_MS else ""))
print(f"{'set-up':<24}{'import s':>10}{'accept s':>10}{'fan-out s':>11}{'pushes/s':>10}{'× SQLite':>10}"
      f"{'CPU s':>8}{'emu CPU s':>10}{'RSS MiB':>9}{'box busy':>10}")
for label, imported, figures in results:
    print(f"{label:<24}{(f'{imported:.1f}' if imported else '-'):>10}{figures['accept']:>10.2f}"
          f"{figures['seconds']:>11.2f}{figures['rate']:>10.0f}{figures['rate'] / base:>10.2f}"
          f"{figures['cpu']:>8.2f}{figures['emulator_cpu']:>10.2f}{figures['rss']:>9.0f}{figures['busy']:>10.0%}")
for label, _, figures in results:
    if len(figures["shares"]) > 1:
        print(f"{label}: pushes sent by each replica {[int(share) for share in figures['shares']]}")
# A second replica can only add what the first left idle: "box busy" near 100% means every core was already
# working (on the server, the database, the emulator), and two replicas cannot go faster than one here.
print(f"cores={os.cpu_count()} (box busy: all cores together, during the fan-out)")
print(f"reference_h2load_pushes_per_second={h2load:.0f} (same emulator, same count, no store)")
print(f"reference_client_pushes_per_second={client:.0f} (droptrack-dev bench apns: the bare client, {N} distinct tokens)")
print(f"reference_client_cycling_pushes_per_second={client_cycling:.0f} (the bare client cycling over 1,000 tokens)")
print(f"ratio_sqlite_fanout_to_h2load={base / h2load:.2f}")
print(f"ratio_sqlite_fanout_to_client={base / client:.2f}")
print(f"ratio_sqlite_fanout_to_client_cycling={base / client_cycling:.2f}")
rates = {label: figures["rate"] for label, _, figures in results}
if "2 replicas, PostgreSQL" in rates:
    print(f"ratio_two_replicas_to_one={rates['2 replicas, PostgreSQL'] / rates['1 replica, PostgreSQL']:.2f}")
