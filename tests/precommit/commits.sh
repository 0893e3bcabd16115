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
  # The duplicate is the one error; the long entry before it draws a
  # warning whose 300-character line must not fill the hook's output.
  long="$(printf 'Read the whole stack trace before changing code %.0s' 1 2 3 4 5 6)"
  printf '## STRATEGIES & INSIGHTS\n\n[s9] helpful=0 harmful=0 :: %s\n[str-00001] helpful=3 harmful=0 :: Reproduce a failing case with a small test before changing the code.\n[str-00001] helpful=1 harmful=0 :: Read the API schema before writing a request so field names match.\n' "$long" > knowledge/playbook.md
  # A file whose name is an option, and the settings it would load: they
  # are file names to the hook, so the duplicate still stops the commit.
  printf 'ignore = ["ACE002"]\n' > quiet.md
  printf 'ignore = ["ACE002"]\n' > ./--config=quiet.md
  git add knowledge/playbook.md quiet.md ./--config=quiet.md
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
  # Under the hook the error comes first, framed, and no line of the
  # output runs past a narrow frame.
  first="$(grep -m1 -E '(error|warning|info)\[ACE' "$logs/bad.log" || true)"
  case "$first" in
    *'error[ACE002]'*) ;;
    *) echo "FAIL ($label): the first finding is not the error: $first" >&2; cat "$logs/bad.log" >&2; exit 1 ;;
  esac
  if awk 'length($0) > 160 { found = 1 } END { exit !found }' "$logs/bad.log"; then
    echo "FAIL ($label): a line of the hook's output is longer than 160 characters" >&2
    cat "$logs/bad.log" >&2
    exit 1
  fi
  sed -i 's/^\[str-00001\] helpful=1/[str-00002] helpful=1/' knowledge/playbook.md
  sed -i '/^\[s9\]/d' knowledge/playbook.md
  git add knowledge/playbook.md
  if ! "$@" git commit -q -m good > "$logs/good.log" 2>&1; then
    echo "FAIL ($label): a good playbook was refused" >&2
    cat "$logs/good.log" >&2
    exit 1
  fi
  echo "pre-commit ($label): bad playbook refused with ACE002, good playbook committed"
}

# check_kayba_commits LABEL LOGDIR [CMD...]: commits, one at a time, a
# kayba skillbook with a duplicate key, a CLAUDE.md whose managed block
# repeats an ID, and a kayba update batch whose ADD kayba would raise on;
# each must fail with its rule's error. Then a README and a package.json,
# which are no ACE files, must pass the hook untouched.
check_kayba_commits() {
  local label="$1" logs="$2"
  shift 2
  printf '{\n  "skills": {\n    "context-00001": {"id": "context-00001", "section": "context", "content": "Check the premise first.", "helpful": 1, "harmful": 0, "neutral": 0, "status": "active"}\n  },\n  "sections": {"context": ["context-00001"]},\n  "next_id": 1,\n  "next_id": 2\n}\n' > skillbook.json
  printf '# Project\n\nNotes for the agent.\n\n<!-- ACE:START -->\n## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check the input before parsing it.\n[str-00001] helpful=0 harmful=0 :: Keep each function small enough to test.\n<!-- ACE:END -->\n' > CLAUDE.md
  printf '{"reasoning": "r", "operations": [{"type": "ADD", "section": "context", "insight": "Retry a failed call once."}]}\n' > update-batch.json
  for case in "skillbook.json ACE034" "CLAUDE.md ACE002" "update-batch.json ACE084"; do
    file="${case% *}"
    code="${case#* }"
    git add "$file"
    if "${@}" git commit -q -m "bad $file" > "$logs/bad-$file.log" 2>&1; then
      echo "FAIL ($label): a broken $file was committed" >&2
      cat "$logs/bad-$file.log" >&2
      exit 1
    fi
    if ! grep -q "$file:[0-9]*:[0-9]*: error\[$code\]" "$logs/bad-$file.log"; then
      echo "FAIL ($label): the refused $file does not show $code" >&2
      cat "$logs/bad-$file.log" >&2
      exit 1
    fi
    git rm -q --cached "$file"
    rm "$file"
  done
  printf '# Readme\n\nJust prose.\n' > README.md
  printf '{"name": "x", "version": "1.0.0"}\n' > package.json
  git add README.md package.json
  if ! "$@" git commit -q -m "no ACE files" > "$logs/other.log" 2>&1; then
    echo "FAIL ($label): files that are no ACE files were refused" >&2
    cat "$logs/other.log" >&2
    exit 1
  fi
  echo "pre-commit ($label): broken skillbook.json, CLAUDE.md and update batch refused; README.md and package.json committed"
}
