#!/usr/bin/env python3
"""Independent check of DropTrack's FCM emulator with code nobody here wrote: firebase-admin
(google-auth for OAuth2, requests over HTTP/1.1) sends a data message that the emulator accepts,
and a message with a non-string data value is refused with the field named.

Usage: fcm_independent.py PATH/TO/droptrack
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import urllib.request
import ssl

DROPTRACK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
DROPTRACK_DEV = os.path.join(os.path.dirname(DROPTRACK), "droptrack-dev")  # the emulator and development keys
failures = []


def check(condition, message):
    print(f"  {'ok  ' if condition else 'FAIL'} {message}")
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main():
    with tempfile.TemporaryDirectory() as keys:
        port = free_port()
        subprocess.run([DROPTRACK_DEV, "keys", "dev", "--out", keys, "--force", "--fcm-token-uri",
                        f"https://localhost:{port}/token"], check=True, capture_output=True)
        account_file = f"{keys}/fcm/service-account.json"
        account = json.load(open(account_file))
        emulator = subprocess.Popen(
            [DROPTRACK_DEV, "emulate", "fcm", "--listen", f"127.0.0.1:{port}", "--project", account["project_id"],
             "--service-account-pub", f"{keys}/fcm/service-account.pub.pem", "--client-email", account["client_email"],
             "--tls-cert", f"{keys}/server.pem", "--tls-key", f"{keys}/server-key.pem"],
            stdout=subprocess.PIPE, text=True)
        try:
            emulator.stdout.readline()
            context = ssl.create_default_context(cafile=f"{keys}/ca.pem")
            token = "fcm-independent:APA91b" + os.urandom(24).hex()
            request = urllib.request.Request(f"https://localhost:{port}/_emulator/tokens", method="POST",
                                             data=json.dumps({"token": token}).encode())
            urllib.request.urlopen(request, context=context).read()

            os.environ["REQUESTS_CA_BUNDLE"] = f"{keys}/ca.pem"
            import firebase_admin
            from firebase_admin import credentials, messaging, exceptions
            messaging._MessagingService.FCM_URL = f"https://localhost:{port}/v1/projects/{{0}}/messages:send"
            app = firebase_admin.initialize_app(credentials.Certificate(account_file))
            print("firebase-admin against droptrack-dev emulate fcm")
            name = messaging.send(messaging.Message(
                token=token, data={"activityId": "act-1", "event": "update", "progress": "0.5"},
                android=messaging.AndroidConfig(priority="high", ttl=60)), app=app)
            check(name.startswith(f"projects/{account['project_id']}/messages/"), f"data message accepted: {name}")
            with urllib.request.urlopen(f"https://localhost:{port}/_emulator/latest?token={token}", context=context) as reply:
                record = json.load(reply)
            check(record["data"] == {"activityId": "act-1", "event": "update", "progress": "0.5"}
                  and record["priority"] == "high" and record["ttl"] == "60s",
                  "the emulator recorded the data map, priority high and ttl 60s")

            # firebase-admin refuses non-string values itself; send the raw body through its own
            # authorised HTTP client so the emulator's check is what answers.
            service = messaging._get_messaging_service(app)
            try:
                service._client.body("post", url=service._fcm_url,
                                     json={"message": {"token": token, "data": {"etaEpochMillis": 1796000720000}}})
                check(False, "a non-string data value must be refused")
            except Exception as error:
                response = getattr(error, "response", None)
                status = getattr(response, "status_code", None)
                text = response.text if response is not None else str(error)
                body = json.loads(text).get("error", {}) if text.startswith("{") else {}
                check(status == 400 and body.get("status") == "INVALID_ARGUMENT"
                      and "message.data[etaEpochMillis].value" in body.get("message", ""),
                      f"a non-string value is refused with 400 INVALID_ARGUMENT naming the field: {body.get('message', text)[:110]}")
            try:
                messaging.send(messaging.Message(token="never-registered", data={"a": "b"}), app=app)  # noqa
                check(False, "an unknown token must be UNREGISTERED")
            except messaging.UnregisteredError:
                check(True, "an unknown token is UNREGISTERED (firebase-admin's UnregisteredError)")
        finally:
            emulator.terminate()
            emulator.wait(10)
    if failures:
        print(f"{len(failures)} independent check(s) failed")
        sys.exit(1)
    print("all independent FCM checks passed")


if __name__ == "__main__":
    main()
