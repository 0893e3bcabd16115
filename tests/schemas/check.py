"""Checks conversion outputs with check-jsonschema, an independent validator.

tests/diff_dialects.rs saves the deltas ace-diff writes of its fixtures
under OUT/acepatch, OUT/skill-delta and OUT/acedelta; they are checked
against the PlaybookPatch of the vAgenda ACE extension, the skill's
delta.schema.json and an array of ace-tools' transcription of ace_beads'
AceDelta.

tests/migration.rs saves every corpus playbook converted to skill-json, to
vAgenda JSON and to DannyMac180/ACE's dump under OUT/skill-json,
OUT/vagenda-json and OUT/dannymac; the dumps, and the deltas in
DannyMac180's operations (OUT/dannymac-ops), are checked against the
schemas ace-tools wrote from that project's code (schemas/dannymac). Every
such schema is named after the format or dialect it checks, and found by
that name: its outputs are required. Skill playbooks
are checked against the skill's bullet.schema.json (each bullet, through a
wrapper); vAgenda documents against the bundled schemas of the version they
declare: vAgenda 0.2 core plus the ACE extension's Playbook at
plan/todoList.playbook (or, for a 0.2 playbook of events, the
Playbooks extension's 0.2 Playbook), vAgenda 0.3 core (which brings the Playbooks
extension), vContext 0.4 core (likewise).

tests/tron_js.rs saves there too the official TRON parser's reading of our
braced TRON of every corpus vAgenda document whose source passes its schema
(`official-tron__*.json`): what another tool gets from our TRON must pass
the ACE schema as our JSON does.

The bundled schemas name each other by `$id` URLs on vagenda.dev and
vcontext.dev; copies without `$id` let their relative `$ref`s resolve to the
files beside them, so nothing is fetched.

Usage: python3 tests/schemas/check.py OUT CHECK_JSONSCHEMA
"""

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"


def copy(src: pathlib.Path, dest: pathlib.Path) -> None:
    schema = json.loads(src.read_text(encoding="utf-8"))
    schema.pop("$id", None)
    dest.write_text(json.dumps(schema), encoding="utf-8")


def prepare(tmp: pathlib.Path) -> dict:
    """The schema each kind of output is checked against."""
    skill = tmp / "skill"
    skill.mkdir()
    copy(SCHEMAS / "skill" / "bullet.schema.json", skill / "bullet.schema.json")
    (skill / "playbook.schema.json").write_text(json.dumps({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "required": ["bullets"],
        "properties": {"bullets": {"type": "array", "items": {"$ref": "bullet.schema.json"}}},
    }))
    v02 = tmp / "v0.2"
    v02.mkdir()
    copy(SCHEMAS / "vagenda" / "vagenda-core.v0.2.schema.json", v02 / "vagenda-core.schema.json")
    copy(SCHEMAS / "vagenda" / "vagenda-extension-ace.schema.json", v02 / "vagenda-extension-ace.schema.json")
    playbook = {"$ref": "vagenda-extension-ace.schema.json#/$defs/Playbook"}
    (v02 / "document.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "allOf": [
            {"$ref": "vagenda-core.schema.json"},
            {"properties": {
                "plan": {"properties": {"playbook": playbook}},
                "todoList": {"properties": {"playbook": playbook}},
            }},
        ],
    }))
    v02e = tmp / "v0.2-events"
    v02e.mkdir()
    copy(SCHEMAS / "vagenda" / "vagenda-core.v0.2.schema.json", v02e / "vagenda-core.schema.json")
    copy(SCHEMAS / "vagenda" / "vagenda-extension-playbooks.v0.2.schema.json",
         v02e / "vagenda-extension-playbooks.schema.json")
    events = {"$ref": "vagenda-extension-playbooks.schema.json#/$defs/Playbook"}
    (v02e / "document.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "allOf": [
            {"$ref": "vagenda-core.schema.json"},
            {"properties": {
                "plan": {"properties": {"playbook": events}},
                "todoList": {"properties": {"playbook": events}},
            }},
        ],
    }))
    v03 = tmp / "v0.3"
    v03.mkdir()
    copy(SCHEMAS / "vagenda" / "vagenda-core.v0.3.schema.json", v03 / "vagenda-core.schema.json")
    copy(SCHEMAS / "vagenda" / "vagenda-extension-playbooks.v0.3.schema.json",
         v03 / "vagenda-extension-playbooks.schema.json")
    v04 = tmp / "v0.4"
    v04.mkdir()
    copy(SCHEMAS / "vagenda" / "vcontext-core.schema.json", v04 / "vcontext-core.schema.json")
    copy(SCHEMAS / "vagenda" / "vcontext-extension-playbooks.schema.json",
         v04 / "vcontext-extension-playbooks.schema.json")
    copy(SCHEMAS / "skill" / "delta.schema.json", skill / "delta.schema.json")
    copy(SCHEMAS / "vagenda" / "vagenda-extension-ace.schema.json", v02 / "vagenda-extension-ace.schema.json")
    (v02 / "patch.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "vagenda-extension-ace.schema.json#/$defs/PlaybookPatch",
    }))
    curator = tmp / "curator"
    curator.mkdir()
    ace_delta = json.loads((SCHEMAS / "curator" / "ace-delta.schema.json").read_text(encoding="utf-8"))
    ace_delta.pop("$id", None)
    (curator / "ace-deltas.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": ace_delta,
    }))
    return {
        "acepatch": v02 / "patch.schema.json",
        "skill-delta": skill / "delta.schema.json",
        "acedelta": curator / "ace-deltas.schema.json",
        "skill": skill / "playbook.schema.json",
        "0.2": v02 / "document.schema.json",
        "0.2 event log": v02e / "document.schema.json",
        "0.3": v03 / "vagenda-core.schema.json",
        "0.4": v04 / "vcontext-core.schema.json",
    }


def own_schemas(tmp: pathlib.Path) -> dict:
    """The schemas ace-tools writes from a project's code (schemas/README.md),
    each named after the format or dialect whose outputs it checks
    (`schemas/dannymac/dannymac-ops.schema.json`), all in one folder so that
    one may refer to another of its project by file name."""
    own = tmp / "own"
    own.mkdir()
    found = {}
    for f in sorted(SCHEMAS.glob("*/*.schema.json")):
        # The published schemas, and ace_beads' transcribed ones, are
        # applied by prepare() as their projects compose them.
        if f.parent.name in ("skill", "vagenda", "curator"):
            continue
        copy(f, own / f.name)
        found[f.name[: -len(".schema.json")]] = own / f.name
    return found


def version_of(path: pathlib.Path) -> str:
    """The declared version; for 0.2, which of its two playbook extensions
    the entries follow (the Playbooks extension's are events)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    info = doc.get("vAgendaInfo") or doc.get("vContextInfo") or {}
    version = str(info.get("version"))
    container = doc.get("plan") or doc.get("todoList") or {}
    entries = (container.get("playbook") or {}).get("entries") or []
    if version == "0.2" and any(isinstance(e, dict) and "eventId" in e for e in entries):
        return "0.2 event log"
    return version


def main() -> int:
    out, tool = pathlib.Path(sys.argv[1]), sys.argv[2]
    groups: dict = {}
    for f in sorted((out / "skill-json").glob("*.json")):
        groups.setdefault("skill", []).append(f)
    for f in sorted((out / "vagenda-json").glob("*.json")):
        groups.setdefault(version_of(f), []).append(f)
    # tests/diff_dialects.rs saves the deltas ace-diff writes of fixtures.
    for dialect in ("acepatch", "skill-delta", "acedelta"):
        for f in sorted((out / dialect).glob("*.json")):
            groups.setdefault(dialect, []).append(f)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        schemas = prepare(pathlib.Path(tmp))
        # Every format and dialect with a schema of ours has outputs: the
        # tests save each JSON format's conversions and each dialect's deltas
        # under its name.
        own = own_schemas(pathlib.Path(tmp))
        schemas.update(own)
        for name in own:
            groups[name] = sorted((out / name).glob("*.json"))
        required = ("skill", "0.2", "acepatch", "skill-delta", "acedelta", *own)
        if not all(groups.get(k) for k in required):
            print(f"check.py: no outputs under {out} for {[k for k in required if not groups.get(k)]}",
                  file=sys.stderr)
            return 1
        for kind, files in sorted(groups.items()):
            if kind not in schemas:
                print(f"check.py: vAgenda version {kind} has no bundled schema: {files}", file=sys.stderr)
                failed = True
                continue
            print(f"check-jsonschema: {len(files)} {kind} outputs")
            run = subprocess.run([tool, "--schemafile", str(schemas[kind]), *map(str, files)])
            failed |= run.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
