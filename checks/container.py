"""The container image, built by scripts/package-oci.sh from the binary given (the debug build, to stay
fast), read back with podman: its configuration (user, entrypoint, health check, volume, stop signal),
its files (the binary and the libraries it loads, the CA bundle, the user, no shell); then run with
podman as production would run it (a mounted configuration, DROPTRACK_* variables, the store on its
volume): /readyz answers, the image's own health check passes, a start sent through the API reaches the
APNs emulator, and SIGTERM (podman stop) drains and exits 0.

    python checks/container.py .build/debug/droptrack

Runs as root (podman's own storage). On this kind of machine (cgroups v1 and v2 mixed, limits below
podman's defaults) crun refuses to start containers, so the run uses runc with the cgroupfs manager
and explicit ulimits; every server listens on 127.0.0.1 (host network).
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures, free_port  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"]
LIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
USER = 10001


def run(*args, check_result=True, timeout=300):
    return subprocess.run(args, check=check_result, capture_output=True, text=True, timeout=timeout)


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
    if os.geteuid() != 0:
        print("FAIL the container check runs as root (podman's storage and the mounted files' owner)")
        sys.exit(1)
    version = run(binary, "--version").stdout.split()[-1]
    image = f"localhost/droptrack-check:{version}-{secrets.token_hex(3)}"
    work = tempfile.mkdtemp(prefix="droptrack-oci-")
    try:
        started = time.time()
        built = run(f"{REPOSITORY}/scripts/package-oci.sh", binary, image, f"{work}/image.tar", timeout=900)
        check(built.stdout.strip().splitlines()[-1] == image, f"package-oci.sh prints the image's name ({image})")
        print(f"== built {image} ({os.path.getsize(f'{work}/image.tar') // 1024} KiB as a docker archive) "
              f"in {time.time() - started:.1f}s")
        configuration(image, version)
        files(image, binary, work)
        running(image, binary, work)
    finally:
        run("podman", "rmi", "-f", image, check_result=False)
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"FAIL {len(failures)} container checks failed")
        sys.exit(1)
    print("== the container image: all checks passed")


def configuration(image, version):
    print("== podman image inspect")
    inspected = json.loads(run("podman", "image", "inspect", image).stdout)[0]
    config = inspected["Config"]
    check(config.get("User") == f"{USER}:{USER}", f"runs as {USER}, not root ({config.get('User')})")
    check(config.get("Entrypoint") == ["/usr/bin/droptrack"] and config.get("Cmd") == ["serve"],
          f"droptrack serve is what it runs ({config.get('Entrypoint')} {config.get('Cmd')})")
    env = dict(item.split("=", 1) for item in config.get("Env", []))
    check(env.get("DROPTRACK_CONFIG") == "/etc/droptrack/droptrack.json", "DROPTRACK_CONFIG names the image's file")
    check(env.get("SWIFT_BACKTRACE") == "enable=no", "a crash is one JSON line (SWIFT_BACKTRACE=enable=no)")
    check("/var/lib/droptrack" in (config.get("Volumes") or {}), "the store's folder is a volume")
    check("8787/tcp" in (config.get("ExposedPorts") or {}), "port 8787 is exposed")
    check(config.get("StopSignal") == "SIGTERM", "stops with SIGTERM, which drains")
    health = inspected.get("Healthcheck") or {}
    check(health.get("Test") == ["CMD", "/usr/bin/droptrack", "health"],
          f"the health check is droptrack health ({health.get('Test')})")
    labels = config.get("Labels") or {}
    check(labels.get("org.opencontainers.image.version") == version, "the version label is the binary's")


def files(image, binary, work):
    print("== the image's files (podman export)")
    container = run("podman", "create", image).stdout.strip()
    try:
        run("podman", "export", "-o", f"{work}/root.tar", container)
    finally:
        run("podman", "rm", "-f", container, check_result=False)
    with tarfile.open(f"{work}/root.tar") as archive:
        members = {member.name.lstrip("./").rstrip("/"): member for member in archive.getmembers()}
        passwd = archive.extractfile(members["etc/passwd"]).read().decode()
        config = json.loads(archive.extractfile(members["etc/droptrack/droptrack.json"]).read())
    check("usr/bin/droptrack" in members and members["usr/bin/droptrack"].mode & 0o111,
          "/usr/bin/droptrack is there and executable")
    shells = [name for name in ("bin/sh", "bin/bash", "usr/bin/sh", "usr/bin/apt", "usr/bin/dpkg") if name in members]
    check(not shells, f"no shell and no package manager ({shells or 'none'})")
    libraries = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    needed = [line.split("=>")[1].split()[0] for line in libraries.splitlines()
              if "=>" in line and line.split("=>")[1].strip().startswith("/")]
    missing = [path for path in needed if path.lstrip("/") not in members]
    check(needed and not missing, f"every library the binary loads is in the image ({len(needed)}; missing {missing})")
    bundle = members.get("etc/ssl/certs/ca-certificates.crt")
    check(bundle is not None and bundle.size > 100_000, "Debian's CA bundle is where OpenSSL looks for it")
    check(members.get("usr/lib/ssl/cert.pem") is not None and members["usr/lib/ssl/cert.pem"].issym(),
          "OpenSSL's default cert.pem leads to it")
    check(f"droptrack:x:{USER}:{USER}:" in passwd, "/etc/passwd names the droptrack user")
    store = members.get("var/lib/droptrack")
    check(store is not None and store.uid == USER and store.mode & 0o777 == 0o750,
          f"/var/lib/droptrack belongs to {USER}, mode 0750 "
          f"({store and (store.uid, oct(store.mode & 0o777))})")
    check(config.get("apps") == [] and config.get("listen") == "0.0.0.0:8787",
          "the image's configuration has no apps and listens on every address inside the container")
    secret_like = [name for name in members if name.endswith((".p8", "-key.pem", ".sqlite")) or "service-account" in name]
    check(not secret_like, f"no keys and no store in the image ({secret_like or 'none'})")


def running(image, binary, work):
    print("== podman run: the configuration mounted, DROPTRACK_* variables, the emulators on the host")
    stack = Stack(binary, work=f"{work}/stack")
    os.makedirs(stack.work, exist_ok=True)
    name = f"droptrack-check-{secrets.token_hex(3)}"
    try:
        # The stack's keys and configuration, readable by the image's user (they are 0600, as they must be).
        original_start_server = stack.start_server
        stack.start_server = lambda name="server": None
        stack.start()
        stack.start_server = original_start_server
        for folder, _, names in os.walk(stack.work):
            os.chown(folder, USER, USER)
            for entry in names:
                os.chown(os.path.join(folder, entry), USER, USER)
        port = free_port()
        stack.ports["server"] = stack.api_port = port
        environment = {**stack.server_environment(), "DROPTRACK_LISTEN": f"127.0.0.1:{port}",
                       "DROPTRACK_STORE": "sqlite:/var/lib/droptrack/droptrack.sqlite"}
        arguments = [*PODMAN, "run", "-d", "--name", name, "--network", "host", *LIMITS,
                     "-v", f"{stack.work}:{stack.work}:ro"]
        for key, value in environment.items():
            arguments += ["-e", f"{key}={value}"]
        started = run(*arguments, image, check_result=False)
        if started.returncode != 0:
            check(False, f"podman run starts the image: {started.stderr.strip().splitlines()[-1:]}")
            return
        ready = wait_ready(port)
        check(ready, f"/readyz answers 200 from the container on 127.0.0.1:{port}")
        if not ready:
            print(run("podman", "logs", name, check_result=False).stderr[-2000:])
            return
        health = run(*PODMAN, "healthcheck", "run", name, check_result=False)
        check(health.returncode == 0, f"the image's health check passes ({health.stdout.strip() or health.stderr.strip()[-200:]})")
        refused = run(*PODMAN, "exec", name, "/usr/bin/droptrack", "health", "--path", "/v1/nothing",
                      check_result=False)
        check(refused.returncode == 1 and "404" in refused.stdout,
              f"droptrack health exits 1 on an answer other than 200 ({refused.returncode} {refused.stdout.strip()})")
        token = secrets.token_hex(32)
        status, _, _ = stack.api("POST", "/v1/tokens/push-to-start", {
            "userId": "u1", "deviceId": "d1", "token": token, "environment": "sandbox",
            "attributesType": "DeliveryAttributes"})
        check(status in (200, 201), f"a push-to-start token is registered ({status})")
        status, body, _ = stack.api("POST", "/v1/activities", {
            "activityId": "container-1", "userId": "u1", "attributesType": "DeliveryAttributes",
            "attributes": {"orderId": "C-1"}, "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}},
            "alert": {"title": "Order placed", "body": "On its way soon"}, "idempotencyKey": "container-start"})
        check(status == 201, f"an activity starts ({status} {body if status != 201 else ''})")
        arrived = wait_for(lambda: stack.accepted_pushes() >= 1, 30)
        check(arrived, "its push-to-start reached the APNs emulator over TLS from inside the container")
        stopped = run(*PODMAN, "stop", "-t", "40", name, check_result=False, timeout=120)
        code = run("podman", "inspect", name, "--format", "{{.State.ExitCode}}", check_result=False).stdout.strip()
        logs = run("podman", "logs", name, check_result=False)
        lines = [line for line in (logs.stdout + logs.stderr).splitlines() if line.startswith("{")]
        check(stopped.returncode == 0 and code == "0", f"podman stop (SIGTERM) ends it with exit code 0 ({code})")
        check(any('"server.stopping"' in line for line in lines), "it logged server.stopping (a drain, not a kill)")
        leaked = [line for line in lines if token in line or stack.keys["app1"] in line]
        check(not leaked, "no token and no API key in its logs")
    finally:
        run("podman", "rm", "-f", name, check_result=False)
        stack.close()


def wait_ready(port, timeout=60):
    def ready():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False
    return wait_for(ready, timeout)


def wait_for(predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


if __name__ == "__main__":
    main()
