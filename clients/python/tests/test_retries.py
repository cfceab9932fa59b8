"""The retry rules against a tiny HTTP server on 127.0.0.1 that answers from a script: a 429 with
Retry-After is waited out and retried; a non-idempotent call is never sent twice after an answer that may
mean it was served; a start repeats with the same idempotency key."""
import http.server
import json
import socket
import threading
import unittest

import droptrack
from droptrack._http import retry_after_seconds


class Scripted:
    """Answers each request with the next (status, headers, body) and records what came."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                owner.requests.append((self.command, self.path, dict(self.headers), self.rfile.read(length)))
                answer = owner.answers.pop(0)
                if answer is None:  # the connection closes with no answer, as a crash or a reset would
                    self.close_connection = True
                    return
                status, headers, body = answer
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def refusal(status, code, retry_after=None):
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return status, headers, {"error": {"code": code, "message": f"{code}: fix it", "field": "x"}}


VERSION = (200, {}, {"activityId": "a1", "state": "active", "version": 2})


class RetryTests(unittest.TestCase):
    def client(self, server, **options):
        waits = []
        return droptrack.Client(server.url, "dt_app1_secretsecret", sleep=waits.append, **options), waits

    def scripted(self, *answers):
        server = Scripted(answers)
        self.addCleanup(server.close)
        return server

    def test_a_429_is_retried_after_its_retry_after(self):
        server = self.scripted(refusal(429, "rate_limited", 3), VERSION)
        client, waits = self.client(server)
        answer = client.post_event("a1", "delivery.step", {"step": "picked_up"})
        self.assertEqual(answer["version"], 2)
        self.assertEqual(len(server.requests), 2, "one 429, then the same event once")
        self.assertEqual(waits, [3.0], "the wait is the server's Retry-After")

    def test_the_connection_guards_503_is_retried_for_any_call(self):
        server = self.scripted(refusal(503, "unavailable", 2), VERSION)
        client, waits = self.client(server)
        client.end_activity("a1")
        self.assertEqual((len(server.requests), waits), (2, [2.0]))

    def test_a_served_503_is_not_repeated_for_an_event(self):
        server = self.scripted(refusal(503, "store_unavailable", 1), VERSION)
        client, waits = self.client(server)
        with self.assertRaises(droptrack.DropTrackError) as raised:
            client.post_event("a1", "delivery.step", {"step": "picked_up"})
        self.assertEqual(len(server.requests), 1, "an event the server may have applied is not sent again")
        self.assertEqual(waits, [])
        error = raised.exception
        self.assertEqual((error.status, error.code, error.field, error.retry_after), (503, "store_unavailable", "x", 1.0))

    def test_a_served_503_is_not_repeated_for_an_update_or_an_end(self):
        server = self.scripted(refusal(503, "store_unavailable", 1), refusal(503, "store_unavailable", 1), VERSION)
        client, _ = self.client(server)
        with self.assertRaises(droptrack.DropTrackError):
            client.update_activity("a1", {"step": 2})
        with self.assertRaises(droptrack.DropTrackError):
            client.end_activity("a1")
        self.assertEqual(len(server.requests), 2)

    def test_a_start_is_repeated_with_its_idempotency_key(self):
        started = (201, {}, {"activityId": "a1", "state": "pending", "version": 1})
        server = self.scripted(refusal(503, "store_unavailable", 1), started)
        client, waits = self.client(server)
        answer = client.start_activity("a1", "DeliveryAttributes", {"orderId": "A-1"}, user_id="u1",
                                       event={"type": "delivery.step", "data": {"step": "placed"}})
        bodies = [json.loads(request[3]) for request in server.requests]
        self.assertEqual(len(bodies), 2)
        self.assertTrue(bodies[0]["idempotencyKey"], "the client made a key")
        self.assertEqual(bodies[0]["idempotencyKey"], bodies[1]["idempotencyKey"], "the retry carries the same key")
        self.assertEqual(answer["idempotencyKey"], bodies[0]["idempotencyKey"])
        self.assertEqual(waits, [1.0])

    def test_a_broken_connection_is_not_repeated_for_an_event(self):
        server = self.scripted(None, VERSION)
        client, _ = self.client(server)
        with self.assertRaises(droptrack.TransportError) as raised:
            client.post_event("a1", "delivery.step", {"step": "picked_up"})
        self.assertTrue(raised.exception.sent)
        self.assertEqual(len(server.requests), 1)

    def test_a_broken_connection_is_retried_for_a_read(self):
        server = self.scripted(None, VERSION)
        client, waits = self.client(server)
        self.assertEqual(client.get_activity("a1")["version"], 2)
        self.assertEqual((len(server.requests), len(waits)), (2, 1))

    def test_a_refused_connection_is_retried_for_any_call_and_says_nothing_was_sent(self):
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        waits = []
        client = droptrack.Client(f"http://127.0.0.1:{port}", "dt_app1_secretsecret", max_attempts=3, sleep=waits.append)
        with self.assertRaises(droptrack.TransportError) as raised:
            client.post_event("a1", "delivery.step", {"step": "picked_up"})
        self.assertFalse(raised.exception.sent)
        self.assertEqual(len(waits), 2, "an event that never left is tried again")

    def test_a_retry_after_beyond_the_limit_is_raised_not_waited(self):
        server = self.scripted(refusal(429, "rate_limited", 120))
        client, waits = self.client(server, max_retry_wait=30)
        with self.assertRaises(droptrack.DropTrackError) as raised:
            client.get_activity("a1")
        self.assertEqual((raised.exception.retry_after, waits, len(server.requests)), (120.0, [], 1))

    def test_attempts_are_bounded(self):
        server = self.scripted(*[refusal(429, "rate_limited", 1)] * 3)
        client, waits = self.client(server, max_attempts=3)
        with self.assertRaises(droptrack.DropTrackError):
            client.get_activity("a1")
        self.assertEqual((len(server.requests), waits), (3, [1.0, 1.0]))

    def test_a_redirect_is_not_followed(self):
        elsewhere = self.scripted(VERSION)
        server = self.scripted((302, {"Location": elsewhere.url + "/v1/activities/a1/events"}, {}))
        client, _ = self.client(server)
        with self.assertRaises(droptrack.DropTrackError) as raised:
            client.post_event("a1", "delivery.step", {"step": "picked_up"})
        self.assertEqual((raised.exception.status, raised.exception.code), (302, "redirect"))
        self.assertEqual((len(server.requests), elsewhere.requests), (1, []), "the key went nowhere else")

    def test_retry_after_as_an_http_date(self):
        self.assertEqual(retry_after_seconds("Thu, 01 Jan 2026 00:00:10 GMT", 1767225600.0), 10.0)
        self.assertEqual(retry_after_seconds("7", 0), 7.0)

    def test_the_api_key_stays_out_of_reprs_and_errors(self):
        server = self.scripted(refusal(401, "unauthorized"))
        client, _ = self.client(server)
        self.assertNotIn("secretsecret", repr(client))
        with self.assertRaises(droptrack.DropTrackError) as raised:
            client.get_activity("a1")
        self.assertNotIn("secretsecret", str(raised.exception) + repr(raised.exception))


if __name__ == "__main__":
    unittest.main()
