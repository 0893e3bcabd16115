#!/usr/bin/env bash
# The version a release is made of, said four times: the workspace's
# Cargo.toml, the pin of ace-tools-native in pyproject.toml, the default
# `version` of action.yml, and (when given) the tag being released. All must
# agree, or a tag would publish wheels that the Action does not install.
# Usage: packaging/release/versions.sh [TAG]   (run from the repository root)
set -euo pipefail
cargo=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
pin=$(sed -n 's/^dependencies = \["ace-tools-native==\(.*\)"\]$/\1/p' pyproject.toml)
action=$(awk '/^  version:$/ { inside = 1; next }
              inside && /^    default:/ { gsub(/["]/, "", $2); print $2; exit }
              /^  [a-z]/ { inside = 0 }' action.yml)
echo "Cargo.toml $cargo, pyproject.toml's pin $pin, action.yml $action${1:+, tag $1}"
[ -n "$cargo" ] && [ "$cargo" = "$pin" ] && [ "$cargo" = "$action" ] || {
  echo "versions disagree" >&2
  exit 1
}
if [ -n "${1:-}" ] && [ "${1#v}" != "$cargo" ]; then
  echo "the tag $1 is not v$cargo" >&2
  exit 1
fi
