#!/usr/bin/env bash
# A throwaway Postgres cluster for the tests, from Debian's postgresql
# package (installed when missing): initdb in folder $1 as a non-root user,
# listening on a Unix socket in that folder and on 127.0.0.1 (never another
# address) at a free port. Prints two shell assignments, quoted for eval,
# for the tests' environment:
#   ACE_POSTGRES_URL=postgresql://postgres@/postgres?host=$1&port=PORT
#     (the socket, trusted)
#   ACE_POSTGRES_TCP=127.0.0.1:PORT
#     (role ace_pw, password "right", checked with scram-sha-256)
# tests/postgres/stop.sh $1 stops it and removes the folder.
set -euo pipefail
dir=${1:?usage: start.sh FOLDER}

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin=$(find_bin)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  bin=$(find_bin)
fi
[ -x "$bin/initdb" ] || { echo "no initdb after installing postgresql" >&2; exit 1; }

# Postgres refuses to run as root: the cluster belongs to `postgres`
# (made by the package) when this runs as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
mkdir -p "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
chmod 700 "$dir"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust \
  --auth-host=scram-sha-256 --no-sync -E UTF8 --locale=C >/dev/null
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-k $dir -h 127.0.0.1 -p $port -c fsync=off -c max_connections=200" start >/dev/null
as_owner "$bin/psql" -q -h "$dir" -p "$port" -U postgres -d postgres \
  -c "CREATE ROLE ace_pw LOGIN PASSWORD 'right' CREATEDB" >/dev/null
printf 'ACE_POSTGRES_URL=%q\n' "postgresql://postgres@/postgres?host=$dir&port=$port"
printf 'ACE_POSTGRES_TCP=%q\n' "127.0.0.1:$port"
