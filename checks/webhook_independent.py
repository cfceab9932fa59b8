#!/usr/bin/env python3
"""Webhook signatures checked with code nobody here wrote: Python's `hmac` and `hashlib`.

`droptrack apps webhook add` writes a fresh secret (0600) and prints it; a `droptrack serve` with that
endpoint ends an activity; a plain `http.server` receiver gets the `activity_ended` delivery and checks
`DropTrack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with `hmac.compare_digest`,
as a receiver's few lines would. A changed body must not verify. Then, with the receiver answering 503,
a second activity ends, the server is killed (SIGKILL) and started again: the delivery is not lost.
The receiver function of docs/how-to/webhooks.md (its ```python block, as written) verifies the same
delivery and refuses the same tamperings.

Usage: webhook_independent.py PATH/TO/droptrack
Exits non-zero if a check failed.
"""
import hashlib
import hmac
import http.server
import json
import os
import secrets
import signal
import stat
import sys
import threading
import time

import jsonschema
import referencing
import referencing.jsonschema

from stack import Stack, check, failures, wait_until


def verify(secret, header, body):
    """What a receiver does: parse t and v1, recompute the HMAC, compare in constant time."""
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    expected = hmac.new(secret.encode(), f"{parts.get('t', '')}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", "")), int(parts.get("t", "0"))


def documented_verifier():
    """The `verified` function of docs/how-to/webhooks.md, run as the page prints it."""
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "how-to", "webhooks.md")
    lines = open(page).read().split("\n")
    mark = lines.index("<!-- checked by: checks/webhook_independent.py -->")
    if not lines[mark + 1].startswith("```python"):
        sys.exit("docs/how-to/webhooks.md: no ```python block right after its checked-by mark")
    end = lines.index("```", mark + 2)
    scope = {}
    exec("\n".join(lines[mark + 2:end]), scope)
    return scope["verified"]


def conforms_to_openapi(received):
    """Each delivery, headers and body, against the `webhooks` of the server's OpenAPI document, with
    jsonschema (Draft 2020-12, which OpenAPI 3.1 uses) resolving the document's own references."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "DropTrackAPI",
                           "openapi.json")) as f:
        document = json.load(f)
    registry = referencing.Registry().with_resource(
        "urn:droptrack:openapi", referencing.Resource.from_contents(document, referencing.jsonschema.DRAFT202012))
    for headers, body in received:
        event = json.loads(body)
        operation = document.get("webhooks", {}).get(event.get("type"), {}).get("post")
        check(operation is not None, f"openapi.json describes the {event.get('type')} webhook")
        if operation is None:
            continue
        schema = {"$ref": f"urn:droptrack:openapi#/webhooks/{event['type']}/post/requestBody/content/"
                          "application~1json/schema"}
        validator = jsonschema.Draft202012Validator(schema, registry=registry,
                                                    format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        problems = [f"{'/'.join(map(str, error.path))}: {error.message}" for error in validator.iter_errors(event)]
        check(not problems, f"the {event['type']} delivery's body validates against openapi.json {problems}")
        for parameter in operation["parameters"]:
            value = headers.get(parameter["name"].lower())
            header_problems = [error.message for error in jsonschema.Draft202012Validator(
                parameter["schema"], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).iter_errors(value)]
            check(value is not None and not header_problems,
                  f"its {parameter['name']} header validates ({header_problems})")


def main(droptrack):
    received = []
    refused = []
    down = threading.Event()

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if down.is_set():
                refused.append(body)
                self.send_response(503)
                self.end_headers()
                return
            received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
    try:
        with Stack(droptrack) as stack:
            with open(stack.config) as f:
                config = json.load(f)
            config["allowLoopbackWebhooks"] = True
            config["maxAttempts"] = 1  # a send refused once is a dead letter at once
            with open(stack.config, "w") as f:
                json.dump(config, f)
            secret = stack.run("apps", "webhook", "add", "--config", stack.config, "--app", "app1", "--url", url,
                               "--id", "ops", "--events", "activity_ended,token_invalidated,dead_letter,activity_dismissed,start_in_doubt,"
                               "activity_action").strip()
            secret_file = f"{os.path.dirname(stack.config)}/app1-webhook-ops.secret"
            check(secret.startswith("whsec_") and len(secret) > 40, "apps webhook add prints a fresh secret once")
            check(stat.S_IMODE(os.stat(secret_file).st_mode) == 0o600, "the secret file is 0600")
            stack.kill_server(sig=signal.SIGTERM)
            stack.start_server()
            status, answer, _ = stack.api("POST", "/v1/activities", {
                "activityId": "order-7", "userId": "user-7", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "A-7"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": "start-order-7"})
            check(status == 201, f"an activity starts ({status})")
            status, _, _ = stack.api("POST", "/v1/activities/order-7/end", {})
            check(status == 200, "the activity ends")
            wait_until("the activity_ended delivery", lambda: received, timeout=30)
            headers, body = received[0]
            valid, t = verify(secret, headers.get("droptrack-signature", ""), body)
            check(valid, "Python's hmac verifies DropTrack-Signature with the secret")
            check(abs(time.time() - t) < 300, "the signature's timestamp is now")
            check(not verify(secret, headers.get("droptrack-signature", ""), body + b" ")[0],
                  "a changed body does not verify")
            check(not verify("whsec_wrong", headers.get("droptrack-signature", ""), body)[0],
                  "another secret does not verify")
            documented = documented_verifier()
            signature = headers.get("droptrack-signature", "")
            check(documented(secret.encode(), signature, body), "docs/how-to/webhooks.md's verifier accepts the delivery")
            check(not documented(secret.encode(), signature, body + b" "),
                  "docs/how-to/webhooks.md's verifier refuses a changed body")
            check(not documented(b"whsec_wrong", signature, body), "docs/how-to/webhooks.md's verifier refuses another secret")
            # Signed correctly, but ten minutes old: only the replay window refuses it.
            old_t = t - 600
            resigned = hmac.new(secret.encode(), f"{old_t}.".encode() + body, hashlib.sha256).hexdigest()
            check(not documented(secret.encode(), f"t={old_t},v1={resigned}", body),
                  "docs/how-to/webhooks.md's verifier refuses a correctly signed delivery ten minutes old")
            event = json.loads(body)
            check(event["type"] == "activity_ended" and headers.get("droptrack-event") == "activity_ended",
                  "the body and DropTrack-Event name the event")
            check(event["id"] == headers.get("droptrack-delivery") and event["activityId"] == "order-7",
                  "DropTrack-Delivery is the body's id; the body names the activity")

            down.set()
            status, _, _ = stack.api("POST", "/v1/activities", {
                "activityId": "order-8", "userId": "user-8", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "A-8"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": "start-order-8"})
            status, _, _ = stack.api("POST", "/v1/activities/order-8/end", {})
            check(status == 200, "a second activity ends while the receiver answers 503")
            wait_until("a refused attempt", lambda: refused, timeout=30)
            stack.kill_server(sig=signal.SIGKILL)
            down.clear()
            stack.start_server()
            wait_until("the delivery after kill -9", lambda: len(received) >= 2, timeout=60)
            headers, body = received[1]
            check(verify(secret, headers.get("droptrack-signature", ""), body)[0]
                  and json.loads(body)["activityId"] == "order-8",
                  "after kill -9 and a restart the queued delivery arrives, signed")

            # APNs refuses a token (400 BadDeviceToken): an invalidated token, as a delivery of its own.
            token = secrets.token_hex(32)
            stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "badDeviceToken", "token": token}]})
            stack.api("POST", "/v1/activities", {
                "activityId": "order-9", "userId": "user-9", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "A-9"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": "start-order-9"})
            status, _, _ = stack.api("POST", "/v1/tokens/activity", {
                "activityId": "order-9", "deviceId": "d9", "token": token, "environment": "sandbox"})
            check(status in (200, 201), f"an update token is registered ({status})")
            stack.api("POST", "/v1/activities/order-9/events", {"type": "delivery.step", "data": {"step": "picked_up"}})
            kinds = lambda: {json.loads(body)["type"] for _, body in received}
            # APNs fails once (500): with maxAttempts 1, a dead letter. The device reports the card dismissed.
            other = secrets.token_hex(32)
            stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "internalServerError", "token": other}]})
            stack.api("POST", "/v1/tokens/activity", {
                "activityId": "order-9", "deviceId": "d10", "token": other, "environment": "sandbox"})
            stack.api("POST", "/v1/activities/order-9/events", {"type": "delivery.step", "data": {"step": "nearby"}})
            status, answer, _ = stack.api("POST", "/v1/activities/order-9/lifecycle",
                                          {"deviceId": "d10", "state": "dismissed", "reason": "swiped"})
            check(status == 200, f"a dismissal is reported ({status} {answer})")
            # A button of the Live Activity is pressed (here through the API key; a phone uses its credential).
            stack.api("POST", "/v1/activities", {
                "activityId": "order-12", "userId": "user-12", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "A-12"}, "event": {"type": "delivery.step", "data": {"step": "nearby"}},
                "alert": {"title": "Almost there"}, "idempotencyKey": "start-order-12"})
            status, answer, _ = stack.api("POST", "/v1/activities/order-12/actions",
                                          {"deviceId": "d12", "action": "confirm_receipt"})
            check(status == 200, f"a press of the card's button is recorded ({status} {answer})")
            # The connection drops with a start unanswered: it may have arrived, so it is in doubt, never sent again.
            starter = secrets.token_hex(32)
            stack.emulator("apns", "/_emulator/faults", {"faults": [{"kind": "connectionReset", "token": starter}]})
            stack.api("POST", "/v1/tokens/push-to-start", {"userId": "user-11", "deviceId": "d11", "token": starter,
                                                           "environment": "sandbox",
                                                           "attributesType": "DeliveryAttributes"})
            stack.api("POST", "/v1/activities", {
                "activityId": "order-11", "userId": "user-11", "attributesType": "DeliveryAttributes",
                "attributes": {"orderId": "A-11"}, "event": {"type": "delivery.step", "data": {"step": "placed"}},
                "alert": {"title": "Order placed"}, "idempotencyKey": "start-order-11"})
            wait_until("a delivery of every other event", lambda: {"token_invalidated", "dead_letter", "activity_dismissed",
                                                                   "start_in_doubt", "activity_action"} <= kinds(), timeout=60)
            check(not any(raw.encode() in body for _, body in received for raw in (token, other, starter)),
                  "no delivery holds a raw token")
            conforms_to_openapi(received)
    finally:
        receiver.shutdown()
    if failures:
        print(f"FAIL {len(failures)} check(s) failed")
        sys.exit(1)
    print("webhook signatures verified independently")


if __name__ == "__main__":
    main(sys.argv[1])
