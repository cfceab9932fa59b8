#!/usr/bin/env bash
# Installs what DropTrack needs on Debian 12 with the Swift toolchain, idempotently. Safe to run again:
# it only installs what is missing, so on a machine that has everything it needs no network.
#
#   scripts/install-deps.sh          everything: the C libraries droptrack links, the reference tools its
#                                    tests and benchmarks run beside it, Chromium for the browser test,
#                                    kotlinc, JUnit 4 and a JDK for the Android library (clients/android, no
#                                    Gradle), tsc for the Expo module, Ruby for the podspecs, dpkg-dev and
#                                    systemd for checking the Debian package, buildah and podman (with runc) for
#                                    the container image, curl for the examples of README.md and docs/,
#                                    and a Python virtualenv (.venv) of independent peer clients (scripts/test.sh)
#   scripts/install-deps.sh --build  only what building and running droptrack needs: the C libraries it
#                                    links and pkg-config (scripts/demo.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  "") build_only=0 ;;
  --build) build_only=1 ;;
  *) echo "usage: scripts/install-deps.sh [--build]" >&2; exit 2 ;;
esac

BUILD_PACKAGES=(
  pkg-config libssl-dev libnghttp2-dev libsqlite3-dev libpq-dev libmicrohttpd-dev   # linked by droptrack
  libcurl4-openssl-dev                                                              # webhooks (CCurl); FoundationNetworking too
)
TEST_PACKAGES=(
  openssl ca-certificates nghttp2-client nghttp2-server sqlite3                     # h2load and nghttpd references
  python3-venv                                                                      # the peer-client virtualenv
  chromium chromium-driver fonts-dejavu-core                                        # the dashboard's browser test
  kotlin junit4 default-jdk-headless                                                # the Android library's tests (clients/android)
  node-typescript                                                                   # tsc for the Expo module (clients/expo)
  ruby                                                                              # the podspecs, evaluated (checks/podspecs.rb)
  dpkg-dev systemd                                                                  # the Debian package: dpkg-shlibdeps, systemd-analyze verify
  curl                                                                              # the examples of README.md and docs/ (checks/readme_examples.py)
  faketime                                                                          # the server's clock moved while it runs (checks/clock_jump.py)
  podman buildah runc                                                               # the container image, built and run (checks/container.py)
)
packages=("${BUILD_PACKAGES[@]}")
[ "$build_only" -eq 1 ] || packages+=("${TEST_PACKAGES[@]}")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "$build_only" -eq 0 ] || exit 0

PYTHON_TOOLS=(pyjwt cryptography aioapns firebase-admin "schemathesis==4.32.5" "openapi-spec-validator==0.9.0"
  jsonschema "pbxproj==4.3.3" wheel)  # jsonschema: the Expo module's expo-module.config.json; pbxproj (mod-pbxproj):
                                      # an independent reader of the Xcode project the config plugin writes
                                      # (clients/expo/test.sh); wheel (with setuptools and cryptography):
                                      # `pip install clients/python` offline (clients/python/test.sh)
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import jwt, cryptography, aioapns, firebase_admin, schemathesis, openapi_spec_validator, jsonschema, pbxproj, wheel" 2>/dev/null; then
  echo "installing Python peer clients: ${PYTHON_TOOLS[*]}" >&2
  .venv/bin/pip install -q "${PYTHON_TOOLS[@]}"
fi
