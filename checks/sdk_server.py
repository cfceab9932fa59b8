#!/usr/bin/env python3
"""A real DropTrack for the backend SDKs' tests (clients/python, clients/node): development keys, the APNs and
FCM emulators and `droptrack serve` (checks/stack.py), with what the SDKs exercise configured:

- a backend device key (`apps device-key add`, a P-256 key made here with openssl) whose private half the
  SDK mints credentials with, and a second P-256 key the server does not know, to forge with;
- a DropTrack-held signing key (`apps device-key rotate`), for `POST /v1/device-credentials`;
- a webhook endpoint `http://127.0.0.1:PORT/hooks` (loopback allowed) whose receiver the test itself runs
  on PORT, chosen here.

It writes what a test needs as JSON to OUT (0600: it holds the API key and the webhook secret), then serves
until it gets SIGTERM or SIGINT, closes every process it started and removes its directory.

Usage: sdk_server.py PATH/TO/droptrack OUT.json
"""
import json
import os
import shutil
import signal
import subprocess
import sys

from stack import Stack, free_port

APP = "app1"
KID = "backend-1"


def openssl_key(path):
    """A P-256 private key in PKCS#8 PEM at `path` (0600) and its public half at `path`.pub.pem."""
    old = os.umask(0o077)
    try:
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-out", path], check=True, capture_output=True)
    finally:
        os.umask(old)
    subprocess.run(["openssl", "pkey", "-in", path, "-pubout", "-out", f"{path}.pub.pem"], check=True,
                   capture_output=True)
    return path


def main(droptrack, out):
    def stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    stack = Stack(droptrack)
    try:
        stack.start()
        keys = f"{stack.work}/sdk-keys"
        os.makedirs(keys, mode=0o700)
        backend_key = openssl_key(f"{keys}/backend.pem")
        stranger_key = openssl_key(f"{keys}/stranger.pem")
        webhook_port = free_port()
        with open(stack.config) as f:
            config = json.load(f)
        config["allowLoopbackWebhooks"] = True
        with open(stack.config, "w") as f:
            json.dump(config, f)
        stack.run("apps", "device-key", "add", "--config", stack.config, "--app", APP, "--kid", KID,
                  "--public-key", f"{backend_key}.pub.pem")
        stack.run("apps", "device-key", "rotate", "--config", stack.config, "--app", APP)
        secret = stack.run("apps", "webhook", "add", "--config", stack.config, "--app", APP, "--url",
                           f"http://127.0.0.1:{webhook_port}/hooks", "--id", "sdk").strip()
        stack.kill_server(sig=signal.SIGTERM)
        stack.start_server()
        facts = {
            "baseUrl": stack.base, "appId": APP, "apiKey": stack.keys[APP], "kid": KID,
            "privateKeyFile": backend_key, "strangerKeyFile": stranger_key, "webhookSecret": secret,
            "webhookPort": webhook_port, "work": stack.work,
        }
        fd = os.open(f"{out}.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(facts, f)
        os.replace(f"{out}.tmp", out)
        print(f"sdk_server: droptrack serving on {stack.base}, facts in {out}", flush=True)
        while True:
            signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        stack.close()
        shutil.rmtree(stack.work, ignore_errors=True)  # its keys and secrets


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
