#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for DropTrack's tests, one per checkout, listening on 127.0.0.1 only.
#
#   scripts/postgres.sh [start]  installs PostgreSQL from Debian if missing, creates the cluster on first use
#                                (on a free port, kept across runs), starts it if it is not running, creates the
#                                database `droptrack`, drops test databases left by test processes that died, and
#                                prints the URL as its last line:
#                                  DROPTRACK_TEST_POSTGRES_URL=postgres://droptrack:…@127.0.0.1:PORT/droptrack
#   scripts/postgres.sh stop     stops the cluster (its data stays)
#   scripts/postgres.sh restart  restarts it (the store's reconnect test drives this)
#   scripts/postgres.sh destroy  stops it and deletes it
#
# Running `start` again is safe and takes well under a second. The cluster lives in
# /tmp/droptrack-postgres-<hash of this checkout's path>: the server refuses to run as root, so as root it runs
# as Debian's `postgres` user, which may not be able to enter the checkout. It is tuned for tests (fsync off):
# never keep data there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd -P)
DIR="/tmp/droptrack-postgres-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
DATA="$DIR/data"
USER_NAME=droptrack
DATABASE=droptrack

OWNER=()
[ "$(id -u)" -eq 0 ] && OWNER=(runuser -u postgres --)
as_owner() {
  "${OWNER[@]}" "$@"
}

# Runs a command that leaves the server running, without the caller's open descriptors (subprocess closes
# everything above stderr). Otherwise the server keeps whatever its launcher inherited, and a caller that
# waits for a pipe or socket to close (Foundation's Process does, to learn its child exited) waits forever.
without_inherited_descriptors() {
  python3 -c 'import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))' "$@"
}

install_postgres() {
  if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q "install ok installed"; then
    echo "installing: postgresql" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    # Debian's policy-rc.d may refuse to start the default cluster; that one is never used here.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
}

find_binaries() {
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$newest" ] || [ ! -x "$newest/pg_ctl" ]; then
    echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin; is 'postgresql' installed?" >&2
    exit 1
  fi
  BIN=$newest
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_in_use() {
  # With SO_REUSEADDR, as PostgreSQL binds: a port left in TIME_WAIT by the last run counts as free.
  python3 -c 'import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(0)
sys.exit(1)' "$1"
}

is_running() {
  [ -f "$DATA/PG_VERSION" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

create_cluster() {
  echo "creating a PostgreSQL cluster in $DIR" >&2
  rm -rf "$DIR"
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
  local password
  password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  # The password goes to initdb through a file only the cluster's owner can read, never on a command line.
  (umask 077 && printf '%s\n' "$password" >"$DIR/password")
  [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR/password"
  as_owner "$BIN/initdb" -D "$DATA" -U "$USER_NAME" --pwfile="$DIR/password" --auth=scram-sha-256 \
    -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
  # Tests open many stores at once (each a pool of up to 8 connections), hence max_connections.
  # No Unix socket: everything connects over TCP to 127.0.0.1, so no socket directory has to exist.
  cat >>"$DATA/postgresql.conf" <<EOF

# scripts/postgres.sh: a throwaway test cluster
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  set_port "$(free_port)"
}

set_port() {
  printf '%s\n' "$1" >"$DIR/port"
  as_owner sed -i "/^port = /d" "$DATA/postgresql.conf"
  printf 'port = %s\n' "$1" | as_owner tee -a "$DATA/postgresql.conf" >/dev/null
}

start_cluster() {
  [ -f "$DATA/PG_VERSION" ] || create_cluster
  if ! is_running; then
    # The port was free when the cluster was made; something else may have taken it since.
    if port_in_use "$(cat "$DIR/port")"; then set_port "$(free_port)"; fi
    without_inherited_descriptors "${OWNER[@]}" "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 start >/dev/null \
      || { tail -20 "$DIR/server.log" >&2; exit 1; }
  fi
  local port password url
  port=$(cat "$DIR/port")
  password=$(cat "$DIR/password")
  url="postgres://$USER_NAME:$password@127.0.0.1:$port/$DATABASE"
  local admin="postgres://$USER_NAME:$password@127.0.0.1:$port/postgres"
  if [ -z "$(psql "$admin" -tAXc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" ]; then
    psql "$admin" -qAXc "CREATE DATABASE $DATABASE" >/dev/null
  fi
  # The tests make one database per process, named droptrack_test_<pid>_<random>, and drop it when they exit.
  # A process that was killed cannot: drop those whose process is gone.
  local name pid
  for name in $(psql "$admin" -tAXc "SELECT datname FROM pg_database WHERE datname LIKE 'droptrack\_test\_%'"); do
    pid=$(printf '%s' "$name" | cut -d_ -f3)
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      psql "$admin" -qAXc "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null
    fi
  done
  echo "PostgreSQL $("$BIN/postgres" --version | grep -oE '[0-9]+(\.[0-9]+)*' | head -1) on 127.0.0.1:$port, data in $DATA" >&2
  echo "DROPTRACK_TEST_POSTGRES_URL=$url"
}

command=${1:-start}
case "$command" in
  start)
    install_postgres
    find_binaries
    start_cluster
    ;;
  stop)
    find_binaries
    if is_running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; fi
    echo "stopped (data kept in $DATA)" >&2
    ;;
  restart)
    find_binaries
    [ -f "$DATA/PG_VERSION" ] || { echo "postgres.sh: no cluster in $DIR; run scripts/postgres.sh first" >&2; exit 1; }
    without_inherited_descriptors "${OWNER[@]}" "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -m fast -w -t 60 restart \
      >/dev/null \
      || { tail -20 "$DIR/server.log" >&2; exit 1; }
    echo "restarted" >&2
    ;;
  destroy)
    find_binaries
    if is_running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null; fi
    rm -rf "$DIR"
    echo "removed $DIR" >&2
    ;;
  *)
    echo "usage: scripts/postgres.sh [start | stop | restart | destroy]" >&2
    exit 2
    ;;
esac
