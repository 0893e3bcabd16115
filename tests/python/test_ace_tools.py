"""The ace_tools module against the command-line tools installed beside it.

Run by tests/python/run.sh in a virtualenv where the built wheels were
installed offline and no Rust toolchain is on PATH. Every function is
compared with the output of the tool it stands for, on our fixtures for
every format and, with ACE_CORPUS set, on the whole corpus.
"""

import json
import os
import pathlib
import shutil
import subprocess
import threading
import warnings

import pytest

import ace_tools

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
EXAMPLE = ROOT / "examples" / "appworld-style-playbook.txt"
# Fixed so that a conversion that must invent a time writes the same one
# in this process and in the tools it runs.
os.environ["SOURCE_DATE_EPOCH"] = "1766880000"


def tool(*args, check=True, input=None):
    exe = shutil.which(args[0])
    assert exe, f"{args[0]} is not on PATH: the wheel installs it"
    out = subprocess.run([exe, *args[1:]], capture_output=True, text=True, input=input)
    if check:
        assert out.returncode in (0, 1), out.stderr
    return out


def test_no_rust_toolchain_is_used():
    assert shutil.which("cargo") is None and shutil.which("rustc") is None
    for name in ("ace-convert", "ace-validate", "ace-apply", "ace-diff", "ace-merge", "ace-view", "ace-mcp"):
        exe = shutil.which(name)
        assert exe, name
        # Native executables, not Python scripts that start an interpreter.
        assert pathlib.Path(exe).read_bytes()[:4] == b"\x7fELF", exe


def test_the_wheels_ace_mcp_serves_a_playbook(tmp_path):
    # The console entry a client's configuration names: it answers MCP's
    # initialize and lists the tools, over standard input and output.
    pb = tmp_path / "playbook.md"
    pb.write_text("## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check units\n")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    out = subprocess.run(
        [shutil.which("ace-mcp"), str(pb)],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    answers = {a["id"]: a for a in map(json.loads, out.stdout.splitlines()) if "id" in a}
    assert answers[1]["result"]["serverInfo"]["name"] == "ace-mcp"
    names = {t["name"] for t in answers[2]["result"]["tools"]}
    assert {"read_playbook", "update_counters", "curate_playbook", "apply_delta"} <= names


def test_formats_are_the_tools_formats():
    listed = tool("ace-convert", "--list-formats").stdout
    for name in ace_tools.FORMATS:
        assert f"\n{name} " in "\n" + listed, name


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """The example playbook written by ace-convert in every format."""
    d = tmp_path_factory.mktemp("formats")
    out = {}
    for name in ace_tools.FORMATS:
        text = tool("ace-convert", str(EXAMPLE), "--to", name, "-q").stdout
        path = d / f"example.{name}"
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


@pytest.mark.parametrize("to", ace_tools.FORMATS)
def test_convert_writes_what_ace_convert_writes(to):
    text = EXAMPLE.read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ace_tools.LossWarning)
        ours = ace_tools.convert(text, to=to, filename=str(EXAMPLE))
    assert ours == tool("ace-convert", str(EXAMPLE), "--to", to, "-q").stdout


def test_what_a_conversion_cannot_hold_is_a_warning():
    text = EXAMPLE.read_text(encoding="utf-8")
    with pytest.warns(ace_tools.LossWarning, match=r"ACE10\d"):
        ace_tools.convert(text, to="skill-json")


@pytest.mark.parametrize("fmt", ace_tools.FORMATS)
def test_read_gives_the_canonical_json_of_every_format(sources, fmt):
    path = sources[fmt]
    model = ace_tools.read(path.read_text(encoding="utf-8"), format=fmt)
    cli = tool("ace-convert", str(path), "--from", fmt, "--to", "json", "-q").stdout
    assert model == json.loads(cli)
    assert model["format"] == "ace-canonical" and model["playbook"]["entries"]


@pytest.mark.parametrize("fmt", ace_tools.FORMATS)
def test_write_of_a_read_model_is_the_format_again(sources, fmt, tmp_path):
    model = ace_tools.read(sources[fmt].read_text(encoding="utf-8"), format=fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ace_tools.LossWarning)
        ours = ace_tools.write(model, to=fmt)
    canonical = tmp_path / "model.json"
    canonical.write_text(json.dumps(model), encoding="utf-8")
    cli = tool("ace-convert", str(canonical), "--from", "json", "--to", fmt, "-q").stdout
    assert ours == cli


def test_validate_gives_ace_validates_json_findings():
    path = FIXTURES / "markdown" / "malformed.md"
    text = path.read_text(encoding="utf-8")
    ours = ace_tools.validate(text, filename=str(path))
    cli = tool("ace-validate", "--isolated", "--output-format", "json", str(path)).stdout
    assert ours == json.loads(cli)
    assert {"code", "severity", "message", "line", "column"} <= set(ours[0])


def test_validate_takes_a_config(tmp_path):
    text = "## STRATEGIES & INSIGHTS\n[str-00001] :: No counters here.\n"
    assert any(f["code"] == "ACE003" for f in ace_tools.validate(text))
    config = tmp_path / "ace.toml"
    config.write_text('ignore = ["ACE003"]\n', encoding="utf-8")
    assert not any(
        f["code"] == "ACE003" for f in ace_tools.validate(text, config=str(config))
    )


def test_apply_gives_ace_applys_text_and_report(tmp_path):
    playbook = FIXTURES / "apply" / "skill-playbook.json"
    delta = FIXTURES / "apply" / "skill-delta.json"
    now = "2026-01-01T00:00:00Z"
    text, report = ace_tools.apply(
        playbook.read_text(encoding="utf-8"), [delta.read_text(encoding="utf-8")], now=now
    )
    out = tmp_path / "out.json"
    cli = tool(
        "ace-apply", str(playbook), str(delta), "--now", now, "-q",
        "--report", "json", "-o", str(out),
    )
    assert text == out.read_text(encoding="utf-8")
    # ace-apply prints its report on stderr, the playbook being stdout's.
    assert report == json.loads(cli.stderr)
    assert report["accepted"] and not report["rejected"]


MERGE_BASE = (
    "## STRATEGIES & INSIGHTS\n"
    "[str-00001] helpful=1 harmful=0 :: Check the input first.\n"
    "[str-00002] helpful=0 harmful=0 :: Keep functions small.\n"
)


def test_merge_refuses_a_run_that_would_empty_the_playbook():
    counted = MERGE_BASE.replace("helpful=1", "helpful=2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ace_tools.LossWarning)
        as_skill_json = ace_tools.convert(MERGE_BASE, to="skill-json")
    for run, says in [
        ("", "holds none of BASE's 2 entries.*allow_empty=True merges"),
        ("The agent crashed.\n", "holds none of BASE's 2 entries"),
        (as_skill_json, r"a skill-json file, and BASE is markdown.*ace_tools\.convert\(text, to=\"markdown\"\)"),
        (MERGE_BASE[: MERGE_BASE.index("[str-00002]") + 1], r"ends inside a line.*lacks BASE's last entry `str-00002`"),
    ]:
        with pytest.raises(ace_tools.AceError, match=says):
            ace_tools.merge(MERGE_BASE, [counted, run])
    text, _ = ace_tools.merge(MERGE_BASE, [counted, ""], allow_empty=True)
    assert "str-00001" not in text


def test_merge_gives_ace_merges_text_conflicts_and_renumbering(tmp_path):
    runs = [
        MERGE_BASE.replace("helpful=1", "helpful=3")
        + "[str-00003] helpful=1 harmful=0 :: Retry once.\n",
        MERGE_BASE.replace("Keep functions small.", "Keep every function small.")
        + "[str-00003] helpful=0 harmful=0 :: Page through results.\n",
        MERGE_BASE.replace("Keep functions small.", "Keep functions short.")
        + "[str-00003] helpful=2 harmful=0 :: Retry  once.\n",
    ]
    text, report = ace_tools.merge(MERGE_BASE, runs)
    base = tmp_path / "base.md"
    base.write_text(MERGE_BASE, encoding="utf-8")
    files = []
    for i, r in enumerate(runs):
        f = tmp_path / f"#{i + 1}"
        f.write_text(r, encoding="utf-8")
        files.append(str(f))
    conflicts = tmp_path / "conflicts.json"
    ids = tmp_path / "ids.json"
    cli = tool(
        "ace-merge", "--base", str(base), *files, "--from", "markdown",
        "--conflicts", str(conflicts), "--id-map", str(ids), check=False,
    )
    assert cli.returncode == 1
    assert text == cli.stdout
    assert "[str-00001] helpful=3 harmful=0 :: Check the input first." in text
    assert "[str-00003] helpful=3 harmful=0 :: Retry once." in text
    assert "[str-00004] helpful=0 harmful=0 :: Page through results." in text
    [c] = report["conflicts"]
    assert (c["entry"], c["field"], c["kept_run"], c["run"]) == ("str-00002", "content", "#2", "#3")
    [from_cli] = json.loads(conflicts.read_text(encoding="utf-8"))
    assert {k: v for k, v in from_cli.items() if k not in ("path", "run", "kept_run")} == {
        k: v for k, v in c.items() if k not in ("path", "run", "kept_run")
    }
    assert report["renumbered"] == [
        {"run": "#2", "old": "str-00003", "new": "str-00004"},
        {"run": "#3", "old": "str-00003", "new": "str-00003", "joined": True},
    ]
    assert [m["new"] for m in json.loads(ids.read_text(encoding="utf-8"))] == [
        m["new"] for m in report["renumbered"]
    ]
    assert report["refused"] == []


def test_apply_reports_a_refused_delta_and_changes_nothing():
    playbook = (FIXTURES / "apply" / "skill-playbook.json").read_text(encoding="utf-8")
    unknown = json.dumps({"delta_id": "delta-2026-01-01-001", "counters": [{"id": "bullet-2099-01-01-001", "helpful_delta": 1}]})
    text, report = ace_tools.apply(playbook, [unknown, "not a delta"])
    assert text == playbook
    assert report["accepted"] == []
    assert [r["reason"] for r in report["rejected"]] == ["unknown-id", "invalid"]
    # An unreadable delta is worded as ace-apply words it, named by its place.
    assert report["rejected"][1]["id"] == "#2"
    assert report["rejected"][1]["message"].startswith("#2:1:")


LOW_CONFIDENCE = json.dumps({
    "id": "5e1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f",
    "section": "typescript/testing",
    "op": "add",
    "content": "Pin the test runner's version in CI",
    "metadata": {
        "source": {"beadsId": "bd-201"},
        "confidence": 0.5,
        "helpful": 0,
        "harmful": 0,
        "tags": [],
        "evidence": "the runner's minor release broke two jobs",
        "createdAt": "2025-11-04T10:00:00Z",
    },
})


def test_apply_honours_ace_toml_thresholds_as_the_cli_does(tmp_path):
    agents = FIXTURES / "apply" / "AGENTS.md"
    text = agents.read_text(encoding="utf-8")
    delta = tmp_path / "delta.json"
    delta.write_text(LOW_CONFIDENCE, encoding="utf-8")
    now = "2026-01-01T00:00:00Z"

    def cli(*extra):
        out = tool(
            "ace-apply", str(agents), str(delta), "--now", now, "-q",
            "--report", "json", "--isolated" if not extra else "--config", *extra,
            check=False,
        )
        return json.loads(out.stderr)

    # The curator's default gate (0.80) refuses it, in both.
    _, refused = ace_tools.apply(text, [LOW_CONFIDENCE], now=now, filename=str(agents))
    assert [r["reason"] for r in refused["rejected"]] == ["low-confidence"]
    assert cli() == refused
    # An ace.toml with `confidence = 0.4` lets it through, in both.
    config = tmp_path / "ace.toml"
    config.write_text("[thresholds]\nconfidence = 0.4\n", encoding="utf-8")
    new, accepted = ace_tools.apply(
        text, [LOW_CONFIDENCE], now=now, filename=str(agents), config=str(config)
    )
    assert accepted["accepted"] and not accepted["rejected"]
    assert cli(str(config)) == accepted
    assert "Pin the test runner's version in CI" in new
    # The keyword overrides the file, as --min-confidence does.
    _, again = ace_tools.apply(
        text, [LOW_CONFIDENCE], now=now, config=str(config), min_confidence=0.9
    )
    assert [r["reason"] for r in again["rejected"]] == ["low-confidence"]
    assert ace_tools.find_config(str(tmp_path)) == str(config)


def test_apply_writes_an_agents_md_companion(tmp_path):
    agents = tmp_path / "knowledge" / "AGENTS.md"
    agents.parent.mkdir()
    agents.write_text((FIXTURES / "apply" / "AGENTS.md").read_text(encoding="utf-8"), encoding="utf-8")
    yaml = agents.parent / "playbook.yaml"
    yaml.write_text(
        "version: 1\nsections:\n  - id: build/patterns\n    weight: 0.9\n"
        "  - id: typescript/testing\n    weight: 0.7\n",
        encoding="utf-8",
    )
    delta = json.dumps({
        "id": "6e1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f",
        "section": "brand/new-section",
        "op": "add",
        "content": "A bullet in a section the playbook.yaml does not list yet",
        "metadata": {"confidence": 0.9, "helpful": 0, "harmful": 0, "tags": [],
                     "evidence": "seen in run 77 and run 78",
                     "source": {"beadsId": "bd-301"}, "createdAt": "2025-11-04T10:00:00Z"},
    })
    now = "2026-01-01T00:00:00Z"
    text, report, companion = ace_tools.apply(
        agents.read_text(encoding="utf-8"), [delta], now=now,
        filename=str(agents), companion=yaml.read_text(encoding="utf-8"),
    )
    assert report["accepted"] and not report["rejected"]
    out = tmp_path / "out"
    tool("ace-apply", str(agents), "-", "--now", now, "-q", "-o", f"{out}/",
         input=delta)
    assert text == (out / "AGENTS.md").read_text(encoding="utf-8")
    assert companion == (out / "playbook.yaml").read_text(encoding="utf-8")
    assert "brand/new-section" in companion and "0.9" in companion


def test_apply_refuses_to_leave_its_write_scope(tmp_path):
    playbook = (FIXTURES / "apply" / "skill-playbook.json").read_text(encoding="utf-8")
    with pytest.raises(ace_tools.AceError, match="refusing to write"):
        ace_tools.apply(playbook, [], filename="elsewhere/playbook.json",
                        write_scope=["knowledge/**"])
    text, _ = ace_tools.apply(playbook, [], filename="knowledge/playbook.json",
                              write_scope=["knowledge/**"])
    assert text == playbook
    with pytest.raises(ace_tools.AceError, match="filename"):
        ace_tools.apply(playbook, [], write_scope=["knowledge/**"])


def test_strict_apply_raises_on_a_refused_delta():
    playbook = (FIXTURES / "apply" / "skill-playbook.json").read_text(encoding="utf-8")
    with pytest.raises(ace_tools.AceError, match="strict: 1 delta"):
        ace_tools.apply(playbook, ["not a delta"], strict=True)


BAD = {
    "markdown": None,  # markdown reads any text
    "agents-md": None,
    "playbook-yaml": "sections: [\n",
    "skill-json": '{"bullets": [',
    "vagenda-json": '{"vAgendaInfo": {"version": "0.2"}, "plan": ',
    "vagenda-tron": 'class A: x\n{"plan": A(',
    "skillbook": '{"skills": 3',
    "json": '{"format": "ace-canonical", "playbook": [',
}


@pytest.mark.parametrize("fmt", [f for f, t in BAD.items() if t is not None])
def test_bad_input_raises_ace_error_with_findings(fmt):
    for call in (
        lambda: ace_tools.read(BAD[fmt], format=fmt),
        lambda: ace_tools.convert(BAD[fmt], to="markdown", from_format=fmt),
        lambda: ace_tools.apply(BAD[fmt], [], format=fmt),
    ):
        with pytest.raises(ace_tools.AceError) as err:
            call()
        assert isinstance(err.value, ValueError)
        assert err.value.findings and err.value.findings[0]["severity"] == "error"
        assert {"code", "line", "column", "message"} <= set(err.value.findings[0])


def test_an_unknown_format_name_raises():
    with pytest.raises(ace_tools.AceError, match="unknown format `nope`; expected one of markdown"):
        ace_tools.convert("x", to="nope")
    with pytest.raises(ace_tools.AceError, match="now="):
        ace_tools.apply(EXAMPLE.read_text(encoding="utf-8"), [], now="yesterday")


def test_eight_threads_get_what_one_gets(sources):
    jobs = []
    for fmt, path in sources.items():
        text = path.read_text(encoding="utf-8")
        jobs.append(lambda t=text, f=fmt: json.dumps(ace_tools.read(t, format=f)))
        jobs.append(lambda t=text, f=fmt: json.dumps(ace_tools.validate(t, format=f)))
        jobs.append(lambda t=text, f=fmt: ace_tools.convert(t, to="vagenda-json", from_format=f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ace_tools.LossWarning)
        expected = [job() for job in jobs]
        results = [[None] * len(jobs) for _ in range(8)]
        errors = []
        barrier = threading.Barrier(8)

        def work(k):
            try:
                barrier.wait()
                for _ in range(5):
                    for i, job in enumerate(jobs):
                        results[k][i] = job()
            except Exception as e:  # pragma: no cover - shown by the assert
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    for r in results:
        assert r == expected


def corpus_files():
    root = os.environ.get("ACE_CORPUS")
    if not root:
        return []
    out = []
    for variant in ("markdown-playbook", "agents-md", "skill-json", "vagenda", "playbook-yaml"):
        d = pathlib.Path(root) / variant
        assert d.is_dir(), f"ACE_CORPUS is set but {d} is missing"
        out.extend(p for p in sorted(d.iterdir()) if p.is_file() and p.name != "SOURCES.md")
    return out


def test_the_corpus_is_there_when_asked_for():
    if os.environ.get("ACE_CORPUS"):
        assert len(corpus_files()) > 40


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:60])
def test_read_and_validate_equal_the_tools_on_the_corpus(path):
    text = path.read_text(encoding="utf-8")
    cli = tool("ace-convert", str(path), "--to", "json", "-q", check=False)
    if cli.returncode == 0:
        assert ace_tools.read(text, filename=str(path)) == json.loads(cli.stdout)
    else:
        with pytest.raises(ace_tools.AceError):
            ace_tools.read(text, filename=str(path))
    found = tool(
        "ace-validate", "--isolated", "--no-sections", "--output-format", "json", str(path),
        check=False,
    )
    if found.returncode == 2:
        # Not an ACE artifact (a spec's markdown, a metrics fragment).
        with pytest.raises(ace_tools.AceError, match="not an ACE artifact"):
            ace_tools.validate(text, filename=str(path))
    else:
        assert ace_tools.validate(text, filename=str(path)) == json.loads(found.stdout)


BUDGET_PLAYBOOK = (
    "## STRATEGIES\n"
    "[str-00001] helpful=5 harmful=0 :: Check the HTTP status before parsing the body.\n"
    "[str-00002] helpful=0 harmful=6 :: Parse the body first and check later.\n"
    "[str-00003] helpful=1 harmful=0 :: Check the HTTP status before parsing a body.\n"
    "[str-00004] helpful=2 harmful=0 :: Page through every list endpoint.\n"
)


def test_count_tokens_is_ace_validates_count(tmp_path):
    counted = ace_tools.count_tokens(BUDGET_PLAYBOOK, format="markdown")
    path = tmp_path / "playbook.md"
    path.write_text(BUDGET_PLAYBOOK, encoding="utf-8")
    [cli] = json.loads(tool("ace-validate", "--tokens", "--output-format", "json", str(path)).stdout)
    assert counted["tokens"] == cli["tokens"]
    assert counted["sections"] == cli["sections"]
    assert counted["encoding"] == "cl100k_base"
    assert ace_tools.count_tokens(BUDGET_PLAYBOOK, encoding="chars4")["tokens"] == -(-len(BUDGET_PLAYBOOK) // 4)
    with pytest.raises(ace_tools.AceError):
        ace_tools.count_tokens(BUDGET_PLAYBOOK, encoding="p50k")


def test_prune_and_dedup_do_what_ace_apply_does(tmp_path):
    path = tmp_path / "playbook.md"
    path.write_text(BUDGET_PLAYBOOK, encoding="utf-8")
    text, report = ace_tools.prune(BUDGET_PLAYBOOK, max_entries=2, format="markdown")
    assert text == tool("ace-apply", str(path), "--prune", "--max-entries", "2").stdout
    assert [(p["id"], p["reason"]) for p in report["pruned"]] == [
        ("str-00002", "harmful"),
        ("str-00003", "budget"),
    ]
    assert report["budget"]["after"]["entries"] == 2
    # The kept entries keep their lines.
    assert text == "".join(
        l for l in BUDGET_PLAYBOOK.splitlines(keepends=True) if "str-00002" not in l and "str-00003" not in l
    )
    text, report = ace_tools.dedup(BUDGET_PLAYBOOK, format="markdown")
    assert text == tool("ace-apply", str(path), "--dedup").stdout
    [m] = report["merged"]
    assert (m["keep"], m["merged"], m["helpful"]) == ("str-00001", ["str-00003"], 6)
    assert "[str-00001] helpful=6 harmful=0 :: Check the HTTP status before parsing the body." in text
    # Below 0, every entry never counted harmful would go.
    with pytest.raises(ace_tools.AceError, match="expected a whole number 0 or more"):
        ace_tools.prune(BUDGET_PLAYBOOK, threshold=-1, format="markdown")
    with pytest.raises(ace_tools.AceError, match="expected a number from 0 to 1"):
        ace_tools.dedup(BUDGET_PLAYBOOK, similarity=-1, format="markdown")


def test_render_is_the_block_ace_convert_into_writes(tmp_path):
    src = tmp_path / "playbook.md"
    src.write_text(BUDGET_PLAYBOOK, encoding="utf-8")
    claude = tmp_path / "CLAUDE.md"
    claude.write_text("# Project\n\nProse.\n", encoding="utf-8")
    for style in ("prompt", "agents", "kayba", "content"):
        tool("ace-convert", str(src), "--into", str(claude), "--to", style, "-q")
        text = claude.read_text(encoding="utf-8")
        start = text.index("<!-- ACE:START - Do not edit manually -->\n") + len("<!-- ACE:START - Do not edit manually -->\n")
        block = text[start : text.index("<!-- ACE:END -->")]
        assert ace_tools.render(BUDGET_PLAYBOOK, style=style, format="markdown") == block
        assert text.startswith("# Project\n\nProse.\n")
    full = ace_tools.render(BUDGET_PLAYBOOK, format="markdown")
    budget = ace_tools.count_tokens(full, encoding="cl100k_base")["tokens"] - 1
    fitted = ace_tools.render(BUDGET_PLAYBOOK, format="markdown", max_tokens=budget)
    assert ace_tools.count_tokens(fitted)["tokens"] <= budget
    assert "str-00002" not in fitted and "str-00001" in fitted
    with pytest.raises(ace_tools.AceError):
        ace_tools.render(BUDGET_PLAYBOOK, format="markdown", max_tokens=2)
    with pytest.raises(ace_tools.AceError):
        ace_tools.render(BUDGET_PLAYBOOK, style="toon")


def test_view_is_ace_views_page(tmp_path):
    src = tmp_path / "playbook.md"
    src.write_text(BUDGET_PLAYBOOK, encoding="utf-8")
    page = ace_tools.view(BUDGET_PLAYBOOK, filename=str(src))
    assert page == tool("ace-view", str(src), "--isolated").stdout
    assert page.startswith("<!DOCTYPE html>")
    assert 'data-section="strategies"' in page
    for id in ("str-00001", "str-00002", "str-00003", "str-00004"):
        assert f"<code>{id}</code>" in page
    assert "would be removed" in page  # str-00002: harmful 6 > helpful 0 + 3
    assert " src=" not in page and "<link" not in page


def python_blocks(doc):
    """The ```python blocks of `doc` (a path below the repository)."""
    blocks, block = [], None
    for line in (ROOT / doc).read_text().splitlines():
        if block is None and line.strip() == "```python":
            block = []
        elif block is not None and line.strip() == "```":
            blocks.append("\n".join(block))
            block = None
        elif block is not None:
            block.append(line)
    return blocks


@pytest.mark.parametrize("doc", ["README.md", "docs/python.md"])
def test_the_docs_python_runs_as_written(doc, tmp_path, monkeypatch):
    """Each Python block of the README and docs/python.md runs, on its own,
    in a fresh folder with `examples/` in it."""
    blocks = python_blocks(doc)
    assert blocks, doc
    for i, code in enumerate(blocks):
        folder = tmp_path / str(i)
        shutil.copytree(ROOT / "examples", folder / "examples")
        monkeypatch.chdir(folder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ace_tools.LossWarning)
            exec(compile(code, f"{doc} block {i + 1}", "exec"), {})


def test_a_database_location_reads_writes_and_applies_as_the_tools_do(tmp_path):
    import sqlite3

    db = tmp_path / "ace.db"
    where = f"sqlite:{db}#project=appworld"
    model = ace_tools.read(EXAMPLE.read_text())
    assert ace_tools.write(model, location=where) is None
    # The same rows ace-convert writes, read back by SQLite itself.
    with sqlite3.connect(db) as c:
        rows = c.execute(
            "SELECT entry_id, project_id, user_id FROM entries ORDER BY rowid"
        ).fetchall()
    assert [r[0] for r in rows] == [e["id"] for e in model["playbook"]["entries"]]
    assert {(r[1], r[2]) for r in rows} == {("appworld", "default")}
    back = ace_tools.read(location=where)
    assert back == json.loads(tool("ace-convert", where, "--to", "json", "-q").stdout)
    delta = json.dumps(
        {"delta_id": "delta-2026-01-01-001", "counters": [{"id": "shr-00005", "helpful_delta": 1}]}
    )
    report = ace_tools.apply(location=where, deltas=[delta])
    assert report["accepted"] == ["delta-2026-01-01-001"]
    again = ace_tools.apply(location=where, deltas=[delta])
    assert [r["reason"] for r in again["rejected"]] == ["already-applied"]
    with sqlite3.connect(db) as c:
        (helpful,) = c.execute(
            "SELECT helpful_count FROM entries WHERE entry_id = 'shr-00005'"
        ).fetchone()
    assert helpful == 1
    with pytest.raises(TypeError):
        ace_tools.read(EXAMPLE.read_text(), location=where)
    with pytest.raises(ace_tools.AceError, match="expected sqlite:PATH"):
        ace_tools.read(location=str(tmp_path / "missing.md"))
    # A misspelt project is refused, naming the one there; an apply makes one.
    with pytest.raises(ace_tools.AceError, match="no project `apworld` is there; it holds project `appworld`"):
        ace_tools.read(location=f"sqlite:{db}#project=apworld")


def test_the_one_file_per_project_folder_is_a_location(tmp_path):
    ace = tmp_path / ".ace"
    (ace / "playbooks").mkdir(parents=True)
    (ace / "playbooks" / "global.md").write_text(
        "## STRATEGIES & INSIGHTS\n"
        "[str-00001] helpful=0 harmful=0 :: Break complex problems into smaller, manageable steps.\n"
    )
    (ace / "playbooks" / "finance.md").write_text(
        "# Project: finance\n\n## STRATEGIES & INSIGHTS\n"
        "[str-00002] helpful=1 harmful=0 :: Reconcile the ledger before the monthly close.\n"
    )
    where = f"{ace}#project=finance"
    model = ace_tools.read(location=where)
    entries = model["playbook"]["entries"]
    assert [e["id"] for e in entries] == ["str-00001", "str-00002"]
    assert entries[1]["project_id"] == "finance" and "project_id" not in entries[0]
    add = json.dumps(
        {"operation_type": "ADD", "section": "STRATEGIES & INSIGHTS",
         "content": "Book accruals on the last business day of the month"}
    )
    ace_tools.apply(location=where, deltas=[add])
    finance = (ace / "playbooks" / "finance.md").read_text()
    assert "[str-00003] helpful=0 harmful=0 :: Book accruals" in finance
    assert "str-00003" not in (ace / "playbooks" / "global.md").read_text()
    assert json.loads((ace / "projects.json").read_text())["finance"] == {"description": ""}
