"""Every example in the README and in docs/ works as written. The shell examples are run, in order,
in one bash session in an empty folder per session, with the binary given on PATH as `droptrack`, and
`droptrack-dev` from beside it:

    python checks/readme_examples.py .build/debug/droptrack

Two sessions: README.md's tour alone (it must work for a reader who reads nothing else), then the
docs/ pages, the first-delivery tutorial first and the guides that continue its shell after it
(`SESSION_ORDER`), then every other page with a shell block.

Rules it enforces, on README.md and every docs/**/*.md:
- Every ```sh block is run, unless the paragraph just before it starts with
  "_Not run by checks/readme_examples.py:" and says why (the mark is visible to readers).
- Every other command-like or code block (console, nginx, ruby, kotlin, ts, python, swift, …) carries
  that mark, or is checked elsewhere and says where just before it: `<!-- example: NAME -->` (a
  Swift block that `ReadmeAdoptionTests` holds to the compiled `// README: NAME` region) or
  `<!-- checked by: PATH -->` (a file that reads this page's block and runs or compiles it).
- Every ```json block parses. Blocks without a language (diagrams, printed output) are text.
- Every relative link in README.md, docs/, clients/*/README.md and examples/*/README.md points at a
  file that exists, and a `#fragment` into a Markdown file at one of its headings.
- Nothing is substituted but what the pages name as variables to change: `NAME_PORT=N` and
  `PORT=N` assignments get free ports, so the check can run beside other servers.
- A command that fails ends the run (`set -e`, `pipefail`), and `curl` fails on HTTP errors
  (`--fail-with-body` is added; the commands are otherwise untouched).
- Afterwards: the APNs emulator accepted the pushes the examples caused, the event stream the
  tutorial follows saw them, the backup is sound, and every `droptrack_*` metric any page names
  exists in the live `/metrics`.
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
        heading = re.match(r"^#{1,3} (.*)", lines[i])
        if heading:
            section = heading.group(1)
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


SESSION_ORDER = ["docs/tutorials/first-delivery.md", "docs/how-to/audiences.md", "docs/how-to/declarative-mappers.md"]
CODE_LANGUAGES = {"swift", "kotlin", "ts", "typescript", "js", "javascript", "python", "ruby", "java", "yaml", "xml"}


def pages():
    """README.md, then docs/**/*.md (the session order first, then the rest by path)."""
    found = []
    for root, _, files in os.walk(f"{REPOSITORY}/docs"):
        found += [os.path.relpath(os.path.join(root, name), REPOSITORY) for name in files if name.endswith(".md")]
    rest = sorted(page for page in found if page not in SESSION_ORDER)
    return ["README.md"] + [page for page in SESSION_ORDER if page in found] + rest


def classify(path, text):
    """The page's runnable shell blocks; checks every other block's mark and every JSON block."""
    runnable = []
    for language, body, reason, line, section in blocks(text):
        where = f"{path}:{line}"
        if language == "json":
            try:
                json.loads(body)
                parsed = True
            except ValueError as error:
                parsed = error
            check(parsed is True, f"{where} the JSON example parses ({parsed})")
        elif reason is not None:
            check(len(reason) > 20, f"{where} ({section}) not run, because: {reason[:100]}…")
        elif language in ("sh", "bash", "shell"):
            runnable.append((body, line, section))
        elif language in COMMAND_LANGUAGES or language in CODE_LANGUAGES:
            check(checked_elsewhere(path, text, line),
                  f"{where} a {language} block is neither run, nor marked '{MARK} <why>', nor checked elsewhere")
    return runnable


def checked_elsewhere(path, text, line):
    """The line just before the fence names a check that really reads this block."""
    before = [l for l in text.split("\n")[:line - 1] if l.strip()][-1:]
    if not before:
        return False
    example = re.match(r"^<!-- example: ([\w-]+) -->$", before[0])
    if example:
        source = open(f"{REPOSITORY}/Tests/LiveTests/ReadmeAdoptionExamples.swift").read()
        test = open(f"{REPOSITORY}/Tests/LiveTests/ReadmeAdoptionTests.swift").read()
        return f"// README: {example.group(1)}" in source and path in test
    checker = re.match(r"^<!-- checked by: (\S+) -->$", before[0])
    if checker and os.path.exists(f"{REPOSITORY}/{checker.group(1)}"):
        return path in open(f"{REPOSITORY}/{checker.group(1)}").read()
    return False


def headings(text):
    """GitHub's anchors for a Markdown file: each heading's slug, and explicit `<a id>`s."""
    anchors, seen = set(re.findall(r'<a id="([^"]+)"', text)), {}
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def check_links():
    files = [p for p in pages()]
    for folder in ("clients", "examples"):
        for name in sorted(os.listdir(f"{REPOSITORY}/{folder}")):
            if os.path.exists(f"{REPOSITORY}/{folder}/{name}/README.md"):
                files.append(f"{folder}/{name}/README.md")
    broken = []
    for path in files:
        text = open(f"{REPOSITORY}/{path}").read()
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"^[a-z]+:", target) or target.startswith("<"):
                continue
            file, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(f"{REPOSITORY}/{path}"), file)) if file \
                else f"{REPOSITORY}/{path}"
            if not os.path.exists(resolved):
                broken.append(f"{path}: {target} (no such file)")
            elif fragment and resolved.endswith(".md") and fragment not in headings(open(resolved).read()):
                broken.append(f"{path}: {target} (no such heading)")
    check(not broken, f"every relative link in {len(files)} pages resolves" + "".join(f"\n  {b}" for b in broken))


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
    started = time.time()
    print("== which examples run, and the links")
    sessions = {"README.md": [], "docs": []}
    texts = {}
    for path in pages():
        texts[path] = open(f"{REPOSITORY}/{path}").read()
        runnable = [(path, *block) for block in classify(path, texts[path])]
        sessions["README.md" if path == "README.md" else "docs"] += runnable
    check_links()
    for page, wanted in [("README.md", "A one-minute tour: the first delivery, on the emulators"),
                         ("docs/tutorials/first-delivery.md", "2. A delivery")]:
        check(any(p == page and s == wanted for p, _, _, s in sessions["README.md"] + sessions["docs"]),
              f"the examples of {page} '{wanted}' are run")
    if not failures:
        for name, runnable in sessions.items():
            run_session(name, runnable, binary, texts)
            if failures:
                break
    print(f"== examples: {time.time() - started:.1f}s")
    if failures:
        print(f"FAIL {len(failures)} example checks failed")
        sys.exit(1)
    print("== every example in README.md and docs/ ran as written")


def run_session(name, runnable, binary, texts):
    work = tempfile.mkdtemp(prefix="droptrack-examples-")
    bin_dir = f"{work}/.bin"
    os.makedirs(bin_dir)
    os.symlink(binary, f"{bin_dir}/droptrack")
    # The emulators and development keys the examples start are droptrack-dev's, built beside droptrack.
    os.symlink(os.path.join(os.path.dirname(binary), "droptrack-dev"), f"{bin_dir}/droptrack-dev")
    ports = {}
    session = Session(work, bin_dir)
    started = time.time()
    try:
        print(f"== {name}: running {len(runnable)} blocks in {work} (a fresh bash, droptrack on PATH)")
        for path, text, line, section in runnable:
            block_started = time.time()
            ok, output = session.run(substitute_ports(text, ports))
            first = text.strip().split("\n")[0][:90]
            check(ok, f"{path}:{line} ({section}) ran in {time.time() - block_started:.1f}s: {first}")
            if not ok:
                print("---- output\n" + output[-4000:] + "\n----")
                for log in ["serve.log", "apns.log", "fcm.log", "mappers.log"]:
                    if os.path.exists(f"{work}/{log}"):
                        print(f"---- {log}\n" + open(f"{work}/{log}").read()[-2000:])
                break
            if re.search(r'"error"\s*:\s*\{', output):
                check(False, f"{path}:{line} an example answered an error:\n{output[-2000:]}")
        if not failures:
            if name == "README.md":
                after_tour(work, ports, session.output())
            else:
                after(work, ports, "\n".join(texts.values()), session.output())
    finally:
        session.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"== {name}: {time.time() - started:.1f}s")


def emulator_devices(work, ports, wanted, deadline):
    context = ssl.create_default_context(cafile=f"{work}/dev-keys/ca.pem")
    devices = {}
    while time.time() < deadline:
        _, body = get(f"https://localhost:{ports['APNS_PORT']}/_emulator/devices", context)
        devices = json.loads(body)
        if all(token in json.dumps(devices) for token in wanted):
            break
        time.sleep(0.2)
    return json.dumps(devices)


def after_tour(work, ports, output):
    print("== what the README's tour did")
    check('{"status":"ready"}' in output.replace(" ", ""), "serve answered /readyz ready")
    check(os.stat(f"{work}/droptrack.json").st_mode & 0o777 == 0o600, "apps add wrote the config 0600")
    devices = emulator_devices(work, ports, ["a1b2c3d4"], time.time() + 30)
    check("a1b2c3d4" in devices, "the APNs emulator accepted the tour's push-to-start")
    check("a1b2c3d4" in output, "the tour's last command showed the phone's token in the emulator")


def after(work, ports, readme, output):
    print("== what the docs' examples did")
    check('{"status":"ready"}' in output.replace(" ", ""), "serve answered /readyz ready")
    check(re.search(r"^ok$", output, re.MULTILINE) is not None, "the SQLite backup passes its integrity check")
    backup_mode = os.stat(f"{work}/droptrack-backup.sqlite").st_mode & 0o777
    check(backup_mode == 0o600, f"the backup (raw device tokens) is 0600: {backup_mode:o}")
    check(os.stat(f"{work}/droptrack.json").st_mode & 0o777 == 0o600, "apps add wrote the config 0600")
    deadline = time.time() + 30
    devices = emulator_devices(work, ports, ["a1b2c3d4", "0f1e2d3c"], deadline)
    check("a1b2c3d4" in devices, "the APNs emulator accepted the push-to-start")
    check("0f1e2d3c" in devices, "the APNs emulator accepted an update on the activity token")
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
    check(not missing, f"every metric the pages name ({len(named)}) is in /metrics: missing {missing}")
    serve_log = open(f"{work}/serve.log").read()
    check('"message":"server.started"' in serve_log.replace(" ", "") or "server.started" in serve_log,
          "serve.log holds JSON lines")


if __name__ == "__main__":
    main()
