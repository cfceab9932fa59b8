#!/usr/bin/env bash
# Tests the Python backend SDK:
#   1. `pip install` of this directory (into .build/python-sdk/site, with the .venv's pip and setuptools);
#   2. the retry rules against a scripted HTTP server on 127.0.0.1 (tests/test_retries.py);
#   3. the SDK against a real `droptrack serve` with the emulators (checks/sdk_server.py starts it):
#      starts, events, audiences, tags, device credentials minted here (and forged ones refused), and a
#      webhook delivery from the server verified (tests/test_server.py).
# The tests import the installed copy, not this directory. Needs the .venv (scripts/install-deps.sh).
#   clients/python/test.sh [path/to/droptrack]     (default .build/debug/droptrack)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
droptrack="$(realpath "${1:-$root/.build/debug/droptrack}")"
python="$root/.venv/bin/python"
out="$root/.build/python-sdk"
[ -x "$droptrack" ] || { echo "no droptrack binary at $droptrack (swift build first)" >&2; exit 1; }
[ -x "$python" ] || { echo "no $python: run scripts/install-deps.sh" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"

echo "-- pip install clients/python"
# From a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
mkdir "$out/src" && cp -r "$here/pyproject.toml" "$here/README.md" "$here/droptrack" "$out/src/"
"$python" -m pip install -q --no-build-isolation --no-deps --target "$out/site" "$out/src"
cp -r "$here/tests" "$out/tests"
# The dependency the package declares is the one the .venv provides, within the pin.
(cd "$out" && PYTHONPATH="$out/site" "$python" -c "
import importlib.metadata as m, cryptography
from packaging.requirements import Requirement
(req,) = [Requirement(r) for r in m.requires('droptrack')]
assert req.name == 'cryptography' and req.specifier.contains(cryptography.__version__), (str(req), cryptography.__version__)
import droptrack, os; assert droptrack.__file__.startswith('$out/site'), droptrack.__file__
assert os.path.exists(os.path.join(os.path.dirname(droptrack.__file__), 'py.typed')), 'py.typed is not installed'
print('   installed droptrack', m.version('droptrack'), 'needing', req)")

echo "-- the retry rules (a scripted server on 127.0.0.1)"
(cd "$out" && PYTHONPATH="$out/site" "$python" -m unittest -v tests.test_retries 2>&1)

echo "-- against droptrack serve and the emulators"
facts="$out/facts.json"
"$python" "$root/checks/sdk_server.py" "$droptrack" "$facts" > "$out/server.log" 2>&1 &
server=$!
stop() { kill $server 2>/dev/null; wait $server 2>/dev/null || true; }
trap stop EXIT
trap 'exit 143' TERM INT
for _ in $(seq 600); do
  [ -f "$facts" ] && break
  kill -0 $server 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -f "$facts" ] || { echo "the server did not start within 60 s" >&2; cat "$out/server.log" >&2; exit 1; }
(cd "$out" && DROPTRACK_REPOSITORY="$root" DROPTRACK_SDK_FACTS="$facts" PYTHONPATH="$out/site" "$python" -m unittest -v tests.test_server 2>&1)
echo "== Python SDK: installed, retry rules and the real server's checks passed"
