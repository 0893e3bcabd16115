# Sourced by tests/precommit/run.sh and tests/python/run.sh.
#
# check_commits LABEL LOGDIR [CMD...]: in the current git repository, with
# its pre-commit hook installed, commits a playbook with a duplicate ID,
# which must fail and show ACE002, then the playbook fixed, which must
# pass. git runs under CMD (an `env -i ...` prefix, say), if given.
check_commits() {
  local label="$1" logs="$2"
  shift 2
  mkdir -p knowledge
  printf '## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=3 harmful=0 :: Reproduce a failing case with a small test before changing the code.\n[str-00001] helpful=1 harmful=0 :: Read the API schema before writing a request so field names match.\n' > knowledge/playbook.md
  git add knowledge/playbook.md
  if "$@" git commit -q -m bad > "$logs/bad.log" 2>&1; then
    echo "FAIL ($label): a playbook with a duplicate ID was committed" >&2
    cat "$logs/bad.log" >&2
    exit 1
  fi
  if ! grep -q 'error\[ACE002\]: duplicate ID `str-00001`' "$logs/bad.log"; then
    echo "FAIL ($label): the failed commit does not show ACE002" >&2
    cat "$logs/bad.log" >&2
    exit 1
  fi
  sed -i 's/^\[str-00001\] helpful=1/[str-00002] helpful=1/' knowledge/playbook.md
  git add knowledge/playbook.md
  if ! "$@" git commit -q -m good > "$logs/good.log" 2>&1; then
    echo "FAIL ($label): a good playbook was refused" >&2
    cat "$logs/good.log" >&2
    exit 1
  fi
  echo "pre-commit ($label): bad playbook refused with ACE002, good playbook committed"
}
