#!/usr/bin/env python3
"""Independent check of how `droptrack doctor` reads curl command lines: bash and curl themselves.

Each case is a curl command line with the quoting people paste (double and single quotes,
backslash escapes, backslash-newline continuations, $'…', attached flags, -d/--data-binary/--json
with @file, several -d joined with &, headers without a space or with an empty value). bash runs it,
and real curl sends it to a local HTTP server that records the method, path, headers and body. The
doctor reads the same text (`--show-request --json`), and what it read must be what curl sent:
same method, path (the token as its fingerprint), every header it names with the value curl sent,
and the body byte for byte.

Uses only the Python standard library, bash and curl.
Usage: doctor_independent.py PATH/TO/droptrack
Exits non-zero on the first failure, printing what differed.
"""
import hashlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

DROPTRACK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
TOKEN = "a1" * 80
# Headers curl adds on its own; everything else must come from the command line.
CURL_DEFAULTS = {"host", "user-agent", "accept", "content-length", "content-type", "expect"}
failures = []
captured = []


def check(condition, message):
    if condition:
        print(f"  ok   {message}")
    else:
        print(f"  FAIL {message}")
        failures.append(message)


def fingerprint(secret):
    return hashlib.sha256(secret.encode()).hexdigest()[:16]


class Recorder(http.server.BaseHTTPRequestHandler):
    def handle_one(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        captured.append({"method": self.command, "path": self.path, "headers": list(self.headers.items()), "body": body})
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    do_POST = do_GET = do_PUT = do_DELETE = handle_one

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    url = f"{base}/3/device/{TOKEN}"
    update = json.dumps(
        {"aps": {"event": "update", "timestamp": 1796000100,
                 "content-state": {"status": "O'Brien says \"hi\" $HOME \\ ok", "progress": 0.5, "eta": 817693520,
                                   "stopsRemaining": 2, "courierName": "Zoë", "riderReassigned": False}}},
        ensure_ascii=False, separators=(",", ":"))
    work = tempfile.mkdtemp(prefix="doctor-check-")
    with open(os.path.join(work, "body.json"), "w") as handle:
        handle.write(json.dumps({"aps": {"event": "update", "timestamp": 1}}, indent=2) + "\n")

    single = update.replace("'", "'\\''")  # the body inside '…'
    double = update.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")  # inside "…"
    cases = {
        "double quotes, escapes and continuations": (
            "curl -s -o /dev/null -XPOST \\\n"
            "  -H \"apns-topic: com.droptrack.demo.push-type.liveactivity\" \\\n"
            "  -H'apns-push-type: liveactivity' --header 'apns-priority:5' \\\n"
            "  -H \"authorization: bearer eyJhbGciOiJFUzI1NiJ9.e30.\\\"x\\\"\" \\\n"
            f"  --data-binary \"{double}\" \\\n"
            f"  {url}\n"),
        "single quotes and an empty header": (
            f"curl -sS -o /dev/null -H 'X-Empty;' -H 'apns-topic: t' -d '{single}' '{url}'\n"),
        "ANSI-C quoting": (
            f"curl -s -o /dev/null --json $'{{\"a\":\"line\\\\none\",\"b\":\"it\\'s\"}}' {url}\n"),
        "-d @file drops newlines, several -d join with &": (
            f"curl -s -o /dev/null -d @body.json -d 'x=1' --data 'y=2' {url}\n"),
        "--data-binary @file keeps them": (
            f"curl -s -o /dev/null --data-binary @body.json -X PUT {url}\n"),
        "--data-raw takes @ literally": (
            f"curl -s -o /dev/null --data-raw '@body.json' {url}\n"),
    }
    for name, command in cases.items():
        print(f"== {name}")
        script = os.path.join(work, "cmd.sh")
        with open(script, "w") as handle:
            handle.write(command)
        before = len(captured)
        subprocess.run(["bash", script], check=True, cwd=work)
        check(len(captured) == before + 1, "curl sent one request")
        if len(captured) != before + 1:
            continue
        sent = captured[-1]
        result = subprocess.run(
            [DROPTRACK, "doctor", "cmd.sh", "--show-request", "--json", "--now", "1796000100"],
            cwd=work, capture_output=True, text=True)
        check(result.returncode in (0, 1), f"the doctor read it (exit {result.returncode}) {result.stderr.strip()}")
        if result.returncode not in (0, 1):
            continue
        read = json.loads(result.stdout)["request"]
        check(read["method"] == sent["method"], f"method {read['method']} == {sent['method']}")
        expected_path = sent["path"].replace(TOKEN, f"<token {fingerprint(TOKEN)}>")
        check(read["path"] == expected_path, f"path {read['path']}")
        check(read["body"].encode() == sent["body"], f"body byte for byte ({len(sent['body'])} bytes)")
        sent_headers = [(k.lower(), v) for k, v in sent["headers"]]
        for name_, value in read["headers"]:
            matches = [v for k, v in sent_headers if k == name_.lower()]
            if name_.lower() == "authorization":
                ok = any(value == f"{v.split(' ', 1)[0]} <credential {fingerprint(v.split(' ', 1)[1])}>" for v in matches)
            else:
                ok = value in matches
            check(ok, f"header {name_}: {value!r} as curl sent it")
        named = {k.lower() for k, _ in read["headers"]}
        extra = [k for k, _ in sent_headers if k not in named and k not in CURL_DEFAULTS]
        check(not extra, f"no header curl sent is missing from the doctor's reading {extra}")
        check(TOKEN not in result.stdout, "the token appears only as its fingerprint")
    server.shutdown()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("doctor: every curl line read as bash and curl read it")


if __name__ == "__main__":
    main()
