#!/usr/bin/env python3
"""Independent checks of DropTrack's APNs side with code nobody here wrote.

1. PyJWT (with `cryptography`) verifies every provider token `droptrack` makes.
2. aioapns sends a Live Activity push to `droptrack-dev emulate apns` and is accepted; the same client
   with a key the emulator does not know gets 403 InvalidProviderToken.

Usage: apns_independent.py PATH/TO/droptrack
Exits non-zero on the first failure, printing what differed.
"""
import asyncio
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import serialization

DROPTRACK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
DROPTRACK_DEV = os.path.join(os.path.dirname(DROPTRACK), "droptrack-dev")  # the emulator and development keys
failures = []


def check(condition, message):
    if condition:
        print(f"  ok   {message}")
    else:
        print(f"  FAIL {message}")
        failures.append(message)


def run(*args):
    return subprocess.run([DROPTRACK, *args], check=True, capture_output=True, text=True).stdout


def verify_jwts(keys_dir, cfg):
    print("PyJWT verifies droptrack's provider tokens")
    key_file = f"{keys_dir}/apns/AuthKey_{cfg['keyId']}.p8"
    public_pem = open(f"{keys_dir}/apns/AuthKey_{cfg['keyId']}.pub.pem", "rb").read()
    tokens = run("keys", "apns-token", "--key", key_file, "--key-id", cfg["keyId"], "--team-id", cfg["teamId"],
                 "--count", "200", "--iat", "1796000000").split()
    check(len(tokens) == 200, "200 tokens printed")
    verified = 0
    for index, token in enumerate(tokens):
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, public_pem, algorithms=["ES256"], options={"verify_iat": False})
        raw_signature = jwt.utils.base64url_decode(token.split(".")[2].encode())
        if (header == {"alg": "ES256", "kid": cfg["keyId"]} and claims["iss"] == cfg["teamId"]
                and claims["iat"] == 1796000000 + 3600 * index and isinstance(claims["iat"], int)
                and len(raw_signature) == 64):
            verified += 1
    check(verified == 200, f"{verified}/200 tokens verify, header {{alg, kid}}, claims {{iss, iat}}, 64-byte r||s")
    other = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        jwt.decode(tokens[0], other, algorithms=["ES256"], options={"verify_iat": False})
        check(False, "a token must not verify with another key")
    except jwt.InvalidSignatureError:
        check(True, "a token does not verify with another key")


def start_emulator(keys_dir, cfg):
    process = subprocess.Popen(
        [DROPTRACK_DEV, "emulate", "apns", "--listen", "127.0.0.1:0",
         "--auth-key-pub", f"{keys_dir}/apns/AuthKey_{cfg['keyId']}.pub.pem", "--key-id", cfg["keyId"],
         "--team-id", cfg["teamId"], "--bundle-id", cfg["bundleId"],
         "--tls-cert", f"{keys_dir}/server.pem", "--tls-key", f"{keys_dir}/server-key.pem"],
        stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    port = int(line.split("127.0.0.1:")[1].split()[0])
    return process, port


async def aioapns_push(keys_dir, cfg, port, key_file, token):
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns import connection
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    connection.APNsDevelopmentClientProtocol.APNS_PORT = port
    context = ssl.create_default_context(cafile=f"{keys_dir}/ca.pem")
    client = APNs(key=open(key_file).read(), key_id=cfg["keyId"], team_id=cfg["teamId"],
                  topic=cfg["bundleId"] + ".push-type.liveactivity", use_sandbox=True, ssl_context=context,
                  max_connection_attempts=2)
    now = int(time.time())
    message = {"aps": {"event": "update", "timestamp": now, "content-state": {
        "status": "On the way", "progress": 0.7142857142857143, "eta": now - 978307200 + 720,
        "stopsRemaining": 2, "courierName": "Sam", "riderReassigned": False}}}
    request = NotificationRequest(device_token=token, message=message, notification_id=str(uuid.uuid4()),
                                  push_type=PushType.LIVEACTIVITY, priority=10)
    result = await asyncio.wait_for(client.send_notification(request), 15)
    return result, request.notification_id


def aioapns_checks(keys_dir, cfg):
    print("aioapns against droptrack-dev emulate apns")
    process, port = start_emulator(keys_dir, cfg)
    try:
        token = os.urandom(32).hex()
        key_file = f"{keys_dir}/apns/AuthKey_{cfg['keyId']}.p8"
        result, notification_id = asyncio.run(aioapns_push(keys_dir, cfg, port, key_file, token))
        check(result.is_successful, f"aioapns Live Activity push accepted (status {result.status}, {result.description})")
        check(result.notification_id == notification_id, "apns-id echoed")
        context = ssl.create_default_context(cafile=f"{keys_dir}/ca.pem")
        with urllib.request.urlopen(f"https://localhost:{port}/_emulator/latest?token={token}", context=context) as reply:
            record = json.load(reply)
        check(record["status"] == 200 and record["event"] == "update" and record["findings"] == [],
              "the emulator recorded the push with no lint findings")

        wrong = tempfile.NamedTemporaryFile("wb", suffix=".p8", delete=False)
        wrong.write(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        wrong.close()
        bad, _ = asyncio.run(aioapns_push(keys_dir, cfg, port, wrong.name, os.urandom(32).hex()))
        check(not bad.is_successful and str(bad.status) == "403" and bad.description == "InvalidProviderToken",
              f"a wrong key gets 403 InvalidProviderToken (got {bad.status} {bad.description})")
    finally:
        process.terminate()
        process.wait(10)


def main():
    with tempfile.TemporaryDirectory() as keys_dir:
        subprocess.run([DROPTRACK_DEV, "keys", "dev", "--out", keys_dir, "--force"], check=True, capture_output=True)
        cfg = json.load(open(f"{keys_dir}/apns/apns.json"))
        verify_jwts(keys_dir, cfg)
        aioapns_checks(keys_dir, cfg)
    if failures:
        print(f"{len(failures)} independent check(s) failed")
        sys.exit(1)
    print("all independent APNs checks passed")


if __name__ == "__main__":
    main()
