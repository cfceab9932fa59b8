"""The SDK against a real `droptrack serve` with the emulators (checks/sdk_server.py starts it and writes its
facts to the file named by DROPTRACK_SDK_FACTS): a start, an event, an audience start, a device credential
minted here that the server takes, forged ones it refuses, and a webhook from the server verified."""
import base64
import contextlib
import hashlib
import http.server
import io
import json
import os
import threading
import time
import unittest
import unittest.mock

import droptrack
from droptrack.credentials import N

FACTS = json.load(open(os.environ["DROPTRACK_SDK_FACTS"]))
START = {"attributes_type": "DeliveryAttributes", "attributes": {"orderId": "A-1"},
         "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}},
         "alert": {"title": "Order placed"}}
PREFIX = f"py{os.getpid()}-"  # ids of this run: the server may have served an earlier one


def hex_token(seed):
    """An APNs token of this run (the emulator takes any 32 bytes)."""
    return hashlib.sha256((PREFIX + seed).encode()).hexdigest()


def unb64(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


class Receiver:
    """The app's webhook endpoint, on the port the server was configured with."""

    def __init__(self, port):
        self.received = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def delivery(self, predicate, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for headers, body in list(self.received):
                if predicate(json.loads(body)):
                    return headers, body
            time.sleep(0.05)
        raise AssertionError(f"no matching webhook delivery within {timeout} s; got {len(self.received)}")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class ServerTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = droptrack.Client(FACTS["baseUrl"], FACTS["apiKey"])
        with open(FACTS["privateKeyFile"], "rb") as f:
            cls.key = droptrack.DeviceKey(FACTS["kid"], f.read(), FACTS["appId"], api_key=FACTS["apiKey"])
        with open(FACTS["strangerKeyFile"], "rb") as f:
            cls.stranger = droptrack.DeviceKey(FACTS["kid"], f.read(), FACTS["appId"])
        cls.receiver = Receiver(FACTS["webhookPort"])

    @classmethod
    def tearDownClass(cls):
        cls.receiver.close()

    def device_client(self, credential):
        return droptrack.Client(FACTS["baseUrl"], credential, max_attempts=1)

    def test_a_start_an_event_and_an_end(self):
        user, activity = PREFIX + "u1", PREFIX + "order-1"
        self.client.register_push_to_start(user, PREFIX + "iphone-1", hex_token("a1"), "sandbox", "DeliveryAttributes")
        started = self.client.start_activity(activity, user_id=user, **START)
        self.assertEqual((started["activityId"], started["destinations"]), (activity, 1))
        again = self.client.start_activity(activity, user_id=user, idempotency_key=started["idempotencyKey"], **START)
        self.assertEqual(again["version"], started["version"], "the same key gives the same answer")
        version = self.client.post_event(activity, "delivery.step", {"step": "picked_up"})
        self.assertGreater(version["version"], started["version"])
        content_state = self.client.get_activity(activity)["contentState"]
        self.assertEqual(content_state["status"], "Picked up")
        updated = self.client.update_activity(activity, {**content_state, "stopsRemaining": 1},
                                              alert={"title": "Almost there"})
        self.assertEqual((updated["event"], updated["version"]), ("update", version["version"] + 1))
        self.assertEqual(self.client.get_activity(activity)["contentState"]["stopsRemaining"], 1)
        self.assertIn("findings", self.client.diagnose(activity))
        deadline = time.time() + 30
        while not any(entry["event"] == "start" and entry["reason"] == "ok"
                      for entry in self.client.get_activity(activity)["timeline"]):
            self.assertLess(time.time(), deadline, "the start reached the APNs emulator")
            time.sleep(0.1)
        with self.assertRaises(droptrack.DropTrackError) as raised:
            self.client.post_event(activity, "delivery.nonsense", {})
        self.assertEqual(raised.exception.status, 422)
        self.assertTrue(raised.exception.code and raised.exception.message)

    def test_a_broadcast_start_and_a_channel_subscription(self):
        user, activity = PREFIX + "u-cast", PREFIX + "cast-1"
        self.client.register_push_to_start(user, PREFIX + "iphone-cast", hex_token("b2"), "sandbox", "DeliveryAttributes")
        started = self.client.start_activity(activity, user_id=user, broadcast={}, **START)
        self.assertTrue(started.get("channelId"), "a broadcast start names its channel")
        subscribed = self.client.subscribe_channel(activity, PREFIX + "iphone-cast")
        self.assertEqual((subscribed["kind"], subscribed["created"]), ("channel_subscription", True))
        self.client.unregister_token(subscribed["fingerprint"])

    def test_a_refusal_carries_the_servers_code_and_field(self):
        with self.assertRaises(droptrack.DropTrackError) as raised:
            self.client.start_activity("bad id!", user_id="u1", **START)
        error = raised.exception
        self.assertEqual((error.status, error.code, error.field), (400, "invalid_field", "activityId"))
        self.assertIn("A-Z", error.message)

    def test_an_audience_start_by_tags(self):
        gold, beta, tin = PREFIX + "gold", PREFIX + "beta", PREFIX + "tin"
        for user, device, tags in [("gold-1", "g1", [gold]), ("gold-2", "g2", [gold, beta]), ("tin-1", "t1", [tin])]:
            self.client.register_fcm(PREFIX + user, PREFIX + device, f"fcm-token-of-{PREFIX}{device}-0001")
            self.assertEqual(self.client.set_user_tags(PREFIX + user, tags)["tags"], sorted(tags))
        self.assertEqual(self.client.get_user_tags(PREFIX + "gold-2")["tags"], sorted([gold, beta]))
        started = self.client.start_audience(PREFIX + "sale-1", {"tags": {"all": [gold]}}, **START)
        self.assertEqual(started["destinations"], 2, "the two gold users' devices, not the tin one")
        self.client.set_user_tags(PREFIX + "tin-1", [gold])
        refreshed = self.client.refresh_audience(PREFIX + "sale-1")
        self.assertEqual((refreshed["joined"], refreshed["members"]), (1, 3))

    def test_a_credential_minted_here_registers_a_token(self):
        credential = self.key.mint(PREFIX + "u-cred", ttl_seconds=600)
        header = json.loads(unb64(credential.split(".")[0]))
        claims = json.loads(unb64(credential.split(".")[1]))
        self.assertEqual(header, {"alg": "ES256", "typ": "JWT", "kid": FACTS["kid"]})
        self.assertEqual((claims["sub"], claims["aud"], claims["kfp"]),
                         (PREFIX + "u-cred", FACTS["appId"], droptrack.fingerprint(FACTS["apiKey"])))
        self.assertEqual(claims["exp"] - claims["iat"], 600)
        registered = self.device_client(credential).register_push_to_start(
            PREFIX + "u-cred", PREFIX + "iphone-cred", hex_token("c3"), "sandbox", "DeliveryAttributes")
        self.assertTrue(registered["created"])

    def test_every_credential_has_a_low_s_and_the_server_takes_each(self):
        for n in range(24):  # with OpenSSL's s, about half would be high: 2^-24 to pass by luck
            credential = self.key.mint(PREFIX + "u-low")
            s = int.from_bytes(unb64(credential.split(".")[2])[32:], "big")
            self.assertLessEqual(s, N // 2, f"credential {n} has a high s")
        tags = self.device_client(credential).get_user_tags(PREFIX + "u-low")
        self.assertEqual(tags["tags"], [])

    def test_forged_credentials_are_refused(self):
        forged = self.stranger.mint(PREFIX + "u-forged")
        with self.assertRaises(droptrack.DropTrackError) as raised:
            self.device_client(forged).get_user_tags(PREFIX + "u-forged")
        self.assertEqual((raised.exception.status, raised.exception.code), (401, "credential_bad_signature"))
        self.assertNotIn(forged.split(".")[2], str(raised.exception))
        signing_input, signature = self.key.mint(PREFIX + "u-forged").rsplit(".", 1)
        raw = unb64(signature)
        twin = raw[:32] + (N - int.from_bytes(raw[32:], "big")).to_bytes(32, "big")
        high = signing_input + "." + base64.urlsafe_b64encode(twin).rstrip(b"=").decode()
        with self.assertRaises(droptrack.DropTrackError) as raised:
            self.device_client(high).get_user_tags(PREFIX + "u-forged")
        self.assertEqual((raised.exception.status, raised.exception.code), (401, "credential_high_s"))

    def test_the_servers_429_is_waited_out(self):
        """A device credential's user may make 20 calls at once, then 5 a second (requestsPerSecondPerUser):
        30 calls in a row meet the server's 429 and its Retry-After, and all succeed."""
        waits = []
        credential = self.key.mint(PREFIX + "u-busy")
        busy = droptrack.Client(FACTS["baseUrl"], credential, sleep=lambda s: (waits.append(s), time.sleep(s)))
        for _ in range(30):
            self.assertEqual(busy.get_user_tags(PREFIX + "u-busy")["tags"], [])
        self.assertTrue(waits, "the server refused some with 429")
        self.assertTrue(all(wait >= 1 for wait in waits), f"each wait is the server's Retry-After: {waits}")

    def test_a_credential_from_the_server(self):
        issued = self.client.issue_device_credential(PREFIX + "u-issued", ttl_seconds=300)
        self.assertEqual(issued["userId"], PREFIX + "u-issued")
        self.assertEqual(self.device_client(issued["credential"]).get_user_tags(PREFIX + "u-issued")["tags"], [])

    def test_a_webhook_from_the_server_is_verified_and_a_tampered_one_refused(self):
        user, activity = PREFIX + "u-hook", PREFIX + "order-hook"
        self.client.register_fcm(user, PREFIX + "pixel-hook", f"fcm-token-of-the-{PREFIX}hook-0001")
        self.client.start_activity(activity, user_id=user, **START)
        self.client.end_activity(activity, dismissal="immediate")
        headers, body = self.receiver.delivery(lambda d: d["type"] == "activity_ended" and d["activityId"] == activity)
        verifier = droptrack.WebhookVerifier(FACTS["webhookSecret"])
        header = headers["droptrack-signature"]
        event = verifier.verify(header, body)
        self.assertEqual((event["type"], event["activityId"], event["id"]),
                         ("activity_ended", activity, headers["droptrack-delivery"]))
        tampered = body.replace(activity.encode(), PREFIX.encode() + b"order-other")
        for bad_body, bad_header, reason in [
                (tampered, header, "bad_signature"),
                (body + b" ", header, "bad_signature"),
                (body, header.replace("v1=", "v1=0"), "bad_signature"),
                (body, "v1=" + header.split("v1=")[1], "malformed_header")]:
            with self.assertRaises(droptrack.WebhookVerificationError) as raised:
                verifier.verify(bad_header, bad_body)
            self.assertEqual(raised.exception.reason, reason)
        with self.assertRaises(droptrack.WebhookVerificationError) as raised:
            droptrack.WebhookVerifier("whsec_another").verify(header, body)
        self.assertEqual(raised.exception.reason, "bad_signature")
        later = droptrack.WebhookVerifier(FACTS["webhookSecret"], clock=lambda: time.time() + 301)
        with self.assertRaises(droptrack.WebhookVerificationError) as raised:
            later.verify(header, body)
        self.assertEqual(raised.exception.reason, "too_old", "a replay after the window is refused")
        self.assertNotIn(FACTS["webhookSecret"], repr(verifier))


    def test_the_readmes_example_runs_as_written(self):
        """docs/how-to/backend-sdks.md's Python block, with the variables it reads; its fixed ids need a
        server it has not run against, as test.sh gives it."""
        with open(os.path.join(os.environ["DROPTRACK_REPOSITORY"], "docs", "how-to", "backend-sdks.md")) as f:
            section = f.read()
        block = section[section.index("```python\n") + len("```python\n"):]
        block = block[:block.index("```\n")]
        environment = {"DROPTRACK_URL": FACTS["baseUrl"], "DROPTRACK_API_KEY": FACTS["apiKey"],
                       "DROPTRACK_WEBHOOK_SECRET": FACTS["webhookSecret"]}
        printed = io.StringIO()
        with unittest.mock.patch.dict(os.environ, environment), contextlib.redirect_stdout(printed):
            namespace = {"__name__": "readme"}
            exec(compile(block, "docs/how-to/backend-sdks.md", "exec"), namespace)
        self.assertTrue(printed.getvalue().startswith("422 "), printed.getvalue())
        self.assertEqual(self.client.get_activity("order-2001")["contentState"]["status"], "Picked up")
        self.assertEqual(self.client.get_activity("sale-2001")["progress"]["members"], 1)
        self.client.end_activity("order-2001")
        headers, body = self.receiver.delivery(lambda d: d["type"] == "activity_ended" and d["activityId"] == "order-2001")
        with unittest.mock.patch.dict(os.environ, environment):
            self.assertEqual(namespace["on_webhook"](headers["droptrack-signature"], body)["activityId"], "order-2001")
            with self.assertRaises(droptrack.WebhookVerificationError):
                namespace["on_webhook"](headers["droptrack-signature"], body.replace(b"order-2001", b"order-2002"))


if __name__ == "__main__":
    unittest.main()
