"""Runs the composite GitHub Action in action.yml as the runner would, and
checks what it does on a repository with errors in it.

The runner's part is done here: inputs are merged with their defaults,
`${{ }}` expressions are evaluated (the few forms action.yml uses: context
values, string literals, ==, !=, &&, ||, !, always(), success(),
failure(); any other form fails the test), each `run` step is written to a
file and run with `bash --noprofile --norc -eo pipefail FILE` in the
workspace with GitHub's environment variables, a step's outputs are read
from its GITHUB_OUTPUT file, a failed step skips the steps after it unless
their `if` says otherwise, and the action's outputs are evaluated. A
`uses` step cannot run here: it is recorded with its evaluated `with`, and
the checks look at what it was given.

Usage: run_action.py REPO_ROOT WHEEL_DIR CHECK_JSONSCHEMA
(the wheel folder holds both ace-tools wheels; pip is pointed at it with
PIP_NO_INDEX and PIP_FIND_LINKS, as a mirror would be).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(sys.argv[1]).resolve()
WHEELS = Path(sys.argv[2]).resolve()
CHECK_JSONSCHEMA = sys.argv[3]
ACTION = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))
SARIF_SCHEMA = ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json"
# A runner's PATH without a Rust toolchain: the action installs wheels.
CLEAN_PATH = "/usr/bin:/bin"

TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))"
    r"|(?P<call>(?:always|success|failure)\(\))|(?P<ref>[A-Za-z_][\w.-]*))"
)


def evaluate(expr, ctx, status):
    """The value of one expression, over the contexts GitHub gives a
    composite action's steps (inputs, steps) and the step status."""
    tokens = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise SystemExit(f"FAIL: unsupported expression in action.yml: {expr!r}")
        tokens.append(m)
        pos = m.end()
    tokens = [t for t in tokens if t.lastgroup]

    def value(t):
        if t.group("str") is not None:
            return t.group("str")[1:-1].replace("''", "'")
        if t.group("call"):
            name = t.group("call")[:-2]
            return {"always": True, "success": status == "success", "failure": status == "failure"}[name]
        parts = t.group("ref").split(".")
        v = ctx
        for p in parts:
            if not isinstance(v, dict) or p not in v:
                if parts[0] in ("inputs", "steps"):
                    return ""
                raise SystemExit(f"FAIL: unknown context {t.group('ref')!r} in action.yml")
            v = v[p]
        return v

    # Precedence as GitHub's: ! over ==/!= over && over ||.
    def level(op, lower, combine):
        def parse(i):
            left, i = lower(i)
            while i < len(tokens) and tokens[i].group("op") == op:
                right, i = lower(i + 1)
                left = combine(left, right)
            return left, i

        return parse

    def parse_eq(i):
        left, i = parse_not(i)
        while i < len(tokens) and tokens[i].group("op") in ("==", "!="):
            op = tokens[i].group("op")
            right, i = parse_not(i + 1)
            same = str(left).lower() == str(right).lower()
            left = same if op == "==" else not same
        return left, i

    def parse_not(i):
        if tokens[i].group("op") == "!":
            v, i = parse_not(i + 1)
            return not v, i
        if tokens[i].group("op") == "(":
            v, i = parse_or(i + 1)
            return v, i + 1
        return value(tokens[i]), i + 1

    parse_and = level("&&", parse_eq, lambda a, b: a and b)
    parse_or = level("||", parse_and, lambda a, b: a or b)
    result, end = parse_or(0)
    if end != len(tokens):
        raise SystemExit(f"FAIL: unsupported expression in action.yml: {expr!r}")
    return result


def substitute(text, ctx, status="success"):
    def one(m):
        v = evaluate(m.group(1), ctx, status)
        return "true" if v is True else "false" if v is False else str(v)

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def condition(text, ctx, status):
    if text is None:
        return status == "success"
    m = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", str(text))
    v = evaluate(m.group(1) if m else str(text), ctx, status)
    if not re.search(r"\b(always|failure|success)\(\)", str(text)):
        v = v and status == "success"
    return bool(v) and v != ""


def read_outputs(path):
    out = {}
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.fullmatch(r"([\w-]+)<<(\S+)", line)
        if m:
            end = lines.index(m.group(2), i + 1)
            out[m.group(1)] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, val = line.partition("=")
        out[name] = val
        i += 1
    return out


def run_action(workspace, runner_temp, given):
    """Runs the action once; returns (exit status, log, outputs, uses
    steps run, step summary)."""
    for name in given:
        if name not in ACTION["inputs"]:
            raise SystemExit(f"FAIL: the test gives an input action.yml does not have: {name}")
    inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    inputs.update(given)
    ctx = {"inputs": inputs, "steps": {}}
    summary = Path(runner_temp) / f"summary-{len(os.listdir(runner_temp))}.md"
    summary.write_text("")
    status = "success"
    code = 0
    log = []
    used = []
    for n, step in enumerate(ACTION["runs"]["steps"]):
        if not condition(step.get("if"), ctx, status):
            continue
        if "uses" in step:
            used.append((step["uses"], {k: substitute(v, ctx, status) for k, v in step.get("with", {}).items()}))
            continue
        assert step.get("shell") == "bash", "every run step names bash, which every runner has"
        output = Path(runner_temp) / f"output-{os.getpid()}-{n}"
        output.write_text("")
        script = Path(runner_temp) / f"step-{n}.sh"
        script.write_text(substitute(step["run"], ctx, status))
        env = {
            "PATH": CLEAN_PATH,
            "HOME": str(runner_temp),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_ENV": str(Path(runner_temp) / "env"),
            "GITHUB_PATH": str(Path(runner_temp) / "path"),
            "RUNNER_OS": "Linux",
            "RUNNER_TEMP": str(runner_temp),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(WHEELS),
        }
        env.update({k: substitute(v, ctx, status) for k, v in step.get("env", {}).items()})
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
        )
        log.append(proc.stdout)
        sys.stderr.write(proc.stderr)
        if step.get("id"):
            ctx["steps"][step["id"]] = {"outputs": read_outputs(output), "outcome": "success" if proc.returncode == 0 else "failure"}
        if proc.returncode != 0:
            status = "failure"
            code = code or proc.returncode
    outputs = {k: substitute(v["value"], ctx, status) for k, v in ACTION["outputs"].items()}
    return code, "".join(log), outputs, used, summary.read_text()


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def main():
    work = Path(tempfile.mkdtemp(prefix="ace-action-"))
    try:
        runner_temp = work / "runner-temp"
        runner_temp.mkdir()
        ws = work / "workspace"
        (ws / "knowledge").mkdir(parents=True)
        # A file name an untrusted pull request could bring: characters that
        # end a workflow command's property if not escaped.
        bad = ws / "knowledge" / "odd,name%3A::x.md"
        bad.write_text(
            "## STRATEGIES & INSIGHTS\n"
            "[str-00001] helpful=1 harmful=0 :: Read the schema before writing the query\n"
            "[str-00001] helpful=2 harmful=0 :: Check the types of both join columns first\n"
            "[str-00002] helpful=x harmful=0 :: Retry a flaky request once before reporting it\n"
            "[str-00003] helpful=0 harmful=0 :: Be careful\n",
            encoding="utf-8",
        )
        (ws / "good").mkdir()
        (ws / "good" / "playbook.md").write_text(
            "## STRATEGIES & INSIGHTS\n"
            "[str-00001] helpful=3 harmful=0 :: Read the schema before writing the query, since columns drift\n",
            encoding="utf-8",
        )

        # 1. A folder with errors, SARIF asked for: the step fails.
        code, log, out, used, summary = run_action(ws, runner_temp, {"paths": "knowledge", "sarif": "true"})
        sys.stdout.write(log)
        check(code == 1, f"errors fail the step (exit {code})")
        escaped = "knowledge/odd%2Cname%253A%3A%3Ax.md"
        errors = [l for l in log.splitlines() if l.startswith("::error ")]
        warnings = [l for l in log.splitlines() if l.startswith("::warning ")]
        check(len(errors) == 2 and all(l.startswith(f"::error file={escaped},line=") for l in errors),
              "one annotation per error, on the file, its name escaped")
        check(any(",line=3,col=1," in l and "title=ACE002 duplicate-id::" in l for l in errors), "the duplicate ID at line 3")
        check(any(",line=4,col=13," in l and "title=ACE004 malformed-counters::" in l for l in errors), "the bad counter at line 4, column 13")
        check(any(",line=5," in l and "title=ACE056 vague-content::" in l for l in warnings), "the vague entry is a warning at line 5")
        check(out["errors"] == "2" and out["warnings"] == str(len(warnings)), f"outputs errors=2, warnings={len(warnings)}: {out}")
        sarif = Path(out["sarif-file"])
        check(sarif.is_file() and sarif.parent == runner_temp, "the SARIF file is written in RUNNER_TEMP")
        check(used and used[0][0].startswith("github/codeql-action/upload-sarif@")
              and re.search(r"@[0-9a-f]{40}$", used[0][0]) and used[0][1]["sarif_file"] == str(sarif),
              "upload-sarif, pinned by commit, is given the file even though the check failed")
        subprocess.run([CHECK_JSONSCHEMA, "--schemafile", str(SARIF_SCHEMA), str(sarif)], check=True)
        doc = json.loads(sarif.read_text(encoding="utf-8"))
        results = doc["runs"][0]["results"]
        levels = sorted(r["level"] for r in results)
        check(levels.count("error") == 2 and levels.count("warning") == len(warnings), f"SARIF holds the same findings: {levels}")
        check("2 error(s)" in summary, "the step summary gives the counts")

        # 2. Told not to fail: the same findings, exit 0, no upload.
        code, log, out, used, _ = run_action(ws, runner_temp, {"paths": "knowledge", "fail-on-error": "false"})
        check(code == 0 and out["errors"] == "2" and not used and out["sarif-file"] == "", "fail-on-error false: exit 0, counts kept, nothing uploaded")

        # 3. A clean folder, and the default paths with a token budget.
        code, log, out, _, _ = run_action(ws, runner_temp, {"paths": "good"})
        check(code == 0 and "::error" not in log and out["errors"] == "0", "a clean folder passes")
        code, log, out, _, _ = run_action(ws / "good", runner_temp, {"token-budget": "5"})
        check(code == 1 and "title=ACE085 over-token-budget::" in log and "file=playbook.md," in log,
              "token-budget reports ACE085 on the default paths, named without ./")

        # 4. Nothing to check, and inputs that are not what they say.
        code, log, out, used, _ = run_action(ws, runner_temp, {"paths": "missing/", "sarif": "true"})
        check(code == 2 and not used, f"a path that names nothing: exit 2, nothing uploaded ({code})")
        hostile = "0.1.0\n::warning::injected"
        code, log, _, _, _ = run_action(ws, runner_temp, {"version": hostile})
        check(code == 2 and "injected" not in log, "a bad version is refused without echoing it")
        code, log, _, _, _ = run_action(ws, runner_temp, {"token-budget": "many"})
        check(code == 2 and "token-budget" in log, "a token-budget that is no number is refused")
        code, log, _, _, _ = run_action(ws, runner_temp, {"version": "0.0.1"})
        check(code == 2 and "could not install ace-tools 0.0.1" in log, "a version with no wheel fails the step")
        print("action: all checks passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
