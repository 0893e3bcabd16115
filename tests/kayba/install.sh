#!/usr/bin/env bash
# kayba's ace-framework releases that tests/kayba.rs judges by, unpacked
# into $1/VERSION (no dependencies: the skillbook modules use only the
# standard library). Wheels come from PyPI, pinned.
set -euo pipefail
dest=$1
mkdir -p "$dest/wheels"
for v in 0.13.0 0.8.9; do
  if [ ! -d "$dest/$v/ace" ]; then
    python3 -m pip download --quiet --disable-pip-version-check --no-deps \
      --python-version 3.12 --only-binary=:all: \
      "ace-framework==$v" -d "$dest/wheels"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
      "$dest/wheels/ace_framework-$v-py3-none-any.whl" "$dest/$v"
  fi
done
