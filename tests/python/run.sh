#!/usr/bin/env bash
# The Python distribution end to end:
#   1. builds the two wheels with maturin (ace-tools-native, the abi3
#      module; ace-tools, the five executables and the package);
#   2. installs them offline (`pip install --no-index`) into a fresh
#      virtualenv and runs tests/python with no Rust toolchain on PATH,
#      and mypy's stubtest over the package's typed stubs;
#   3. makes a git repository of the pre-commit mirror template
#      (packaging/pre-commit-mirror) and a repository using it, and shows
#      with PIP_NO_INDEX=1 and PIP_FIND_LINKS=<the wheels> that a bad
#      playbook fails the commit and a good one passes, timing the hook's
#      first installation.
# Tools from PyPI are pinned. Usage: tests/python/run.sh [WHEEL_DIR]
# (a WHEEL_DIR with both wheels built already skips step 1).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wheels="${1:-$work/wheels}"
# shellcheck source=tests/precommit/commits.sh
. "$here/tests/precommit/commits.sh"

python3 -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet --disable-pip-version-check \
  "maturin==1.16.0" "pre-commit==4.3.0"

if ! ls "$wheels"/ace_tools_native-*.whl "$wheels"/ace_tools-*.whl >/dev/null 2>&1; then
  start=$(date +%s)
  "$work/tools/bin/maturin" build --release --quiet -o "$wheels" \
    -m "$here/crates/python/ace-tools-py/Cargo.toml"
  (cd "$here" && "$work/tools/bin/maturin" build --release --quiet -o "$wheels")
  echo "python: both wheels built in $(( $(date +%s) - start )) s"
fi
# The mirror package is built by pip with setuptools: it goes beside the
# wheels, so that pre-commit's offline install finds it too.
"$work/tools/bin/pip" download --quiet --disable-pip-version-check \
  --only-binary :all: -d "$wheels" "setuptools==80.9.0"
ls -l "$wheels"

# A PATH with the system's tools and no cargo, rustc or rustup.
clean_path="/usr/bin:/bin"
for t in cargo rustc rustup; do
  if PATH="$clean_path" command -v "$t" >/dev/null; then
    echo "FAIL: $t is on $clean_path; the test needs a PATH without it" >&2
    exit 1
  fi
done

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "pytest==8.4.2" "mypy==2.4.1"
start=$(date +%s%N)
env -i HOME="$work" PATH="$work/venv/bin:$clean_path" PIP_NO_INDEX=1 \
  "$work/venv/bin/pip" install --quiet --disable-pip-version-check \
  --no-index --find-links "$wheels" ace-tools
echo "python: pip install --no-index ace-tools took $(( ($(date +%s%N) - start) / 1000000 )) ms"
env -i HOME="$work" PATH="$work/venv/bin:$clean_path" LANG=C.UTF-8 \
  ACE_CORPUS="${ACE_CORPUS:-}" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$here/tests/python"
# The typed stubs say what the package has: mypy's stubtest compares them
# with the installed module.
(cd "$work" && env -i HOME="$work" PATH="$work/venv/bin:$clean_path" \
  "$work/venv/bin/python" -m mypy.stubtest ace_tools)

# The pre-commit mirror, as a repository of its own.
mirror="$work/mirror"
mkdir "$mirror"
cp -r "$here/packaging/pre-commit-mirror/." "$mirror/"
git -C "$mirror" init -q
git -C "$mirror" add .
git -C "$mirror" -c user.name=ci -c user.email=ci@example.invalid commit -q -m mirror
rev="$(git -C "$mirror" rev-parse HEAD)"

repo="$work/repo"
git init -q "$repo"
cd "$repo"
git config user.name ci
git config user.email ci@example.invalid
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $mirror
    rev: $rev
    hooks:
      - id: ace-validate
YAML
git add .pre-commit-config.yaml
git commit -q -m config
hook_env=(env -i HOME="$work" PATH="$work/tools/bin:$clean_path" LANG=C.UTF-8
  PRE_COMMIT_HOME="$work/pre-commit-cache" PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels")
"${hook_env[@]}" pre-commit install >/dev/null
start=$(date +%s%N)
"${hook_env[@]}" pre-commit install-hooks
echo "pre-commit (python mirror): first install of the hook took $(( ($(date +%s%N) - start) / 1000000 )) ms"
check_commits "python mirror, no cargo on PATH" "$work" "${hook_env[@]}"
check_kayba_commits "python mirror, no cargo on PATH" "$work" "${hook_env[@]}"
