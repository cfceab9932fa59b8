"""Every command in the README works as written: the shell examples are run, in the README's order,
in one bash session in an empty folder, with the binary given on PATH as `droptrack`, and `droptrack-dev` from beside it.

    python checks/readme_examples.py .build/debug/droptrack

Rules it enforces:
- Every ```sh block is run, unless the paragraph just before it starts with
  "_Not run by checks/readme_examples.py:" and says why (the mark is visible to readers). Every
  other command-like block (nginx, bash, console) must carry that mark too.
- Nothing is substituted but what the README names as variables to change: `NAME_PORT=N` and
  `PORT=N` assignments get free ports, so the check can run beside other servers.
- A command that fails ends the run (`set -e`, `pipefail`), and `curl` fails on HTTP errors
  (`--fail-with-body` is added; the README's commands are otherwise untouched).
- Afterwards: the APNs emulator accepted the pushes the examples caused, the event stream the
  README follows saw them, the backup is sound, and every `droptrack_*` metric the README names
  exists in the live `/metrics`.
- Every ```json block parses.
"""
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import check, failures, free_port  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "_Not run by checks/readme_examples.py:"
COMMAND_LANGUAGES = {"sh", "bash", "shell", "console", "nginx"}
BLOCK_TIMEOUT = 90


def blocks(readme):
    """(language, text, marked reason or None, line number, section) for each fenced block."""
    lines = readme.split("\n")
    found, section, i = [], "", 0
    while i < len(lines):
        if lines[i].startswith("## "):
            section = lines[i][3:]
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        # The paragraph just before the fence.
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        paragraph = []
        while k >= 0 and lines[k].strip():
            paragraph.insert(0, lines[k])
            k -= 1
        text = " ".join(paragraph)
        reason = text[len(MARK):].strip(" _") if text.startswith(MARK) else None
        found.append((fence.group(1), "\n".join(lines[start + 1:j]), reason, start + 1, section))
        i = j + 1
    return found


def substitute_ports(text, ports):
    def replace(match):
        name = match.group(1)
        ports.setdefault(name, free_port())
        return f"{name}={ports[name]}"
    return re.sub(r"(?<![\w$])((?:[A-Z]+_)?PORT)=(\d+)\b", replace, text)


class Session:
    """One bash reading commands from a pipe, as if typed; its output goes to a file."""

    def __init__(self, work, bin_dir):
        self.log_path = f"{work}/session.log"
        self.log = open(self.log_path, "w")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("DROPTRACK_")}
        environment["PATH"] = f"{bin_dir}:{environment.get('PATH', '/usr/bin:/bin')}"
        self.process = subprocess.Popen(["bash", "--noprofile", "--norc"], stdin=subprocess.PIPE, stdout=self.log,
                                        stderr=subprocess.STDOUT, cwd=work, env=environment, text=True,
                                        start_new_session=True)
        self.send("set -eo pipefail\ncurl() { command curl --fail-with-body \"$@\"; }\n")
        self.count = 0

    def send(self, text):
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def output(self):
        return open(self.log_path).read()

    def run(self, text, timeout=BLOCK_TIMEOUT):
        self.count += 1
        marker = f"@@readme-example-{self.count}-done@@"
        before = len(self.output())
        self.send(f"{text}\necho {marker}\n")
        deadline = time.time() + timeout
        while time.time() < deadline:
            out = self.output()
            if marker in out[before:]:
                return True, out[before:].replace(marker + "\n", "")
            if self.process.poll() is not None:
                return False, out[before:] + f"\n[the shell exited {self.process.returncode}: a command failed]"
            time.sleep(0.1)
        return False, self.output()[before:] + f"\n[no end after {timeout}s]"

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.process.wait(timeout=10)  # reaped, or the shell's zombie keeps the group alive
        except subprocess.TimeoutExpired:
            pass
        deadline = time.time() + 45  # serve drains on SIGTERM: its 20 s at most, and the handlers' 10
        while time.time() < deadline:
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def get(url, context=None, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
        return response.status, response.read().decode()


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
    readme = open(f"{REPOSITORY}/README.md").read()
    found = blocks(readme)
    started = time.time()

    print("== which README examples run")
    runnable = []
    for language, text, reason, line, section in found:
        if language == "json":
            try:
                json.loads(text)
                parsed = True
            except ValueError as error:
                parsed = error
            check(parsed is True, f"README.md:{line} the JSON example parses ({parsed})")
        elif language in COMMAND_LANGUAGES:
            if reason is None and language in ("sh", "bash", "shell"):
                runnable.append((text, line, section))
            elif reason is None:
                check(False, f"README.md:{line} a {language} block is neither run nor marked '{MARK} <why>'")
            else:
                check(len(reason) > 20, f"README.md:{line} ({section}) not run, because: {reason[:100]}…")
    sections = {section for _, _, section in runnable}
    for wanted in ["Quick start: three ways in", "Running the server"]:
        check(wanted in sections, f"the examples of '{wanted}' are run")

    work = tempfile.mkdtemp(prefix="droptrack-readme-")
    bin_dir = f"{work}/.bin"
    os.makedirs(bin_dir)
    os.symlink(binary, f"{bin_dir}/droptrack")
    # The emulators and development keys the examples start are droptrack-dev's, built beside droptrack.
    os.symlink(os.path.join(os.path.dirname(binary), "droptrack-dev"), f"{bin_dir}/droptrack-dev")
    ports = {}
    session = Session(work, bin_dir)
    try:
        print(f"== running {len(runnable)} blocks in {work} (a fresh bash, droptrack on PATH)")
        for text, line, section in runnable:
            block_started = time.time()
            ok, output = session.run(substitute_ports(text, ports))
            first = text.strip().split("\n")[0][:90]
            check(ok, f"README.md:{line} ({section}) ran in {time.time() - block_started:.1f}s: {first}")
            if not ok:
                print("---- output\n" + output[-4000:] + "\n----")
                for name in ["serve.log", "apns.log", "fcm.log"]:
                    if os.path.exists(f"{work}/{name}"):
                        print(f"---- {name}\n" + open(f"{work}/{name}").read()[-2000:])
                break
            if re.search(r'"error"\s*:\s*\{', output):
                check(False, f"README.md:{line} an example answered an error:\n{output[-2000:]}")
        if not failures:
            after(work, ports, readme, session.output())
    finally:
        session.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"== README examples: {time.time() - started:.1f}s")
    if failures:
        print(f"FAIL {len(failures)} README example checks failed")
        sys.exit(1)
    print("== every README example ran as written")


def after(work, ports, readme, output):
    print("== what the examples did")
    check('{"status":"ready"}' in output.replace(" ", ""), "serve answered /readyz ready")
    check(re.search(r"^ok$", output, re.MULTILINE) is not None, "the SQLite backup passes its integrity check")
    backup_mode = os.stat(f"{work}/droptrack-backup.sqlite").st_mode & 0o777
    check(backup_mode == 0o600, f"the backup (raw device tokens) is 0600: {backup_mode:o}")
    check(os.stat(f"{work}/droptrack.json").st_mode & 0o777 == 0o600, "apps add wrote the config 0600")
    context = ssl.create_default_context(cafile=f"{work}/dev-keys/ca.pem")
    apns = f"https://localhost:{ports['APNS_PORT']}"
    deadline, devices = time.time() + 30, {}
    while time.time() < deadline:
        _, body = get(f"{apns}/_emulator/devices", context)
        devices = json.loads(body)
        if len(json.dumps(devices)) > 2 and "0f1e2d3c" in json.dumps(devices) and "a1b2c3d4" in json.dumps(devices):
            break
        time.sleep(0.2)
    check("a1b2c3d4" in json.dumps(devices), "the APNs emulator accepted the push-to-start")
    check("0f1e2d3c" in json.dumps(devices), "the APNs emulator accepted an update on the activity token")
    events = ""
    while time.time() < deadline:
        events = open(f"{work}/events.txt").read()
        if events.count("event: send") >= 3:
            break
        time.sleep(0.2)
    check("event: ready" in events and events.count("event: send") >= 3,
          f"the event stream saw the sends ({events.count('event: send')} `event: send`)")
    check('"provider":"fcm"' in events.replace(" ", ""), "the Android phone's start went through the FCM emulator")
    _, metrics = get(f"http://127.0.0.1:{ports['PORT']}/metrics")
    declared = set(re.findall(r"^# TYPE (droptrack_\w+)", metrics, re.MULTILINE))
    named = set(re.findall(r"droptrack_[a-z0-9_]*[a-z0-9]", readme)) - {"droptrack_shop"}
    missing = sorted(name for name in named if name not in declared)
    check(not missing, f"every metric the README names ({len(named)}) is in /metrics: missing {missing}")
    serve_log = open(f"{work}/serve.log").read()
    check('"message":"server.started"' in serve_log.replace(" ", "") or "server.started" in serve_log,
          "serve.log holds JSON lines")


if __name__ == "__main__":
    main()
