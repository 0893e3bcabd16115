#!/usr/bin/env bash
# Stops the cluster tests/postgres/start.sh started in folder $1, at once,
# and removes the folder.
set -euo pipefail
dir=${1:?usage: stop.sh FOLDER}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
  else
    "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
  fi
fi
rm -rf "$dir"
