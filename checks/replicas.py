#!/usr/bin/env python3
"""Three `droptrack serve` replicas on one PostgreSQL database and one APNs emulator.

1. 1,000 activities are started round-robin through the three replicas (one push-to-start token
   each; replica r3 is killed with SIGKILL a third of the way through and started again), then 20
   update tokens per activity are registered (a 20k-token fan-out).
2. Three steps are posted to every activity, round-robin; one replica is killed with SIGKILL in the
   middle of the fan-out; the last step (which ends each activity) goes to the survivors, and the
   PostgreSQL server is restarted in the middle of that fan-out (the replicas reconnect).
3. At the emulator: every update token's newest accepted push is its activity's end, with the final
   content-state and timestamp; no push-to-start token got two starts (a start left in doubt by the
   killed replica is not resent, and is counted); each surviving replica sent part of the pushes.
4. The operator console: a session signed in on one replica is known to another, which signs it out
   for both (sessions live in the database, as behind a load balancer without sticky sessions).

Usage: replicas.py PATH/TO/droptrack [ACTIVITIES] [TOKENS_PER_ACTIVITY]
Needs DROPTRACK_TEST_POSTGRES_URL (scripts/postgres.sh prints it); the database is restarted with
DROPTRACK_TEST_POSTGRES_RESTART_COMMAND (default: scripts/postgres.sh restart).
"""
import concurrent.futures
import http.client
import os
import re
import secrets
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, drop_database, failures, fresh_database, wait_until  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
ACTIVITIES = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
PER_ACTIVITY = int(sys.argv[3]) if len(sys.argv) > 3 else 20
REPLICAS = ["server", "r2", "r3"]


def metric(text, name):
    return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M))


admin_url = os.environ.get("DROPTRACK_TEST_POSTGRES_URL")
if not admin_url:
    raise SystemExit("FAIL DROPTRACK_TEST_POSTGRES_URL is not set: run scripts/postgres.sh first")
database, url = fresh_database(admin_url)
# Every activity here has 20 update tokens, under the default fanoutRangeMinimum: 0 sends them by range
# jobs anyway, so the kill lands in the middle of ranges that another replica must resume.
server_env = {"DROPTRACK_LEASE_SECONDS": "3", "DROPTRACK_LOG_LEVEL": "warning", "DROPTRACK_MAX_IN_FLIGHT": "200",
              "DROPTRACK_CLAIM_BATCH": "100", "DROPTRACK_FANOUT_RANGE_MINIMUM": "0"}
try:
    with Stack(DROPTRACK, store=url, server_env=server_env) as stack:
        for name in REPLICAS[1:]:
            stack.start_server(name)
        stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 5}]})

        def post_round_robin(path_for, body_for, replicas):
            for index in range(ACTIVITIES):
                status, body, _ = stack.api("POST", path_for(index), body_for(index),
                                            server=replicas[index % len(replicas)])
                if status not in (200, 201):
                    raise SystemExit(f"FAIL {path_for(index)} answered {status}: {body}")

        print(f"1. {ACTIVITIES} activities started through {len(REPLICAS)} replicas")
        start_tokens = {index: secrets.token_hex(32) for index in range(ACTIVITIES)}
        stack.import_tokens([{"kind": "push_to_start", "userId": f"user-{index}", "deviceId": f"phone-{index}",
                        "token": token, "environment": "sandbox", "attributesType": "DeliveryAttributes"}
                       for index, token in start_tokens.items()])
        # The same start (one idempotency key) to all three replicas at once.
        race_token = secrets.token_hex(32)
        stack.import_tokens([{"kind": "push_to_start", "userId": "racer", "deviceId": "racer-phone", "token": race_token,
                        "environment": "sandbox", "attributesType": "DeliveryAttributes"}])
        race = {"activityId": "race", "userId": "racer", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "R-1"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": "race-start"}
        with concurrent.futures.ThreadPoolExecutor(len(REPLICAS) * 2) as pool:
            answers = list(pool.map(lambda name: stack.api("POST", "/v1/activities", race, server=name),
                                    REPLICAS * 2))
        statuses = sorted(status for status, _, _ in answers)
        check(statuses == [200] * (len(answers) - 1) + [201],
              f"the same start sent {len(answers)} times to {len(REPLICAS)} replicas at once: one 201, the rest 200 "
              f"({statuses})")
        check(all(body == answers[0][1] for _, body, _ in answers), "every replica gave the same answer")
        # Replica r3 is killed a third of the way through the starts, then started again: a start it
        # had claimed is left in doubt and never sent twice.
        alive = list(REPLICAS)
        # Slow answers keep starts in flight, so the kill leaves some claimed and unanswered.
        stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 300}]})
        for index in range(ACTIVITIES):
            if index == ACTIVITIES // 3:
                stack.kill_server("r3")
                alive.remove("r3")
                print(f"    kill -9 of replica r3 after {index} starts were posted")
            status, body, _ = stack.api("POST", "/v1/activities", {
                "activityId": f"act-{index}", "userId": f"user-{index}", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": f"O-{index}"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": f"start-{index}"},
                server=alive[index % len(alive)])
            if status not in (200, 201):
                raise SystemExit(f"FAIL start {index} answered {status}: {body}")
        stack.start_server("r3")
        stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 5}]})
        update_tokens = {(index, slot): secrets.token_hex(32)
                         for index in range(ACTIVITIES) for slot in range(PER_ACTIVITY)}
        stack.import_tokens([{"kind": "activity", "activityId": f"act-{index}", "deviceId": f"d-{index}-{slot}",
                        "token": token, "environment": "sandbox"} for (index, slot), token in update_tokens.items()])

        print(f"2. three steps to {len(update_tokens)} update tokens; one replica killed part-way")
        before = stack.accepted_pushes()
        for step in ["confirmed", "preparing", "picked_up"]:
            post_round_robin(lambda i: f"/v1/activities/act-{i}/events",
                             lambda i, step=step: {"type": "delivery.step", "data": {"step": step}}, REPLICAS)
        wait_until("the fan-out to be under way", lambda: stack.accepted_pushes() > before + len(update_tokens) // 3)
        killed_metrics = stack.api("GET", "/metrics", server="r2")[1]
        stack.kill_server("r2")
        survivors = ["server", "r3"]
        print(f"    kill -9 of replica r2 after it sent {int(metric(killed_metrics, 'droptrack_sends_total'))} pushes")

        print("3. the last step ends every activity, through the survivors; PostgreSQL restarts meanwhile")
        # Slower answers stretch this fan-out over several seconds, so the restart lands inside it.
        stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "delay", "delayMilliseconds": 200}]})
        before = stack.accepted_pushes()
        post_round_robin(lambda i: f"/v1/activities/act-{i}/events",
                         lambda i: {"type": "delivery.step", "data": {"step": "delivered"}}, survivors)
        wait_until("the last fan-out to be under way", lambda: stack.accepted_pushes() > before + len(update_tokens) // 10)
        restart = os.environ.get("DROPTRACK_TEST_POSTGRES_RESTART_COMMAND", "scripts/postgres.sh restart")
        subprocess.run(restart, shell=True, check=True, capture_output=True, timeout=120)
        sent_by_then = stack.accepted_pushes() - before
        print(f"    PostgreSQL restarted when {sent_by_then} of the last step's pushes had been accepted")

        def drained():
            status, text, _ = stack.api("GET", "/metrics", server="server")
            return status == 200 and re.search(r"^droptrack_outbox_depth 0$", text, re.M)
        wait_until("every outbox row to be done", drained, timeout=600)
        flush_failures = sum(metric(stack.api("GET", "/metrics", server=name)[1], "droptrack_store_errors_total")
                             for name in survivors)
        check(flush_failures > 0, f"the restart hit the survivors while they worked ({int(flush_failures)} failed "
                                  "store transactions, retried)")

        print("4. what the devices hold")
        devices = {device["token"]: device for device in stack.emulator("apns", "/_emulator/devices")["devices"]}
        finals = {}
        for index in range(ACTIVITIES):
            status, body, _ = stack.api("GET", f"/v1/activities/act-{index}?timelineLimit=0", server="r3")
            if status != 200:
                raise SystemExit(f"FAIL GET /v1/activities/act-{index} answered {status}: {body}")
            finals[index] = body
        check(all(body["state"] == "ended" for body in finals.values()), "every activity has ended")
        wrong = [key for key, token in update_tokens.items()
                 if devices.get(token, {}).get("latestEvent") != "end"
                 or devices[token].get("latestContentState") != finals[key[0]]["contentState"]
                 or devices[token].get("latestTimestamp") != finals[key[0]]["timestamp"]]
        check(not wrong, f"all {len(update_tokens)} update tokens end on their activity's final state ({len(wrong)} do not)")
        check(devices.get(race_token, {}).get("accepted", {}).get("start", 0) == 1,
              "the start raced to three replicas reached its phone once")
        starts = [devices.get(token, {}).get("accepted", {}).get("start", 0) for token in start_tokens.values()]
        survivor_metrics = [stack.api("GET", "/metrics", server=name)[1] for name in survivors]
        # r2 may have taken over some of r3's starts before it was killed in its turn.
        in_doubt = sum(metric(text, "droptrack_starts_in_doubt_total") for text in survivor_metrics + [killed_metrics])
        missing = sum(1 for count in starts if count == 0)
        check(all(count <= 1 for count in starts), f"no start was sent twice ({sum(starts)} starts for {ACTIVITIES})")
        check(missing <= in_doubt, f"every start that did not arrive ({missing}) was left in doubt by the kill "
                                   f"({int(in_doubt)} counted by the replicas that took them over)")
        sent = [metric(text, "droptrack_sends_total") for text in survivor_metrics]
        check(all(count > 0 for count in sent), f"each survivor sent part of the pushes ({[int(x) for x in sent]})")

        print("5. the operator console behind a load balancer: a session made on one replica, used and ended on another")

        def console(name, method, path, form=None, cookie=""):
            connection = http.client.HTTPConnection("127.0.0.1", stack.ports[name], timeout=30)
            headers = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{stack.ports[name]}"}
            body = urllib.parse.urlencode(form) if form is not None else None
            if body is not None:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            cookies = [value.split(";")[0] for value in response.headers.get_all("Set-Cookie") or []]
            answer = response.status, response.read().decode(), response.getheader("Location"), cookies
            connection.close()
            return answer

        first, last = survivors[0], survivors[-1]
        login_cookie = console(first, "GET", "/console/login")[3][0]
        status, _, _, cookies = console(first, "POST", "/console/login",
                                        {"key": stack.keys["app1"], "csrf": login_cookie.split("=", 1)[1]},
                                        cookie=login_cookie)
        session_cookie = next((cookie for cookie in cookies if cookie.startswith("dt_console=")), "dt_console=")
        check(status == 303 and session_cookie != "dt_console=", f"signed in on {first} ({status})")
        status, page, _, _ = console(last, "GET", "/console/", cookie=session_cookie)
        check(status == 200 and "app1" in page, f"the session works on {last} ({status})")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        status, _, location, _ = console(last, "POST", "/console/logout", {"csrf": csrf.group(1) if csrf else ""},
                                         cookie=session_cookie)
        check(status == 303 and location == "/console/login", f"signed out on {last} ({status})")
        status, _, location, _ = console(first, "GET", "/console/", cookie=session_cookie)
        check(status == 303 and location == "/console/login", f"and {first} no longer knows the session ({status})")
finally:
    drop_database(admin_url, database)

if failures:
    print(f"{len(failures)} replica check(s) failed")
    sys.exit(1)
print("replicas on PostgreSQL: all checks passed")
