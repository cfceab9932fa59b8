"""The Debian package, built by scripts/package-deb.sh from the binary given (the debug build, to stay
fast), read back with dpkg-deb: its files and their modes, conffiles, Depends, maintainer scripts;
the systemd unit checked by `systemd-analyze verify` against the package's own tree; and the
packaged binary run with the packaged configuration (healthz, readyz, SIGTERM exits 0).

    python checks/package_deb.py .build/debug/droptrack
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import check, failures, free_port, wait_for_line  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ["libssl3", "libnghttp2-14", "libsqlite3-0", "libpq5", "libmicrohttpd12", "libcurl4", "libc6", "adduser"]


def run(*args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs).stdout


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
    work = tempfile.mkdtemp(prefix="droptrack-deb-")
    try:
        started = time.time()
        # Uncompressed: xz over a debug binary and its Swift runtime takes minutes and proves nothing here.
        deb = run(f"{REPOSITORY}/scripts/package-deb.sh", binary, f"{work}/out",
                  env={**os.environ, "PACKAGE_DEB_COMPRESSION": "none"}).strip().splitlines()[-1]
        print(f"== built {os.path.basename(deb)} ({os.path.getsize(deb) // 1024} KiB) in {time.time() - started:.1f}s")
        version = run(binary, "--version").split()[-1]
        control_fields(deb, version)
        root = contents(deb, work)
        maintainer_scripts(deb, work)
        unit(root)
        packaged_binary(root, work, os.path.join(os.path.dirname(binary), "droptrack-dev"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"FAIL {len(failures)} package checks failed")
        sys.exit(1)
    print("== the Debian package: all checks passed")


def control_fields(deb, version):
    print("== dpkg-deb -I")
    info = run("dpkg-deb", "-I", deb)
    fields = dict(re.findall(r"^ ([A-Za-z-]+): (.*)$", info, re.MULTILINE))
    check(fields.get("Package") == "droptrack", f"Package: {fields.get('Package')}")
    check(fields.get("Version") == version, f"Version {fields.get('Version')} is the binary's --version {version}")
    check(fields.get("Architecture") == run("dpkg", "--print-architecture").strip(), "Architecture is this machine's")
    depends = [d.strip().split()[0] for d in fields.get("Depends", "").split(",")]
    print(f"     Depends: {fields.get('Depends')}")
    for package in LIBRARIES:
        check(package in depends, f"Depends names {package}")
    check(all(not d.startswith("swift") for d in depends), "Depends names no Swift toolchain package")
    conffiles = run("dpkg-deb", "-f", deb, "Package")  # a cheap sanity read through another reader
    check(conffiles.strip() == "droptrack", "dpkg-deb -f reads the control file")
    for script in ["postinst", "prerm", "postrm", "conffiles"]:
        check(re.search(rf"^\s+\d+ bytes,\s+\d+ lines\s+\*?\s+{script}\b", info, re.MULTILINE) is not None,
              f"control archive holds {script}")


def contents(deb, work):
    print("== dpkg-deb -c")
    listing = {}
    for line in run("dpkg-deb", "-c", deb).splitlines():
        mode, owner, _size, _date, _time, path = line.split(None, 5)
        path = path.split(" -> ")[0].lstrip(".")
        listing[path.rstrip("/") or "/"] = (mode, owner)
    expected = {
        "/usr/bin/droptrack": "-rwxr-xr-x",
        "/lib/systemd/system/droptrack.service": "-rw-r--r--",
        "/etc/droptrack": "drwxr-xr-x",
        "/etc/droptrack/droptrack.json": "-rw-------",
        "/etc/droptrack/keys": "drwx------",
        "/etc/default/droptrack": "-rw-r-----",
        "/usr/share/doc/droptrack/droptrack.production.json": "-rw-r--r--",
        "/usr/share/doc/droptrack/README.md": "-rw-r--r--",
        "/usr/share/doc/droptrack/copyright": "-rw-r--r--",
        "/usr/share/doc/droptrack/changelog.gz": "-rw-r--r--",
    }
    # The README links into docs/: every page ships beside it, readable by all, so the links work.
    for root, _, files in os.walk(os.path.join(REPOSITORY, "docs")):
        for name in files:
            if name.endswith(".md"):
                page = os.path.relpath(os.path.join(root, name), REPOSITORY)
                expected[f"/usr/share/doc/droptrack/{page}"] = "-rw-r--r--"
    for path, mode in expected.items():
        check(listing.get(path, ("missing",))[0] == mode, f"{path} {listing.get(path, ('missing',))[0]} (want {mode})")
    check(all(owner == "root/root" for _, owner in listing.values()), "every file is root/root in the archive")
    swift = sorted(p for p in listing if p.startswith("/usr/lib/droptrack/swift/"))
    if swift:
        print(f"     this binary loads the Swift runtime: {len(swift)} libraries shipped in /usr/lib/droptrack/swift")
        check(listing.get("/usr/lib/droptrack/droptrack", ("",))[0] == "-rwxr-xr-x", "the binary is /usr/lib/droptrack/droptrack")
    stray = [p for p in listing if not p.startswith(("/usr/", "/lib/systemd/", "/etc/droptrack", "/etc/default/"))
             and p not in ("/", "/etc", "/etc/default", "/lib", "/lib/systemd", "/usr")]
    check(not stray, f"nothing outside /usr, /lib/systemd, /etc/droptrack, /etc/default: {stray}")
    conffiles = run("dpkg-deb", "-I", deb, "conffiles").split()
    check(conffiles == ["/etc/droptrack/droptrack.json", "/etc/default/droptrack"], f"conffiles: {conffiles}")
    root = f"{work}/root"
    run("dpkg-deb", "-x", deb, root)
    configuration = json.load(open(f"{root}/etc/droptrack/droptrack.json"))
    check(configuration.get("store") == "sqlite:/var/lib/droptrack/droptrack.sqlite",
          f"the packaged config keeps the store in /var/lib/droptrack: {configuration.get('store')}")
    check(configuration.get("listen", "").startswith("127.0.0.1:"), "the packaged config listens on loopback only")
    return root


def maintainer_scripts(deb, work):
    print("== maintainer scripts")
    control = f"{work}/control"
    run("dpkg-deb", "-e", deb, control)
    for script in ["postinst", "prerm", "postrm"]:
        path = f"{control}/{script}"
        check(os.stat(path).st_mode & 0o777 == 0o755, f"{script} is 0755")
        check(subprocess.run(["sh", "-n", path]).returncode == 0, f"{script} parses (sh -n)")
        check(open(path).readline().strip() == "#!/bin/sh", f"{script} starts with #!/bin/sh")
    postinst = open(f"{control}/postinst").read()
    check(re.search(r"adduser --system\b.*\bdroptrack\b", postinst, re.DOTALL) is not None, "postinst adds the droptrack system user")
    check("--shell /usr/sbin/nologin" in postinst, "the droptrack user has no login shell")
    check("install -d -o droptrack -g droptrack -m 0750 /var/lib/droptrack" in postinst,
          "postinst makes /var/lib/droptrack 0750 owned by droptrack")
    check("chmod 0600 /etc/droptrack/droptrack.json" in postinst and "chown droptrack:droptrack /etc/droptrack/droptrack.json" in postinst,
          "postinst makes the config 0600 owned by droptrack")
    check("chmod 0700 /etc/droptrack/keys" in postinst, "postinst makes the keys folder 0700")
    check("getent passwd droptrack" in postinst, "postinst adds the user only once (upgrades)")
    check("rm -rf /var/lib/droptrack" not in open(f"{control}/postrm").read(), "postrm never deletes the store")


def unit(root):
    print("== the systemd unit")
    path = f"{root}/lib/systemd/system/droptrack.service"
    settings = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    want = {
        "ExecStart": "/usr/bin/droptrack serve --config /etc/droptrack/droptrack.json",
        "User": "droptrack", "Group": "droptrack", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
        "ReadWritePaths": "/var/lib/droptrack", "PrivateTmp": "yes", "ProtectHome": "yes",
        "Restart": "on-failure", "KillSignal": "SIGTERM", "WorkingDirectory": "/var/lib/droptrack",
    }
    for key, value in want.items():
        check(settings.get(key) == [value], f"{key}={value}")
    backtrace = [v for v in settings.get("Environment", []) if v.startswith("SWIFT_BACKTRACE=")]
    check(backtrace == ["SWIFT_BACKTRACE=enable=no"],
          f"the runtime's backtracer writes no text into the journal ({backtrace})")
    # Ceilings: a runaway (a hostile webhook answer, a leak) is stopped by the unit, not the machine's OOM killer.
    def size(text):
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        return int(text[:-1]) * units[text[-1]] if text and text[-1] in units else int(text or 0)
    memory_max = size(settings.get("MemoryMax", [""])[0])
    check(256 << 20 <= memory_max <= 4 << 30, f"MemoryMax={settings.get('MemoryMax')} (256 MiB to 4 GiB)")
    check(0 < size(settings.get("MemoryHigh", [""])[0]) < memory_max, f"MemoryHigh={settings.get('MemoryHigh')} below MemoryMax")
    check(64 <= int(settings.get("TasksMax", ["0"])[0]) <= 4096, f"TasksMax={settings.get('TasksMax')}")
    check(settings.get("Type", [""])[0] in ("simple", "exec", "notify"), f"Type={settings.get('Type')}")
    # SIGTERM: drain (--drain-seconds, 20 by default) + 10 s for HTTP handlers + the watchdog's 5 s.
    stop = int(settings.get("TimeoutStopSec", ["0"])[0].rstrip("s"))
    check(stop > 20 + 10 + 5, f"TimeoutStopSec={stop}s outlasts the drain and the server's own watchdog (35 s)")
    # The package's tree plus this machine's own units (the unit's dependencies: sysinit.target,
    # network-online.target, ...), so that verify also finds the packaged /usr/bin/droptrack.
    verify_root = f"{root}.verify"
    shutil.copytree(root, verify_root, symlinks=True)
    shutil.copytree("/usr/lib/systemd/system", f"{verify_root}/usr/lib/systemd/system", symlinks=True, dirs_exist_ok=True)
    verify = subprocess.run(["systemd-analyze", "verify", f"--root={verify_root}", "/lib/systemd/system/droptrack.service"],
                            capture_output=True, text=True)
    output = (verify.stdout + verify.stderr).strip()
    print(f"     systemd-analyze verify --root=<package + system units> exit {verify.returncode}: {output or '(no output)'}")
    check(verify.returncode == 0 and not output, "systemd-analyze verify finds nothing (no unknown key, the binary exists)")
    shutil.rmtree(verify_root, ignore_errors=True)
    security = subprocess.run(["systemd-analyze", "security", "--offline=yes", f"--root={root}",
                               "/lib/systemd/system/droptrack.service"], capture_output=True, text=True)
    exposure = re.search(r"Overall exposure level for droptrack.service: ([0-9.]+)", security.stdout)
    print(f"     systemd-analyze security --offline: {exposure.group(0) if exposure else security.stdout[-300:]}")
    check(exposure is not None and float(exposure.group(1)) <= 2.0, "exposure level 2.0 or better (OK)")


def packaged_binary(root, work, development):
    """`development` is droptrack-dev from the build (the package ships only droptrack): it makes the keys."""
    print("== the packaged binary with the packaged configuration")
    binary = f"{root}/usr/bin/droptrack"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DROPTRACK_")}
    if os.path.exists(f"{root}/usr/lib/droptrack/droptrack"):
        binary = f"{root}/usr/lib/droptrack/droptrack"
        environment["LD_LIBRARY_PATH"] = f"{root}/usr/lib/droptrack/swift"
    missing = [line for line in run("ldd", binary, env=environment).splitlines() if "not found" in line]
    check(not missing, f"every library resolves: {missing}")
    # Only the paths change: the store from /var/lib/droptrack to a scratch file, the port to a free one.
    serve(binary, environment, work, "the packaged configuration", f"{root}/etc/droptrack/droptrack.json",
          f"sqlite:{work}/droptrack.sqlite")
    check(os.stat(f"{work}/droptrack.sqlite").st_mode & 0o777 == 0o600, "the SQLite store is created 0600")
    # The sample production config, its key files made by `keys dev` in place of Apple's and Google's.
    run(development, "keys", "dev", "--out", f"{work}/keys")
    sample = open(f"{root}/usr/share/doc/droptrack/droptrack.production.json").read()
    key_id = json.load(open(f"{work}/keys/apns/apns.json"))["keyId"]
    sample = sample.replace("/etc/droptrack/keys/AuthKey_ABC123DEFG.p8", f"{work}/keys/apns/AuthKey_{key_id}.p8")
    sample = sample.replace("/etc/droptrack/keys/firebase-shop.json", f"{work}/keys/fcm/service-account.json")
    check("/etc/droptrack/keys" not in sample, "the sample's key paths were replaced")
    with open(f"{work}/production.json", "w") as handle:
        handle.write(sample)
    serve(binary, environment, work, "the sample production configuration", f"{work}/production.json", "memory")
    crash(binary, environment, work)


def crash(binary, environment, work):
    """The unit's SWIFT_BACKTRACE: a crash (a SIGSEGV sent) leaves one JSON line in the log, and nothing else."""
    log = f"{work}/crash.log"
    crash_env = {**environment, "SWIFT_BACKTRACE": "enable=no"}
    with open(log, "w") as handle:
        process = subprocess.Popen([binary, "serve", "--store", "memory", "--listen", f"127.0.0.1:{free_port()}"],
                                   stdout=subprocess.DEVNULL, stderr=handle, env=crash_env)
    try:
        deadline = time.time() + 20
        while time.time() < deadline and "server.started" not in open(log).read():
            time.sleep(0.05)
        process.send_signal(signal.SIGSEGV)
        code = process.wait(timeout=60)
        lines = [line for line in open(log).read().splitlines() if line.strip()]
        parsed = []
        for line in lines:
            try:
                parsed.append(json.loads(line))
            except ValueError:
                parsed.append(None)
        check(code == -signal.SIGSEGV, f"a crash still ends the process by its signal (exit {code})")
        check(all(isinstance(p, dict) for p in parsed), f"every log line of the crash is JSON: {lines[-3:]}")
        check(sum(1 for p in parsed if p and p.get("msg") == "server.crashed") == 1, "one server.crashed line")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def serve(binary, environment, work, what, config, store):
    port = free_port()
    log = f"{work}/serve.log"
    with open(log, "w") as handle:
        process = subprocess.Popen([binary, "serve", "--config", config, "--store", store,
                                    "--listen", f"127.0.0.1:{port}"],
                                   stdout=handle, stderr=subprocess.STDOUT, env=environment)
    try:
        wait_for_line(log, "droptrack serving on", process)
        for path in ["/healthz", "/readyz"]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
                check(response.status == 200, f"{what}: {path} answers {response.status}")
        process.send_signal(signal.SIGTERM)
        started = time.time()
        code = process.wait(timeout=45)
        check(code == 0, f"{what}: SIGTERM, exit {code} after {time.time() - started:.1f}s")
    except RuntimeError as error:
        check(False, f"{what}: serve did not start: {error}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    main()
