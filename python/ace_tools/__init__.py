"""Read, convert, validate and apply ACE playbooks from Python.

The same crates as the ``ace-convert``, ``ace-validate`` and ``ace-apply``
command-line tools, which ``pip install ace-tools`` also puts on PATH. Every
function takes the text of a file and gives text or plain dicts, exactly
what the tools print. docs/python.md in the repository documents each one.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Dict, Iterable, List, Optional, Tuple

import _ace_tools as _native
from _ace_tools import AceError

__all__ = [
    "AceError",
    "DIALECTS",
    "FORMATS",
    "LossWarning",
    "apply",
    "convert",
    "count_tokens",
    "dedup",
    "find_config",
    "merge",
    "prune",
    "read",
    "render",
    "validate",
    "view",
    "write",
]

__version__: str = _native.__version__

#: The format names ``to=``, ``from_format=`` and ``format=`` take.
FORMATS: Tuple[str, ...] = tuple(_native.formats())

#: The delta dialect names ``delta_format=`` takes.
DIALECTS: Tuple[str, ...] = tuple(_native.dialects())


class LossWarning(UserWarning):
    """Something the target format cannot hold, dropped or changed by a
    conversion; ace-convert prints the same line as a warning."""


def _warn(losses: List[str]) -> None:
    # ace-convert also prints `info` lines, for values it derived (a vAgenda
    # kind from the section): nothing was lost, so no warning is raised.
    for line in losses:
        if not line.startswith("info["):
            warnings.warn(line, LossWarning, stacklevel=3)


def convert(
    text: str,
    *,
    to: str,
    from_format: Optional[str] = None,
    filename: Optional[str] = None,
) -> str:
    """``text`` converted to the format ``to``, as ``ace-convert --to`` writes it.

    The source format is ``from_format``, else what ``filename`` and the
    content show. What ``to`` cannot hold is a :class:`LossWarning`.
    Raises :class:`AceError` when the text does not read as a playbook.
    """
    out, losses = _native.convert(text, to, from_format, filename)
    _warn(losses)
    return out


def read(
    text: Optional[str] = None,
    *,
    format: Optional[str] = None,
    filename: Optional[str] = None,
    location: Optional[str] = None,
) -> Dict[str, Any]:
    """The playbook in ``text`` as the canonical model, the dict
    ``ace-convert --to json`` writes; or, with ``location`` instead of a
    text, the playbook in a database (``"sqlite:PATH#project=NAME"``, a
    ``postgresql://`` URL: docs/stores.md). A row that does not read is an
    :class:`AceError` naming its table, key and column."""
    if location is not None:
        if text is not None:
            raise TypeError("read() takes a text or location=, not both")
        return json.loads(_native.read_location(location))
    if text is None:
        raise TypeError("read() needs a text or location=")
    return json.loads(_native.read_json(text, format, filename))


def write(
    model: Dict[str, Any],
    *,
    to: Optional[str] = None,
    location: Optional[str] = None,
    now: Optional[str] = None,
    strict: bool = False,
) -> Optional[str]:
    """The canonical model ``model`` (as :func:`read` gives it) written as
    ``to``, returned as text; or written into the database at ``location``
    (one transaction; the schema is made in a database without tables),
    returning ``None``. What the target cannot hold is a
    :class:`LossWarning`, an :class:`AceError` with ``strict``. ``now``
    (RFC 3339) stamps new rows, else ``SOURCE_DATE_EPOCH``, else the clock."""
    if location is not None:
        if to is not None:
            raise TypeError("write() takes to= or location=, not both")
        _warn(_native.write_location(json.dumps(model), location, now, strict))
        return None
    if to is None:
        raise TypeError("write() needs to= or location=")
    out, losses = _native.write(json.dumps(model), to)
    _warn(losses)
    return out


def validate(
    text: str,
    *,
    format: Optional[str] = None,
    filename: Optional[str] = None,
    config: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """The findings of ``ace-validate`` on ``text``, each a dict with the
    fields of ``--output-format json`` (``code``, ``severity``, ``line``,
    ...). ``config`` is the path of an ``ace.toml``; without it none is
    looked for."""
    return json.loads(_native.validate(text, format, filename, config))


def find_config(start: str = ".") -> Optional[str]:
    """The nearest ``ace.toml`` in ``start`` or a folder above it, as the
    command-line tools look for it; ``None`` when there is none. Pass it as
    ``config=`` to :func:`apply` or :func:`validate`, which never look for
    one on their own."""
    found = _native.find_config(start)
    return None if found is None else str(found)


def apply(
    playbook_text: Optional[str] = None,
    deltas: Iterable[str] = (),
    *,
    location: Optional[str] = None,
    lock_timeout: float = 60.0,
    format: Optional[str] = None,
    now: Optional[str] = None,
    filename: Optional[str] = None,
    companion: Optional[str] = None,
    config: Optional[str] = None,
    min_confidence: Optional[float] = None,
    min_evidence: Optional[int] = None,
    delta_format: Optional[str] = None,
    compat: Optional[str] = None,
    append_only: bool = False,
    prune: bool = False,
    write_scope: Optional[Iterable[str]] = None,
    strict: bool = False,
) -> Any:
    """``deltas`` (texts of any delta dialect) applied to the playbook, as
    ``ace-apply`` applies them: the new text, and the curator's report
    ``{"accepted": [...], "rejected": [{"id", "reason", "message"}]}``
    (and ``"passed_over": [{"id", "operation", "target"}]`` when an
    operation named an entry the playbook lacks and its dialect passes it
    over); with ``companion`` (an AGENTS.md's ``playbook.yaml`` text), the new
    companion text as a third item.

    Each delta is applied whole or refused; ``now`` (RFC 3339) is the time
    stamped on what changes, else ``SOURCE_DATE_EPOCH``, else the clock.
    ``config`` is an ``ace.toml`` whose thresholds and write scope apply
    (none is looked for: see :func:`find_config`); ``min_confidence`` and
    ``min_evidence`` override its thresholds, ``write_scope`` its globs,
    which ``filename`` must fall within. ``delta_format``, ``compat``,
    ``append_only``, ``prune`` and ``strict`` are ace-apply's options of
    the same names; ``strict`` raises :class:`AceError` if any delta is
    refused.

    With ``location`` instead of a text, the deltas are applied to the
    playbook in that database as ``ace-apply LOCATION --in-place`` applies
    them: in one transaction, waiting up to ``lock_timeout`` seconds for
    another writer, each delta's ID recorded so that it is applied once;
    only the report is returned."""
    if location is not None:
        if playbook_text is not None:
            raise TypeError("apply() takes a playbook text or location=, not both")
        if companion is not None or prune or write_scope is not None:
            raise TypeError("apply(location=) takes no companion, prune or write_scope")
        return json.loads(
            _native.apply_location(
                location,
                list(deltas),
                now=now,
                config=config,
                min_confidence=min_confidence,
                min_evidence=min_evidence,
                delta_format=delta_format,
                compat=compat,
                append_only=append_only,
                strict=strict,
                lock_timeout=lock_timeout,
            )
        )
    if playbook_text is None:
        raise TypeError("apply() needs a playbook text or location=")
    out, new_companion, report = _native.apply(
        playbook_text,
        list(deltas),
        format=format,
        now=now,
        filename=filename,
        companion=companion,
        config=config,
        min_confidence=min_confidence,
        min_evidence=min_evidence,
        delta_format=delta_format,
        compat=compat,
        append_only=append_only,
        prune=prune,
        write_scope=None if write_scope is None else list(write_scope),
        strict=strict,
    )
    if companion is None:
        return out, json.loads(report)
    return out, json.loads(report), new_companion


def count_tokens(
    text: str,
    *,
    format: Optional[str] = None,
    encoding: Optional[str] = None,
    filename: Optional[str] = None,
) -> Dict[str, Any]:
    """How many tokens ``text`` is, exactly, as ``ace-validate --tokens
    --output-format json`` counts a file: ``{"encoding", "tokens",
    "sections": [{"key", "title", "entries", "tokens"}]}``. ``tokens`` is
    the whole text as written; a section's are its entries' titles and
    contents. ``encoding`` is ``"cl100k_base"`` (the default, the ACE
    paper's), ``"o200k_base"`` or ``"chars4"``; ``sections`` is empty when
    the text does not read as a playbook of ``format`` (detected from
    ``filename`` and the text if not given)."""
    return json.loads(_native.count_tokens(text, format, encoding, filename))


def render(
    text: str,
    *,
    style: str = "prompt",
    format: Optional[str] = None,
    filename: Optional[str] = None,
    max_tokens: Optional[int] = None,
    encoding: Optional[str] = None,
) -> str:
    """The managed block ``ace-convert PLAYBOOK --into FILE`` writes for the
    playbook ``text``: the text that goes between ``<!-- ACE:START - Do not
    edit manually -->`` and ``<!-- ACE:END -->``. ``style`` is ``"prompt"``
    (the paper's ``[id] helpful=N harmful=M :: text`` form), ``"agents"``
    (AGENTS.md bullets), ``"kayba"`` (kayba's ``as_prompt()`` form) or
    ``"content"`` (the entries' text alone). Entries whose status is not
    active are left out. With ``max_tokens``, the best entries that fit
    (counted exactly in ``encoding``, ``"cl100k_base"`` by default); an
    :class:`AceError` when not even the headings fit."""
    return _native.render(text, style, format, filename, max_tokens, encoding)


def view(
    text: str,
    *,
    format: Optional[str] = None,
    filename: Optional[str] = None,
    encoding: Optional[str] = None,
    config: Optional[str] = None,
) -> str:
    """``ace-view``'s page of the playbook ``text``: one self-contained HTML
    document (inline CSS and SVG, no reference outside it) with its tokens
    per section, each entry's counters, findings and whether ``ace-apply
    --prune`` would remove it, and its near-duplicates. ``config`` is an
    ``ace.toml`` whose thresholds and ``[budget]`` apply; without one, none
    is looked for."""
    return _native.view(text, format, filename, encoding, config)


def _curate(
    text: str,
    *,
    format: Optional[str],
    now: Optional[str],
    filename: Optional[str],
    companion: Optional[str],
    config: Optional[str],
    prune: bool,
    **curate: Any,
) -> Any:
    out, new_companion, report = _native.apply(
        text,
        [],
        format=format,
        now=now,
        filename=filename,
        companion=companion,
        config=config,
        prune=prune,
        **curate,
    )
    if companion is None:
        return out, json.loads(report)
    return out, json.loads(report), new_companion


def prune(
    playbook_text: str,
    *,
    max_tokens: Optional[int] = None,
    max_entries: Optional[int] = None,
    encoding: Optional[str] = None,
    threshold: Optional[int] = None,
    deprecate: bool = False,
    format: Optional[str] = None,
    now: Optional[str] = None,
    filename: Optional[str] = None,
    companion: Optional[str] = None,
    config: Optional[str] = None,
) -> Any:
    """The playbook pruned to its budget, as ``ace-apply PLAYBOOK --prune``
    prunes it: the new text (the kept entries' bytes as they were) and the
    report ``{"accepted": [], "rejected": [], "pruned": [{"id", "section",
    "reason", "message", "action"}], "budget": {"encoding", "before",
    "after"}}``; with ``companion``, the new companion text third.

    Entries already deprecated and those with harmful > helpful +
    ``threshold`` (3) go first, then the lowest-scoring while over
    ``max_tokens`` or ``max_entries`` (or ``config``'s ``[budget]``).
    ``deprecate`` marks them deprecated instead, where the format has a
    status. The order is in docs/budget.md."""
    return _curate(
        playbook_text,
        format=format,
        now=now,
        filename=filename,
        companion=companion,
        config=config,
        prune=True,
        max_tokens=max_tokens,
        max_entries=max_entries,
        encoding=encoding,
        threshold=threshold,
        deprecate=deprecate,
    )


def dedup(
    playbook_text: str,
    *,
    similarity: Optional[float] = None,
    across_sections: bool = False,
    deprecate: bool = False,
    format: Optional[str] = None,
    now: Optional[str] = None,
    filename: Optional[str] = None,
    companion: Optional[str] = None,
    config: Optional[str] = None,
) -> Any:
    """The playbook with each cluster of near-duplicate entries merged into
    one, as ``ace-apply PLAYBOOK --dedup`` merges them: the new text and
    the report ``{"accepted": [], "rejected": [], "merged": [{"keep",
    "merged", "section", "similarity", "helpful", "harmful"}]}``; with
    ``companion``, the new companion text third.

    Entries are alike when their words' similarity is above
    ``similarity`` (0.8, ACE061's), within a section unless
    ``across_sections``; the best-scored is kept with the others' counters
    added. ``deprecate`` archives the others instead of removing them,
    where the format has a status."""
    return _curate(
        playbook_text,
        format=format,
        now=now,
        filename=filename,
        companion=companion,
        config=config,
        prune=False,
        dedup=True,
        similarity=similarity,
        across_sections=across_sections,
        deprecate=deprecate,
    )


def merge(
    base: str,
    runs: Iterable[str],
    *,
    format: Optional[str] = None,
    now: Optional[str] = None,
    filename: Optional[str] = None,
    allow_empty: bool = False,
) -> Tuple[str, Dict[str, Any]]:
    """``runs`` (texts of playbooks that each started from the playbook
    ``base``) merged into one, as ``ace-merge --base BASE RUN...`` merges
    them: the merged text, written over ``base``'s layout, and the report
    ``{"conflicts": [...], "renumbered": [...], "refused": [...]}``.

    Counters end as BASE plus every run's change; every new entry is kept
    once, a lesson two runs added being one entry with its counters added;
    a new entry whose ID an earlier run gave another takes the next free ID
    (``renumbered``: ``{"run", "old", "new"}``, with ``"joined": true``
    for one an earlier run added). Two runs changing one field differently
    is a conflict (``{"entry", "field", "run", "value", "kept_run",
    "kept", "line"}``): the earlier run's value is kept. Runs are named
    ``#1``, ``#2``... in order. ``format`` is detected from ``base`` (and
    ``filename``) when not given; ``now`` (RFC 3339) is the time stamped on
    what the merge changes, else ``SOURCE_DATE_EPOCH``, else the runs'
    latest time. A run of another format, one that does not read, or
    (unless ``allow_empty``) one that holds none of ``base``'s entries is
    refused with ``AceError``: merged, an empty run would remove every
    entry."""
    text, report = _native.merge(base, list(runs), format, now, filename, allow_empty)
    return text, json.loads(report)
