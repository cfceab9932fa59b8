"""The whole DropTrack loop on one machine, as separate processes: development keys, the APNs and
FCM emulators, and `droptrack serve` with a config written by `droptrack apps add`.

Used by the API conformance run (schemathesis), the crash test and bench/fanout. Every process
listens on 127.0.0.1 and is killed when the stack closes.
"""
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

# What the checks report: each `check` prints ok or FAIL, and the script exits 1 if any failed.
failures = []


def check(condition, message):
    print(f"  {'ok  ' if condition else 'FAIL'} {message}")
    if not condition:
        failures.append(message)


def wait_until(what, predicate, timeout=300):
    """Polls `predicate` until it returns something true, and returns that; fails the run after `timeout`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"FAIL timed out after {timeout}s waiting for {what}")


def fresh_database(url):
    """A database of its own on the PostgreSQL cluster `url` points at: (name, its URL). Drop it with
    `drop_database`."""
    name = f"droptrack_{secrets.token_hex(4)}"
    subprocess.run(["psql", url, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    parts = urllib.parse.urlsplit(url)
    return name, urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def drop_database(url, name):
    subprocess.run(["psql", url, "-q", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(path, needle, process, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    if needle in line:
                        return line
        if process.poll() is not None:
            raise RuntimeError(f"{path}: process exited {process.returncode}:\n{open(path).read()[-2000:]}")
        time.sleep(0.05)
    raise RuntimeError(f"{path}: no '{needle}' within {timeout}s:\n{open(path).read()[-2000:]}")


class Stack:
    """Keys, emulators and the server. `apps` names the apps to create (each gets an API key)."""

    def __init__(self, droptrack, apps=("app1",), store="sqlite", server_env=None, apns_args=(), work=None):
        self.droptrack = os.path.abspath(droptrack)
        # The emulators and development keys are droptrack-dev's, built beside droptrack.
        self.droptrack_dev = os.path.join(os.path.dirname(self.droptrack), "droptrack-dev")
        self.work = work or tempfile.mkdtemp(prefix="droptrack-stack-")
        self.processes = {}
        self.keys = {}
        self.server_env = dict(server_env or {})
        self.apns_args = list(apns_args)
        self.app_ids = list(apps)
        self.store = f"sqlite:{self.work}/droptrack.sqlite" if store == "sqlite" else store
        self.api_port = None
        self.ports = {}

    # -- processes --------------------------------------------------------------------------------

    def run(self, *args, **kwargs):
        return subprocess.run([self.droptrack, *args], check=True, capture_output=True, text=True, **kwargs).stdout

    def run_dev(self, *args, **kwargs):
        """A `droptrack-dev` command (keys dev, bench)."""
        return subprocess.run([self.droptrack_dev, *args], check=True, capture_output=True, text=True,
                              **kwargs).stdout

    def spawn(self, name, args, env=None, ready="listening on", program=None):
        log = f"{self.work}/{name}.log"
        handle = open(log, "w")
        process = subprocess.Popen([program or self.droptrack, *args], stdout=handle, stderr=subprocess.STDOUT,
                                   env={**os.environ, **(env or {})})
        self.processes[name] = process
        return wait_for_line(log, ready, process)

    def start(self):
        self.fcm_port = free_port()
        self.run_dev("keys", "dev", "--out", f"{self.work}/keys", "--fcm-token-uri",
                 f"https://localhost:{self.fcm_port}/token")
        apns = json.load(open(f"{self.work}/keys/apns/apns.json"))
        self.key_id, self.team_id, self.bundle_id = apns["keyId"], apns["teamId"], apns["bundleId"]
        self.ca_file = f"{self.work}/keys/ca.pem"
        self.start_emulators()
        self.config = f"{self.work}/droptrack.json"
        for app in self.app_ids:
            self.keys[app] = self.run(
                "apps", "add", "--config", self.config, "--id", app, "--bundle-id", self.bundle_id,
                "--apns-key-file", f"{self.work}/keys/apns/AuthKey_{self.key_id}.p8", "--apns-key-id", self.key_id,
                "--apns-team-id", self.team_id, "--fcm-service-account",
                f"{self.work}/keys/fcm/service-account.json").strip()
        self.start_server()
        return self

    def start_emulators(self):
        self.start_apns()
        self.spawn("fcm", [
            "emulate", "fcm", "--listen", f"127.0.0.1:{self.fcm_port}", "--project", "droptrack-demo",
            "--service-account-pub", f"{self.work}/keys/fcm/service-account.pub.pem",
            "--tls-cert", f"{self.work}/keys/server.pem", "--tls-key", f"{self.work}/keys/server-key.pem"],
            program=self.droptrack_dev)

    def stop_apns(self):
        """APNs goes away: its port refuses connections until `start_apns` brings it back."""
        process = self.processes.pop("apns")
        process.kill()
        process.wait(timeout=30)

    def start_apns(self, listen="127.0.0.1:0"):
        """Starts the APNs emulator (again on `listen`, after `stop_apns`); its records start empty."""
        line = self.spawn("apns", [
            "emulate", "apns", "--listen", listen,
            "--auth-key-pub", f"{self.work}/keys/apns/AuthKey_{self.key_id}.pub.pem", "--key-id", self.key_id,
            "--team-id", self.team_id, "--bundle-id", self.bundle_id, "--tls-cert", f"{self.work}/keys/server.pem",
            "--tls-key", f"{self.work}/keys/server-key.pem", *self.apns_args], program=self.droptrack_dev)
        self.apns_host = line.split("listening on")[1].split()[0].strip()

    def server_environment(self, name="server"):
        return {
            "DROPTRACK_CONFIG": self.config, "DROPTRACK_STORE": self.store, "DROPTRACK_APNS_HOST": self.apns_host,
            "DROPTRACK_FCM_BASE_URL": f"https://localhost:{self.fcm_port}", "DROPTRACK_CA_FILE": self.ca_file,
            "DROPTRACK_LISTEN": f"127.0.0.1:{self.ports.get(name, self.api_port)}", **self.server_env,
        }

    def start_server(self, name="server"):
        """Starts (or restarts, on the same port) a `droptrack serve`; several names make replicas."""
        if name not in self.ports:
            self.ports[name] = free_port()
        if name == "server":
            self.api_port = self.ports[name]
            self.base = f"http://127.0.0.1:{self.api_port}"
        self.spawn(name, ["serve"], env=self.server_environment(name), ready="droptrack serving on")

    def kill_server(self, name="server", sig=signal.SIGKILL):
        process = self.processes.pop(name)
        process.send_signal(sig)
        return process.wait(timeout=60)

    def close(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        self.processes.clear()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # -- HTTP -------------------------------------------------------------------------------------

    def api(self, method, path, body=None, app="app1", key=None, raw=None, headers=None, timeout=30, server="server"):
        """Calls the API (of replica `server`); returns (status, parsed JSON or text, headers)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        base = f"http://127.0.0.1:{self.ports[server]}"
        request = urllib.request.Request(base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {key if key is not None else self.keys[app]}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        # A well-behaved client: a 429 (the per-key rate limit) is retried after its Retry-After.
        for _ in range(20):
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    return response.status, decode(response.read()), dict(response.headers)
            except urllib.error.HTTPError as error:
                result = error.code, decode(error.read()), dict(error.headers)
                if error.code != 429:
                    return result
                time.sleep(min(5.0, float(error.headers.get("Retry-After") or 1)))
        return result

    def accepted_pushes(self):
        """Pushes the APNs emulator has answered 200 so far."""
        return self.emulator("apns", "/_emulator/stats")["statuses"].get("200", 0)

    def import_tokens(self, lines):
        """`droptrack tokens import` of these JSON lines; prints and returns how long it took."""
        path = f"{self.work}/tokens.jsonl"
        with open(path, "w") as f:
            f.write("\n".join(json.dumps(line) for line in lines) + "\n")
        started = time.time()
        output = subprocess.run([self.droptrack, "tokens", "import", "--config", self.config, "--app", "app1",
                                 "--file", path], check=True, capture_output=True, text=True,
                                env={**os.environ, **self.server_environment()}).stdout
        seconds = time.time() - started
        print(f"    imported {len(lines)} tokens in {seconds:.1f} s: {output.strip()}")
        return seconds

    def emulator(self, which, path, body=None):
        """GET (or POST with `body`) an emulator's admin endpoint."""
        context = ssl.create_default_context(cafile=self.ca_file)
        base = f"https://{self.apns_host}" if which == "apns" else f"https://localhost:{self.fcm_port}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, method="POST" if data else "GET")
        with urllib.request.urlopen(request, context=context, timeout=60) as response:
            raw = response.read()
            return json.loads(raw) if raw else None


def process_usage(pid):
    """(resident set size in MiB, CPU seconds used so far) of a process, from /proc."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def decode(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")
