#!/usr/bin/env bash
# A PostgreSQL server for the issue history's tests and benchmarks, under
# bin/postgres (ignored by git; as root, see below), on a free loopback port
# with its unix socket beside its data. Idempotent:
#
#   hack/postgres.sh start   # installs Debian's postgresql when missing (root), initdb once, starts; prints the DSN
#   hack/postgres.sh dsn     # prints the DSN of the running server
#   hack/postgres.sh stop    # stops it (the data stays for the next start)
#   hack/postgres.sh purge   # stops it and deletes bin/postgres
#
# The DSN is for the tests (CWAC_TEST_POSTGRES_DSN): a superuser with a
# random password (scram-sha-256), listening on 127.0.0.1 only.
#
# As root the server runs as the postgres user, which cannot enter a clone
# in a private directory (root's home is mode 0700): its data directory,
# socket and log are then kept under /var/tmp/cwac-operator-postgres/, in a
# directory named after the clone's path, and bin/postgres keeps the port
# and password (read by root only).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/bin/postgres"

die() { echo "postgres.sh: $*" >&2; exit 1; }

# The server binaries: Debian puts them under /usr/lib/postgresql/<version>/bin.
pgbin() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [[ -z "$d" && -x "$(command -v pg_ctl 2>/dev/null || true)" ]]; then d="$(dirname "$(command -v pg_ctl)")"; fi
  echo "$d"
}

install_server() {
  [[ -n "$(pgbin)" ]] && return 0
  [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null || die "PostgreSQL is not installed; install Debian's postgresql (as root: apt-get install postgresql)"
  echo "postgres.sh: installing Debian's postgresql" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  [[ -n "$(pgbin)" ]] || die "postgresql installed but no server binaries under /usr/lib/postgresql"
}

# PostgreSQL refuses to run as root: as root, the server runs as the
# postgres user the package creates (or nobody).
owner() {
  if [[ $(id -u) -ne 0 ]]; then id -un; elif id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

as_owner() {
  # From /: the server's user may not enter the caller's directory.
  if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u "$(owner)" -- "$@"); else "$@"; fi
}

# The server's own files: under bin/postgres, or, as root, where the server's
# user can reach them whatever the clone's directory allows.
if [[ $(id -u) -eq 0 ]]; then
  SERVER="/var/tmp/cwac-operator-postgres/$(printf '%s' "$ROOT" | sha256sum | cut -c1-16)"
else
  SERVER="$DIR"
fi
DATA="$SERVER/data" RUN="$SERVER/run" LOG="$SERVER/server.log"

running() { [[ -f "$DATA/postmaster.pid" ]] && as_owner "$(pgbin)/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

dsn() {
  [[ -f "$DIR/port" && -f "$DIR/password" ]] || die "no server set up: run hack/postgres.sh start"
  echo "postgres://postgres:$(cat "$DIR/password")@127.0.0.1:$(cat "$DIR/port")/postgres?sslmode=disable"
}

free_port() {
  local p
  for p in $(seq 55432 55532); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "no free port in 55432-55532"
}

start() {
  install_server
  local bin; bin="$(pgbin)"
  mkdir -p "$DIR" "$SERVER"
  if [[ $(id -u) -eq 0 ]]; then chown "$(owner)" "$SERVER"; chmod 700 "$SERVER"; fi
  if [[ ! -f "$DATA/PG_VERSION" || ! -f "$DIR/password" ]]; then
    running && as_owner "$bin/pg_ctl" -D "$DATA" -w -m fast stop >/dev/null
    rm -rf "$DATA"
    mkdir -p "$DATA" "$RUN"
    head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/password"
    chmod 600 "$DIR/password"
    # initdb reads the password from a file of the server's user, beside
    # its data, removed once read.
    cp "$DIR/password" "$SERVER/initdb.pw"
    [[ $(id -u) -eq 0 ]] && chown "$(owner)" "$DATA" "$RUN" "$SERVER/initdb.pw"
    chmod 700 "$DATA"
    as_owner "$bin/initdb" -D "$DATA" -U postgres --auth=scram-sha-256 --pwfile="$SERVER/initdb.pw" -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
      { rm -f "$SERVER/initdb.pw"; cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    rm -f "$SERVER/initdb.pw"
  fi
  if running; then dsn; return 0; fi
  mkdir -p "$RUN" && [[ $(id -u) -eq 0 ]] && chown "$(owner)" "$RUN"
  local port; port="$(free_port)"
  echo "$port" >"$DIR/port"
  touch "$LOG" && [[ $(id -u) -eq 0 ]] && chown "$(owner)" "$LOG"
  as_owner "$bin/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $RUN -c fsync=off -c full_page_writes=off" start >/dev/null ||
    { tail -20 "$LOG" >&2; die "the server did not start (log: $LOG)"; }
  dsn
}

stop() {
  if [[ -n "$(pgbin)" ]] && running; then
    as_owner "$(pgbin)/pg_ctl" -D "$DATA" -w -m fast stop >/dev/null
  fi
}

case "${1:-}" in
  start) start ;;
  dsn) running || die "not running: run hack/postgres.sh start"; dsn ;;
  stop) stop ;;
  purge) stop; rm -rf "$DIR" "$SERVER" ;;
  *) die "usage: hack/postgres.sh start|dsn|stop|purge" ;;
esac
