"""kayba's own skillbook code, loaded by file path without the package's
dependencies, as the judge of what ace-tools reads and writes.

    python3 oracle.py ROOT VERSION load FILE
        prints {"skills": N, "active": N, "counts": {id: [h, x, n]}, "sections": {...}}
    python3 oracle.py ROOT VERSION resave FILE OUT
        load_from_file + save_to_file
    python3 oracle.py ROOT VERSION apply FILE BATCH OUT
        load_from_file + apply_update(UpdateBatch.from_json) + save_to_file;
        exits 3 with the exception's text if kayba raises
    python3 oracle.py ROOT VERSION dump FILE
        the loaded skillbook's to_dict(), without the skills' timestamps
    python3 oracle.py ROOT VERSION export FILE OUTDIR
        the skillbook's markdown export (ExportSkillbookMarkdownStep) as
        OUTDIR/export.md, and (0.12 on) its as_prompt() as OUTDIR/prompt.md
    python3 oracle.py ROOT VERSION read FILE
        load_from_file alone (what the speed comparison times)
    python3 oracle.py ROOT 0.13.0 generate N OUT
        a skillbook of N skills made by 0.13's API, words drawn from a
        Zipf-like vocabulary of 20,000, seeded (the speed comparison's input)
    python3 oracle.py ROOT 0.13.0 make OUTDIR
        skillbooks made by 0.13's own API (add, tag, update, remove)
    python3 oracle.py ROOT 0.8.9 make OUTDIR
        a skillbook made by 0.8's own API (made08.json)

ROOT holds each release unpacked as ROOT/VERSION/ace/... (tests/kayba/install.sh).
"""

import importlib.util
import json
import sys
import types
from pathlib import Path


def load_modules(root, version):
    base = Path(root) / version / "ace"
    pkg = types.ModuleType("ace")
    pkg.__path__ = [str(base)]
    sys.modules["ace"] = pkg
    if (base / "core" / "skillbook.py").exists():
        core = types.ModuleType("ace.core")
        core.__path__ = [str(base / "core")]
        sys.modules["ace.core"] = core
        names = ["ace.core.insight_source", "ace.core.skillbook"]
    else:
        names = ["ace.updates", "ace.skillbook"]
        if (base / "insight_source.py").exists():
            names.insert(0, "ace.insight_source")
    mods = {}
    for name in names:
        path = base.joinpath(*name.split(".")[1:]).with_suffix(".py")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        mods[name.rsplit(".", 1)[1]] = mod
    sb = mods["skillbook"]
    batch = getattr(sb, "UpdateBatch", None) or mods["updates"].UpdateBatch
    return sb.Skillbook, batch


def counts(skill):
    if hasattr(skill, "helpful_count"):
        return [skill.helpful_count, skill.harmful_count, skill.neutral_count]
    if hasattr(skill, "helpful"):
        return [skill.helpful, skill.harmful, skill.neutral]
    return None


def summary(book):
    skills = book.skills(include_invalid=True)
    return {
        "skills": len(skills),
        "active": len(book.skills()),
        "counts": {s.id: counts(s) for s in skills},
        "sections": {k: list(v) for k, v in book._sections.items()},
        "next_id": book._next_id,
    }


def make(Skillbook, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    source = {"trace_uid": "local:t1", "source_system": "local", "trace_id": "t1",
              "sample_question": "What is 2+2?", "epoch": 1}
    b = Skillbook()
    a = b.add_skill("context", "Agents answer before reading the whole question",
                    keywords=["Reading", "question parsing"],
                    insight="Read the whole question before answering.",
                    insight_source=source)
    h = b.add_skill("harness", "The test runner needs PYTHONPATH set",
                    keywords=["tests"])
    legacy = b.add_skill("Reasoning Patterns", "Check the premise before deducing.")
    b.tag_skill(a.id, 1)
    b.tag_skill(a.id, 1)
    b.tag_skill(a.id, -1)
    b.tag_skill(h.id, 0)
    b.mark_used([a.id, h.id])
    b.update_skill(a.id, insight="Read the whole question — twice — before answering.")
    b.remove_skill(legacy.id)
    gone = b.add_skill("harness", "A skill removed for good", keywords=["x"])
    b.remove_skill(gone.id, soft=False)
    b.save_to_file(str(out / "made.json"))
    empty = Skillbook()
    empty.save_to_file(str(out / "empty.json"))
    many = Skillbook()
    for i in range(40):
        s = many.add_skill("context" if i % 3 else "harness", f"Issue number {i} ü",
                           keywords=[f"k{i % 5}", "Shared Word"],
                           insight=None if i % 3 == 0 else f"Insight {i}")
        for _ in range(i % 4):
            many.tag_skill(s.id, 1 if i % 2 else -1)
        if i % 7 == 0:
            many.remove_skill(s.id)
    many.save_to_file(str(out / "many.json"))


def export(root, version, book, out):
    """kayba's markdown export step, loaded by path with its context module
    stubbed: the step only names the context type."""
    base = Path(root) / version
    steps_dir = base / "ace" / "steps"
    if not steps_dir.exists():
        steps_dir = base / "ace_next" / "steps"
    pkg_name = steps_dir.parent.name
    if pkg_name not in sys.modules:
        pkg = types.ModuleType(pkg_name)
        pkg.__path__ = [str(steps_dir.parent)]
        sys.modules[pkg_name] = pkg
    for name in [f"{pkg_name}.core", f"{pkg_name}.steps"]:
        if name not in sys.modules:
            m = types.ModuleType(name)
            m.__path__ = [str(steps_dir.parent / name.rsplit(".", 1)[1])]
            sys.modules[name] = m
    context = types.ModuleType(f"{pkg_name}.core.context")
    context.ACEStepContext = object
    sys.modules[f"{pkg_name}.core.context"] = context
    if f"{pkg_name}.core.skillbook" not in sys.modules:
        sys.modules[f"{pkg_name}.core.skillbook"] = types.SimpleNamespace(Skillbook=object)
    spec = importlib.util.spec_from_file_location(
        f"{pkg_name}.steps.export_markdown", steps_dir / "export_markdown.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    mod.ExportSkillbookMarkdownStep(out / "export.md", book)(None)
    if tuple(int(x) for x in version.split(".")) >= (0, 12):
        (out / "prompt.md").write_text(book.as_prompt())


def generate(Skillbook, n, out):
    import random
    rng = random.Random(7)
    syllables = ["ka", "to", "ri", "men", "sel", "dar", "po", "lin",
                 "ver", "qua", "zo", "bex", "tri", "nal", "os", "eph"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
             for _ in range(20000)]
    weights = [1.0 / (r + 1) for r in range(len(words))]

    def sentence(k):
        return " ".join(rng.choices(words, weights=weights, k=k)).capitalize() + "."

    book = Skillbook()
    for i in range(n):
        s = book.add_skill("context" if i % 3 else "harness", sentence(12),
                           keywords=[rng.choice(words), rng.choice(words)],
                           insight=None if i % 3 == 0 else sentence(14))
        for _ in range(i % 3):
            book.tag_skill(s.id, 1)
    book.save_to_file(out)


def make08(Skillbook, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    b = Skillbook()
    a = b.add_skill("Web Patterns", "Use shadowRoot for hidden elements",
                    metadata={"helpful": 2}, justification="Seen twice",
                    evidence="trace 12")
    c = b.add_skill("errors", "Retry a 503 once", insight_source={"trace_id": "t1"})
    b.add_skill("errors", "Log the request ID")
    b.tag_skill(a.id, "harmful", 1)
    b.tag_skill(c.id, "neutral", 2)
    gone = b.add_skill("errors", "Removed for good")
    b.remove_skill(gone.id)
    b.save_to_file(str(out / "made08.json"))


def main(argv):
    root, version, command = argv[1], argv[2], argv[3]
    Skillbook, UpdateBatch = load_modules(root, version)
    if command == "load":
        print(json.dumps(summary(Skillbook.load_from_file(argv[4])), sort_keys=True))
    elif command == "read":
        Skillbook.load_from_file(argv[4])
    elif command == "generate":
        generate(Skillbook, int(argv[4]), argv[5])
    elif command == "export":
        export(root, version, Skillbook.load_from_file(argv[4]), argv[5])
    elif command == "dump":
        data = Skillbook.load_from_file(argv[4]).to_dict()
        for skill in data.get("skills", {}).values():
            skill.pop("created_at", None)
            skill.pop("updated_at", None)
        print(json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1))
    elif command == "resave":
        Skillbook.load_from_file(argv[4]).save_to_file(argv[5])
    elif command == "apply":
        book = Skillbook.load_from_file(argv[4])
        try:
            batch = UpdateBatch.from_json(json.loads(Path(argv[5]).read_text()))
            book.apply_update(batch)
        except (ValueError, KeyError, TypeError) as e:
            print(f"{type(e).__name__}: {e}", file=sys.stderr)
            return 3
        book.save_to_file(argv[6])
    elif command == "make" and version.startswith("0.8"):
        make08(Skillbook, argv[4])
    elif command == "make":
        make(Skillbook, argv[4])
    else:
        print(f"unknown command {command}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
