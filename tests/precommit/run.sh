#!/usr/bin/env bash
# End-to-end check of .pre-commit-hooks.yaml and of docs/validate.md's pre-commit
# snippets: installs pre-commit from PyPI, makes a throw-away git repository
# for each way of using the hooks, and shows that a bad playbook fails the
# commit with the rule's message while a good one passes.
#   system: docs/validate.md's first snippet (the README's), the
#           `ace-validate-system` hook of this checkout, with its path and HEAD
#           commit in place of the placeholders (language: system);
#   local:  docs/validate.md's `repo: local` snippet, as written (language: system);
#   rust:   docs/validate.md's third snippet, the `ace-validate` hook (language: rust).
# The local and system modes run the ace-validate of this checkout.
# Usage: tests/precommit/run.sh [system|local|rust]...   (default: all three)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
modes="${*:-system local rust}"
# shellcheck source=tests/precommit/commits.sh
. "$here/tests/precommit/commits.sh"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==4.3.0"
export PATH="$work/venv/bin:$PATH"
export PRE_COMMIT_HOME="$work/cache"

rev="$(git -C "$here" rev-parse HEAD)"
if [ -n "$(git -C "$here" status --porcelain -- .pre-commit-hooks.yaml Cargo.toml src crates)" ]; then
  echo "note: uncommitted changes in $here are not part of rev $rev" >&2
fi

# The N-th YAML block of docs/validate.md's pre-commit section, with its
# placeholders for a clone's path and commit filled in.
readme_snippet() {
  local block
  block="$(awk -v n="$1" '
    /^## pre-commit/ { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && /^```yaml/ { count++; if (count == n) { printing = 1 }; next }
    printing && /^```/ { exit }
    printing { print }
  ' "$here/docs/validate.md")"
  if [ -z "$block" ]; then
    echo "FAIL: docs/validate.md has no pre-commit snippet $1" >&2
    exit 1
  fi
  printf '%s\n' "$block" |
    sed -e "s#/path/to/ace-tools#$here#g" \
        -e "s/0123456789abcdef0123456789abcdef01234567/$rev/g"
}

for mode in $modes; do
  repo="$work/repo-$mode"
  git init -q "$repo"
  cd "$repo"
  git config user.name ci
  git config user.email ci@example.invalid
  hook=ace-validate
  if [ "$mode" != rust ]; then
    # These hooks run what is on PATH: the binary of this checkout.
    cargo build -q --manifest-path "$here/Cargo.toml" --bin ace-validate
    export PATH="$here/target/debug:$PATH"
  fi
  case "$mode" in
    system)
      hook=ace-validate-system
      readme_snippet 1 > .pre-commit-config.yaml
      ;;
    rust) readme_snippet 3 > .pre-commit-config.yaml ;;
    local) readme_snippet 2 > .pre-commit-config.yaml ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  git add .pre-commit-config.yaml
  git commit -q -m config
  pre-commit install >/dev/null
  # The hook's first installation, which a new clone pays on its first
  # commit (for `language: rust`, a cargo install of ace-tools).
  start=$(date +%s)
  pre-commit install-hooks >/dev/null
  echo "pre-commit ($mode, $hook): first install of the hook took $(( $(date +%s) - start )) s"
  check_commits "$mode, $hook" "$work"
  check_kayba_commits "$mode, $hook" "$work"
  cd "$here"
done
