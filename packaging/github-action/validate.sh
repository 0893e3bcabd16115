#!/usr/bin/env bash
# The step of the GitHub Action (action.yml at the repository's root):
# installs the published ace-tools wheels of one version into a virtual
# environment (no Rust needed), runs ace-validate on the given paths with
# annotations in the log, counts the errors and warnings for the step's
# outputs, and writes SARIF when asked.
#
# Inputs come as the environment variables action.yml sets from its inputs
# (INPUT_PATHS, INPUT_VERSION, INPUT_ARGS, INPUT_SARIF, INPUT_TOKEN_BUDGET,
# INPUT_FAIL_ON_ERROR), and GitHub's own: RUNNER_TEMP, GITHUB_OUTPUT and,
# when set, GITHUB_STEP_SUMMARY. pip's own variables (PIP_INDEX_URL,
# PIP_FIND_LINKS, ...) are honoured, for mirrors and for the local test.
#
# Exit status: ace-validate's. 0 when no error was found (or
# fail-on-error is false), 1 when one was, 2 when nothing could be checked
# (a bad input, a path that names nothing, an install that failed).
set -euo pipefail
# Paths and arguments are words, never globs of this shell: ace-validate
# expands the globs it is given itself, inside the repository.
set -f

fail() {
  # The message is ours: no input's text is echoed into a workflow command.
  echo "::error title=ace-validate action::$1"
  exit 2
}

: "${RUNNER_TEMP:?RUNNER_TEMP is set by GitHub Actions}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by GitHub Actions}"

version="${INPUT_VERSION:-}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([a-z0-9.+-]*)$ ]] ||
  fail "the version input must be a release of ace-tools, such as 0.1.0"
case "${INPUT_SARIF:-false}" in
  true | false) ;;
  *) fail "the sarif input must be true or false" ;;
esac
case "${INPUT_FAIL_ON_ERROR:-true}" in
  true | false) ;;
  *) fail "the fail-on-error input must be true or false" ;;
esac
budget=()
if [ -n "${INPUT_TOKEN_BUDGET:-}" ]; then
  [[ "$INPUT_TOKEN_BUDGET" =~ ^[0-9]+$ ]] ||
    fail "the token-budget input must be a whole number of tokens"
  budget=(--max-tokens "$INPUT_TOKEN_BUDGET")
fi
read -r -d '' -a paths <<<"${INPUT_PATHS:-.}" || true
[ "${#paths[@]}" -gt 0 ] || paths=(.)
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true

# One environment per version, kept for a second use in the same job.
venv="$RUNNER_TEMP/ace-tools-$version"
if [ -d "$venv/Scripts" ]; then bin="$venv/Scripts"; else bin="$venv/bin"; fi
if [ ! -x "$bin/ace-validate" ] && [ ! -x "$bin/ace-validate.exe" ]; then
  python=$(command -v python3 || command -v python) ||
    fail "Python 3.9 or later is needed on the runner (actions/setup-python)"
  "$python" -m venv "$venv" || fail "could not make a virtual environment in RUNNER_TEMP"
  if [ -d "$venv/Scripts" ]; then bin="$venv/Scripts"; else bin="$venv/bin"; fi
  # Wheels only: a platform with none fails here instead of compiling Rust.
  "$bin/python" -m pip install --quiet --disable-pip-version-check \
    --only-binary :all: "ace-tools==$version" ||
    fail "pip could not install ace-tools $version (is it released for this platform?)"
fi
ace="$bin/ace-validate"
installed=$("$ace" --version) || fail "the installed ace-validate does not run"
[[ "$installed" == "ace-validate $version" || "$installed" == "ace-validate $version "* ]] ||
  fail "pip installed a different ace-validate than the version asked for"

# `${a[@]+"${a[@]}"}`: an empty array under `set -u` in macOS's bash 3.2.
args=(${extra[@]+"${extra[@]}"} ${budget[@]+"${budget[@]}"} -- "${paths[@]}")

# The annotations: printed to the log, where the runner reads them.
status=0
"$ace" --output-format github "${args[@]}" || status=$?
if [ "$status" -ge 2 ]; then
  exit "$status"
fi

# The counts, from the JSON report of the same run's findings.
report="$RUNNER_TEMP/ace-validate-$$.json"
"$ace" --output-format json --quiet --exit-zero "${args[@]}" >"$report"
read -r errors warnings < <("$bin/python" - "$report" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    found = json.load(f)
print(sum(d["severity"] == "error" for d in found),
      sum(d["severity"] == "warning" for d in found))
PY
)
rm -f "$report"

sarif_file=""
if [ "${INPUT_SARIF:-false}" = true ]; then
  sarif_file="$RUNNER_TEMP/ace-validate.sarif"
  "$ace" --output-format sarif --exit-zero "${args[@]}" >"$sarif_file.part"
  mv -f "$sarif_file.part" "$sarif_file"
fi

{
  echo "errors=$errors"
  echo "warnings=$warnings"
  echo "sarif-file=$sarif_file"
} >>"$GITHUB_OUTPUT"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  echo "ace-validate $version: $errors error(s), $warnings warning(s)" >>"$GITHUB_STEP_SUMMARY"
fi

if [ "$status" -ne 0 ] && [ "${INPUT_FAIL_ON_ERROR:-true}" = true ]; then
  exit "$status"
fi
exit 0
