#!/usr/bin/env python3
"""A fuzzer that knows the app schemas: extreme and malformed values in every place a caller's value
reaches the server, against a real `droptrack serve` and the CLI.

schemathesis (checks/api_conformance.py) knows only the OpenAPI document, which cannot describe an app's
own schemas: a `date` field of 1e300 in a start, a delivery step of 1e19 or an entry time of 1e22 in a
declarative mapper's record went through it unseen, and each crashed the whole server (Swift traps when a
Double beyond Int64 is converted). This one builds its bodies from the app's schemas, the built-in
delivery mapper, a declarative mapper with every field mapping, the raw push and doctor bodies, the
device routes and the CLI's file inputs, and puts each hostile value in each slot.

Each case must be answered below 500, and a value that no field may hold (a number beyond what the field's
type can carry, a date past 9999, malformed JSON) must be refused with 4xx naming the field (the `field` of
the error, or the slot's key in its message). After every case the server must still answer. Seeded and
bounded; it prints how many cases it ran.

Usage: schema_fuzz.py PATH/TO/droptrack [SEED]
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures  # noqa: E402

DROPTRACK = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack"
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 20261203
rng = random.Random(SEED)

# Values no number, integer or date slot may take: each must be refused naming the slot.
OUT_OF_RANGE = [1e19, -1e19, 1e300, -1e300, 1e22, 9.3e18, -9.3e18, 9223372036854775808, -9223372036854775809,
                18446744073709551616, 10 ** 40, 1.7976931348623157e308, -1.7976931348623157e308]
# Values some slots take and others refuse: any answer below 500 will do, and the server must live.
EDGE = [0, -0.0, -1, 0.5, 1e-300, 5e-324, -5e-324, 2 ** 53, 2 ** 53 + 1, 9223372036854775807, -9223372036854775808,
        1e15, 1e16, 1e12, 1e11, 99999999999, 253402300799, 253402300800, 978307200, 1.5e9, 4102444800000]
# Neither numbers nor anything a number slot takes.
WRONG_TYPE = ["1e19", "NaN", "Infinity", "-Infinity", "", " 12", "0x10", True, None, [], {}, [1e19],
              {"n": 1e19}, "x" * 70000]
# Strings a date slot reads as ISO-8601, real and not.
ODD_DATES = ["2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
             "10000-01-01T00:00:00Z", "+275760-09-13T00:00:00Z", "-000001-01-01T00:00:00Z", "2026-12-01",
             "2026-12-01T25:00:00Z", "2026-12-01T10:30:00+99:00", "1e19", "2026-12-01T10:30:00.123456789Z"]
# Text for string slots: empty, past the limits, control characters, astral and combining marks.
STRINGS = ["", "x" * 201, "x" * 70000, "\u0000", "a\u0000b", "\U0001F600" * 300, "e\u0301" * 500, "'; DROP TABLE x; --",
           "%s%n%x", "{orderNumber}", "\\", "\r\n", "\u202e"]
# Raw bodies that are not JSON a server may parse: NaN spellings, huge exponents, deep nesting.
RAW_BODIES = [b'{"x": NaN}', b'{"x": Infinity}', b'{"x": -Infinity}', b'{"x": 1e999999}', b'{"x": -1e999999}',
              b'{"x": 1' + b'0' * 5000 + b'}', b'{"x": 0.' + b'0' * 5000 + b'1}', b'{"x": 1e-999999}',
              b'[' * 100000 + b']' * 100000, b'{"a":' * 20000 + b'1' + b'}' * 20000, b'{"x": -}', b'{"x": 01}',
              b'{"x": 1.}', b'{"x": .5}', b'{"x": +1}', b'\xff\xfe{}', b'{"x": "\\ud800"}']

NUMBER_LIKE = OUT_OF_RANGE + EDGE + WRONG_TYPE
cases = 0

SCHEMAS = {
    "FuzzAttributes": {
        "contentState": {
            "s": {"type": "string", "optional": True},
            "e": {"type": "string", "values": ["a", "b"], "optional": True},
            "n": {"type": "number", "optional": True},
            "i": {"type": "integer", "optional": True},
            "b": {"type": "boolean", "optional": True},
            "d": {"type": "date", "optional": True},
            "o": {"type": "object", "optional": True, "fields": {
                "d": {"type": "date", "optional": True}, "i": {"type": "integer", "optional": True}}},
            "a": {"type": "array", "optional": True, "items": {"type": "object", "fields": {
                "d": {"type": "date", "optional": True}, "n": {"type": "number", "optional": True}}}},
        },
    },
    "RecordAttributes": {
        "contentState": {
            "status": {"type": "string", "values": ["preparing", "onTheWay"]},
            "updatedAt": {"type": "date"},
            "eta": {"type": "date", "optional": True},
            "count": {"type": "integer", "optional": True},
            "current": {"type": "object", "optional": True, "fields": {
                "name": {"type": "string"}, "startsAt": {"type": "date"}}},
            "next": {"type": "object", "optional": True, "fields": {
                "name": {"type": "string"}, "startsAt": {"type": "date"}}},
        },
        "mapper": {
            "events": {
                "r.set": {"set": {"status": {"from": "status", "default": "accepted"}, "eta": {"from": "eta", "optional": True},
                                  "count": {"from": "count", "optional": True}, "list": {"from": "list", "optional": True},
                                  "updatedAt": {"now": True}}},
                "r.done": {"ends": True},
            },
            "contentState": {
                "status": {"enum": "status", "cases": {"accepted": "preparing", "dispatched": "onTheWay"}},
                "updatedAt": {"date": "updatedAt"},
                "eta": {"date": "eta"},
                "count": "count",
                "current": {"entry": "list", "which": "current", "at": "at",
                            "object": {"name": "name", "startsAt": {"date": "at"}}},
                "next": {"entry": "list", "which": "next", "at": "at",
                         "object": {"name": "name", "startsAt": {"date": "at"}}},
            },
        },
    },
    "FuzzWidget": {
        "output": "expo-widgets", "widgetName": "FuzzSmall",
        "contentState": {"n": {"type": "number", "optional": True}, "d": {"type": "date", "optional": True}},
    },
}


def names(field, body):
    """Whether the refusal `body` names `field` (its `field`, or the field's last key in its message)."""
    if not isinstance(body, dict) or "error" not in body:
        return False
    error = body["error"]
    named = error.get("field") or ""
    if named and (named == field or field.startswith(named + ".") or named.startswith(field)):
        return True
    return f"'{field}'" in (error.get("message") or "")


class Fuzzer:
    def __init__(self, stack):
        self.stack = stack
        self.server = stack.processes["server"]
        self.crashed = False

    def alive(self, what):
        """Fails the case if the server died, and starts it again so that one run finds every crash."""
        try:
            status, _, _ = self.stack.api("GET", "/healthz", timeout=10)
        except Exception:
            status = 0
        if self.server.poll() is not None or status != 200:
            check(False, f"the server still answers after {what} (/healthz {status}, exit {self.server.poll()})")
            self.crashed = True
            self.stack.processes.pop("server", None)
            if self.server.poll() is None:
                self.server.kill()
            self.stack.start_server()
            self.server = self.stack.processes["server"]

    def send(self, method, path, body=None, raw=None, field=None, must_refuse=False, what=""):
        """One case: the answer is below 500; a value no slot may hold is a 4xx naming `field`."""
        global cases
        cases += 1
        try:
            status, answer, _ = self.stack.api(method, path, body, raw=raw, timeout=30)
        except Exception as error:  # a dropped connection is how a crash looks from here
            status, answer = 0, str(error)
        label = what or f"{method} {path} {field}={json.dumps(body)[:120] if body is not None else raw[:60]}"
        if status == 0 or status >= 500:
            check(False, f"{label}: answered {status} {str(answer)[:300]}")
            self.alive(label)
            return status, answer
        if must_refuse and not (400 <= status < 500 and (field is None or names(field, answer))):
            check(False, f"{label}: expected a 4xx naming {field}, got {status} {str(answer)[:300]}")
        self.alive(label) if cases % 25 == 0 else None
        return status, answer


def report():
    print(f"schema fuzz: {cases} cases, seed {SEED}")
    if failures:
        print(f"{len(failures)} schema fuzz check(s) failed")
        return 1
    print("schema fuzz: all checks passed")
    return 0


def fuzz_generic_starts(fuzzer):
    """Each content-state slot of the generic schema, in a start and in a PATCH."""
    stack = fuzzer.stack
    status, answer = fuzzer.send("POST", "/v1/activities", {
        "activityId": "fuzz-base", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
        "contentState": {"s": "x"}, "alert": {"title": "t"}, "idempotencyKey": "fuzz-base"})
    check(status == 201, f"a plain start of the fuzz schema is accepted ({status} {answer})")
    slots = {"n": NUMBER_LIKE, "i": NUMBER_LIKE + [1.5], "d": NUMBER_LIKE + ODD_DATES, "o.d": NUMBER_LIKE + ODD_DATES,
             "o.i": NUMBER_LIKE, "a.d": NUMBER_LIKE + ODD_DATES, "a.n": NUMBER_LIKE}
    for slot, values in slots.items():
        for value in values:
            state = nest(slot, value)
            refuse = value in OUT_OF_RANGE and not isinstance(value, bool) and slot.split(".")[-1] in ("i", "d")
            body = {"activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes",
                    "attributes": {}, "contentState": state, "alert": {"title": "t"},
                    "idempotencyKey": f"fuzz-{cases}"}
            fuzzer.send("POST", "/v1/activities", body, field=f"contentState.{slot.replace('a.', 'a[0].')}",
                        must_refuse=refuse, what=f"start FuzzAttributes {slot}={short(value)}")
            fuzzer.send("PATCH", "/v1/activities/fuzz-base", {"contentState": state},
                        field=f"contentState.{slot.replace('a.', 'a[0].')}", must_refuse=refuse,
                        what=f"PATCH FuzzAttributes {slot}={short(value)}")
    for slot in ("s", "e"):
        for value in STRINGS:
            fuzzer.send("PATCH", "/v1/activities/fuzz-base", {"contentState": {slot: value}},
                        what=f"PATCH FuzzAttributes {slot}={short(value)}")
    for value in STRINGS:
        fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {"k": value},
            "contentState": {"s": value}, "alert": {"title": value, "body": value}, "idempotencyKey": value},
            what=f"start with strings {short(value)}")
    for key in ("staleDate", "relevanceScore", "priority"):
        for value in NUMBER_LIKE:
            refuse = value in OUT_OF_RANGE and key != "relevanceScore"
            fuzzer.send("PATCH", "/v1/activities/fuzz-base", {"contentState": {"s": "y"}, key: value}, field=key,
                        must_refuse=refuse, what=f"PATCH {key}={short(value)}")
            fuzzer.send("POST", "/v1/activities", {
                "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
                "contentState": {"s": "x"}, "alert": {"title": "t"}, "idempotencyKey": f"fuzz-{cases}", key: value},
                field=key, must_refuse=refuse, what=f"start {key}={short(value)}")
    for key in ("startAt", "endAt"):
        for value in NUMBER_LIKE + ODD_DATES:
            fuzzer.send("POST", "/v1/activities", {
                "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
                "contentState": {"s": "x"}, "alert": {"title": "t"}, "idempotencyKey": f"fuzz-{cases}", key: value},
                field=key, must_refuse=value in OUT_OF_RANGE, what=f"start {key}={short(value)}")
    for value in NUMBER_LIKE + ODD_DATES:
        fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
            "schedule": [{"at": value, "contentState": {"s": "x"}}], "alert": {"title": "t"},
            "idempotencyKey": f"fuzz-{cases}"}, field="schedule", must_refuse=value in OUT_OF_RANGE,
            what=f"start schedule[0].at={short(value)}")
        fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
            "contentState": {"s": "x"}, "alert": {"title": "t"}, "idempotencyKey": f"fuzz-{cases}",
            "broadcast": {"expiration": value}}, field="broadcast", must_refuse=value in OUT_OF_RANGE,
            what=f"start broadcast.expiration={short(value)}")
        fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "FuzzWidget", "widget": "FuzzSmall",
            "attributes": {}, "contentState": {"d": value}, "alert": {"title": "t"},
            "idempotencyKey": f"fuzz-{cases}"}, field="contentState.d", must_refuse=value in OUT_OF_RANGE,
            what=f"start expo-widgets d={short(value)}")
    for value in NUMBER_LIKE:
        status, _ = fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-end-{cases}", "userId": "u1", "attributesType": "FuzzAttributes", "attributes": {},
            "contentState": {"s": "x"}, "alert": {"title": "t"}, "idempotencyKey": f"fuzz-end-{cases}"})
        fuzzer.send("POST", f"/v1/activities/fuzz-end-{cases - 1}/end", {"dismissal": value}, field="dismissal",
                    must_refuse=value in OUT_OF_RANGE, what=f"end dismissal={short(value)}")


def fuzz_delivery(fuzzer):
    """The built-in delivery mapper's events: step, eta, reassign."""
    fuzzer.send("POST", "/v1/activities", {
        "activityId": "fuzz-order", "userId": "u1", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "A-1"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
        "alert": {"title": "Order placed"}, "idempotencyKey": "fuzz-order"})
    for value in STRINGS:
        fuzzer.send("POST", "/v1/activities/fuzz-order/events", {"type": "delivery.reassign",
                                                                 "data": {"courierName": value}},
                    what=f"delivery.reassign courierName={short(value)}")
        fuzzer.send("POST", "/v1/activities/fuzz-order/events", {"type": value, "data": {}},
                    what=f"event type={short(value)}")
    for value in NUMBER_LIKE:
        fuzzer.send("POST", "/v1/activities/fuzz-order/events", {"type": "delivery.step", "data": {"step": value}},
                    field="data.step", must_refuse=value in OUT_OF_RANGE, what=f"delivery.step step={short(value)}")
        for key in ("minutes", "etaEpochMillis"):
            fuzzer.send("POST", "/v1/activities/fuzz-order/events", {"type": "delivery.eta", "data": {key: value}},
                        field=f"data.{key}", must_refuse=value in OUT_OF_RANGE,
                        what=f"delivery.eta {key}={short(value)}")
        fuzzer.send("POST", "/v1/activities", {
            "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": "A-1"}, "event": {"type": "delivery.step", "data": {"step": value}},
            "alert": {"title": "t"}, "idempotencyKey": f"fuzz-{cases}"}, field="event.data.step",
            must_refuse=value in OUT_OF_RANGE, what=f"start delivery.step step={short(value)}")
        fuzzer.send("PATCH", "/v1/activities/fuzz-order", {"contentState": {
            "status": "x", "progress": value, "eta": value, "stopsRemaining": value, "courierName": "c",
            "riderReassigned": False}}, field="contentState", must_refuse=value in OUT_OF_RANGE,
            what=f"PATCH DeliveryAttributes numbers={short(value)}")


def fuzz_declarative(fuzzer):
    """The declarative mapper: a record's dates, counts and entry times."""
    fuzzer.send("POST", "/v1/activities", {
        "activityId": "fuzz-record", "userId": "u1", "attributesType": "RecordAttributes", "attributes": {},
        "event": {"type": "r.set", "data": {"status": "accepted"}}, "alert": {"title": "t"},
        "idempotencyKey": "fuzz-record"})
    for value in NUMBER_LIKE + ODD_DATES:
        for data, field in (({"eta": value}, "contentState.eta"), ({"count": value}, "contentState.count"),
                            ({"list": [{"name": "a", "at": value}]}, "contentState"),
                            ({"list": [{"name": "a", "at": value}, {"name": "b", "at": 1.9e9}]}, "contentState")):
            refuse = value in OUT_OF_RANGE
            fuzzer.send("POST", "/v1/activities/fuzz-record/events", {"type": "r.set", "data": data}, field=field,
                        must_refuse=refuse, what=f"r.set {json.dumps(data)[:80]}")
            fuzzer.send("POST", "/v1/activities", {
                "activityId": f"fuzz-{cases}", "userId": "u1", "attributesType": "RecordAttributes", "attributes": {},
                "event": {"type": "r.set", "data": data}, "alert": {"title": "t"}, "idempotencyKey": f"fuzz-{cases}"},
                field=field, must_refuse=refuse, what=f"start r.set {json.dumps(data)[:80]}")


def fuzz_push_and_doctor(fuzzer):
    """`/v1/push` and `/v1/doctor`: every number an APNs payload or an FCM message carries."""
    token = "5c1e" * 16
    for value in NUMBER_LIKE:
        aps_slots = {"timestamp": value, "stale-date": value, "dismissal-date": value, "relevance-score": value}
        for key, v in aps_slots.items():
            aps = {"event": "update", "timestamp": 1796040000, "content-state": {"status": "x", "eta": 1}}
            aps[key] = v
            payload = {"aps": aps}
            fuzzer.send("POST", "/v1/push", {"provider": "apns", "token": token, "environment": "sandbox",
                                             "payload": payload}, what=f"push aps.{key}={short(value)}")
            fuzzer.send("POST", "/v1/doctor", {"apns": {"path": f"/3/device/{token}", "headers": {
                "apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity"},
                "payload": payload}}, what=f"doctor aps.{key}={short(value)}")
        for key in ("eta", "progress", "stopsRemaining"):
            payload = {"aps": {"event": "update", "timestamp": 1796040000, "content-state": {key: value}}}
            fuzzer.send("POST", "/v1/push", {"provider": "apns", "token": token, "payload": payload},
                        what=f"push content-state.{key}={short(value)}")
            fuzzer.send("POST", "/v1/doctor", {"apns": {"path": f"/3/device/{token}", "headers": {},
                                                        "payload": payload},
                                               "context": {"contract": "DeliveryAttributes"}},
                        what=f"doctor content-state.{key}={short(value)}")
        fuzzer.send("POST", "/v1/push", {"provider": "apns", "token": token, "payload": {"aps": {}},
                                         "priority": value}, field="priority", must_refuse=value in OUT_OF_RANGE,
                    what=f"push priority={short(value)}")
        fuzzer.send("POST", "/v1/push", {"provider": "fcm", "token": "fcm-token", "data": {"a": "b"},
                                         "ttlSeconds": value}, field="ttlSeconds",
                    must_refuse=value in OUT_OF_RANGE, what=f"push ttlSeconds={short(value)}")
        for message in ({"token": "t", "android": {"ttl": f"{value}s"}, "data": {"a": "b"}},
                        {"token": "t", "android": {"ttl": value}, "data": {"a": "b"}},
                        {"token": "t", "android": {"priority": value, "notification": {"notification_count": value}}},
                        {"token": "t", "apns": {"headers": {"apns-expiration": str(value)}}}):
            fuzzer.send("POST", "/v1/doctor", {"fcm": {"message": message}},
                        what=f"doctor fcm {json.dumps(message)[:80]}")
        for header in ("apns-expiration", "apns-priority", "apns-push-type"):
            fuzzer.send("POST", "/v1/doctor", {"apns": {"path": f"/3/device/{token}",
                                                        "headers": {header: str(value)},
                                                        "payload": {"aps": {"alert": "x"}}}},
                        what=f"doctor header {header}={short(value)}")
        context = {"now": value, "tokenEnvironment": "sandbox", "device": {"osVersion": str(value)},
                   "sender": {"jwtIssuedAt": value, "lastAlertAt": value}}
        fuzzer.send("POST", "/v1/doctor", {"apns": {"path": f"/3/device/{token}", "headers": {},
                                                    "payload": {"aps": {"event": "update", "timestamp": 1}}},
                                           "context": context}, what=f"doctor context={short(value)}")
        text = (f"curl -H 'apns-expiration: {value}' -H 'apns-push-type: liveactivity' "
                f"-d '{{\"aps\":{{\"event\":\"update\",\"timestamp\":{json.dumps(value)},"
                f"\"content-state\":{{\"eta\":{json.dumps(value)}}}}}}}' https://api.push.apple.com/3/device/{token}")
        fuzzer.send("POST", "/v1/doctor", {"request": text}, what=f"doctor request text {short(value)}")


def fuzz_device_routes(fuzzer):
    """Token registrations' device facts, lifecycle reports and credential minting."""
    for value in NUMBER_LIKE:
        for key in ("activeActivities", "launchesWithoutPushToStartToken"):
            fuzzer.send("POST", "/v1/tokens/fcm", {"userId": "u1", "deviceId": "pixel", "token": "fcm-a",
                                                   "device": {key: value}}, field=f"device.{key}",
                        must_refuse=value in OUT_OF_RANGE, what=f"fcm token device.{key}={short(value)}")
        fuzzer.send("POST", "/v1/device-credentials", {"userId": "u1", "ttlSeconds": value}, field="ttlSeconds",
                    must_refuse=value in OUT_OF_RANGE, what=f"mint ttlSeconds={short(value)}")


def fuzz_raw_bodies(fuzzer):
    """Malformed JSON on every body-taking route: a 400, never a crash."""
    for raw in RAW_BODIES:
        for method, path in (("POST", "/v1/activities"), ("PATCH", "/v1/activities/fuzz-base"),
                             ("POST", "/v1/activities/fuzz-order/events"), ("POST", "/v1/push"),
                             ("POST", "/v1/doctor"), ("POST", "/v1/tokens/fcm")):
            status, _ = fuzzer.send(method, path, raw=raw, what=f"{method} {path} raw {raw[:40]!r}")
            if status not in (400, 413, 415, 422):
                check(False, f"{method} {path} raw {raw[:40]!r}: expected 400, got {status}")


def fuzz_random(fuzzer, count):
    """Random mixes: several hostile values at once in the generic schema and the mapper's record."""
    pool = NUMBER_LIKE + ODD_DATES
    for _ in range(count):
        state = {key: rng.choice(pool) for key in rng.sample(["n", "i", "d", "b", "s", "e"], rng.randint(1, 4))}
        fuzzer.send("PATCH", "/v1/activities/fuzz-base", {"contentState": state}, what=f"PATCH random {short(state)}")
        data = {key: rng.choice(pool) for key in rng.sample(["eta", "count", "status"], rng.randint(1, 3))}
        fuzzer.send("POST", "/v1/activities/fuzz-record/events", {"type": "r.set", "data": data},
                    what=f"r.set random {short(data)}")


def fuzz_cli(stack, work):
    """`droptrack doctor` on files holding the hostile values, and `tokens import` lines."""
    global cases
    token = "5c1e" * 16
    for value in NUMBER_LIKE:
        for payload in ({"aps": {"event": "update", "timestamp": value, "content-state": {"eta": value}}},
                        {"aps": {"event": "end", "timestamp": 1, "dismissal-date": value, "stale-date": value}},
                        {"message": {"token": "t", "android": {"ttl": f"{value}s"}, "data": {"a": "b"}}}):
            cases += 1
            path = f"{work}/push.json"
            with open(path, "w") as f:
                json.dump(payload, f)
            result = subprocess.run([stack.droptrack, "doctor", path, "--contract", "DeliveryAttributes"],
                                    capture_output=True, text=True, timeout=60)
            if result.returncode not in (0, 1, 2):
                check(False, f"droptrack doctor on {short(payload)}: exit {result.returncode} {result.stderr[-300:]}")
        cases += 1
        with open(f"{work}/tokens.jsonl", "w") as f:
            f.write(json.dumps({"kind": "push_to_start", "userId": "u1", "deviceId": "d", "token": token,
                                "environment": "sandbox", "attributesType": "FuzzAttributes",
                                "lastSeenAt": value}) + "\n")
        result = subprocess.run([stack.droptrack, "tokens", "import", "--config", stack.config, "--app", "app1",
                                 "--file", f"{work}/tokens.jsonl"], capture_output=True, text=True, timeout=60,
                                env={**os.environ, **stack.server_environment()})
        if result.returncode not in (0, 1, 2):
            check(False, f"tokens import lastSeenAt={short(value)}: exit {result.returncode} {result.stderr[-300:]}")


def nest(slot, value):
    head, _, rest = slot.partition(".")
    if head == "a":
        return {"a": [{rest: value}]}
    if rest:
        return {head: {rest: value}}
    return {head: value}


def short(value):
    text = json.dumps(value) if not isinstance(value, float) or value == value else "nan"
    return text if len(text) <= 60 else text[:57] + "…"


class FuzzStack(Stack):
    def start_server(self, name="server"):
        config = json.load(open(self.config))
        config["apps"][0]["schemas"] = SCHEMAS
        json.dump(config, open(self.config, "w"), indent=2)
        super().start_server(name)


def main():
    started = time.time()
    with FuzzStack(DROPTRACK, apps=("app1",), server_env={"DROPTRACK_REQUESTS_PER_SECOND_PER_KEY": "0"}) as stack:
        fuzzer = Fuzzer(stack)
        for part in (fuzz_generic_starts, fuzz_delivery, fuzz_declarative, fuzz_push_and_doctor,
                     fuzz_device_routes, fuzz_raw_bodies):
            before = cases
            part(fuzzer)
            print(f"  {part.__name__}: {cases - before} cases")
        fuzz_random(fuzzer, 300)
        with tempfile.TemporaryDirectory() as work:
            before = cases
            fuzz_cli(stack, work)
            print(f"  fuzz_cli: {cases - before} cases")
        fuzzer.alive("the whole run")
        log = open(f"{stack.work}/server.log").read()
        check("Fatal error" not in log and '"level":"critical"' not in log, "the server logged no crash")
    print(f"  ran in {time.time() - started:.0f} s")
    return report()


if __name__ == "__main__":
    sys.exit(main())
