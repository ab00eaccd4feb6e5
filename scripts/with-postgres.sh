#!/usr/bin/env bash
# Runs a command with DATABASE_URL pointing at a PostgreSQL database.
#   scripts/with-postgres.sh npm test
# When DATABASE_URL is already set, runs the command against that server unchanged. Otherwise
# initdb's a throwaway cluster in a temp dir (as the `postgres` user when run as root: initdb
# refuses root), starts it on 127.0.0.1 and a free port, creates the database `agentry`, exports
# DATABASE_URL, runs the command, and stops and removes the cluster on exit. The throwaway cluster
# runs with fsync off (tests need no durability); AGENTRY_PG_FSYNC=on for benchmarks.
set -euo pipefail

if [ -n "${DATABASE_URL:-}" ]; then
  exec "$@"
fi

bindir="${PG_BINDIR:-}"
if [ -z "$bindir" ]; then
  bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$bindir" ] && command -v pg_config >/dev/null 2>&1; then bindir="$(pg_config --bindir)"; fi
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "with-postgres: no PostgreSQL server binaries found (apt-get install -y postgresql, or set DATABASE_URL)" >&2
  exit 1
fi

as_pg() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

dir="$(mktemp -d /tmp/agentry-pg.XXXXXX)"
[ "$(id -u)" = "0" ] && chown postgres "$dir"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

cleanup() {
  as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync >/dev/null
as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-h 127.0.0.1 -p $port -k $dir -c fsync=${AGENTRY_PG_FSYNC:-off} -c max_connections=200" start >/dev/null
as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres agentry

export DATABASE_URL="postgres://postgres@127.0.0.1:$port/agentry"
echo "with-postgres: $DATABASE_URL" >&2
"$@"
