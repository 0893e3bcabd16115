from typing import Any, Dict, Iterable, List, Optional, Tuple, overload

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

__version__: str
FORMATS: Tuple[str, ...]
DIALECTS: Tuple[str, ...]

class AceError(ValueError):
    """Input that cannot be read, converted or applied."""

    findings: List[Dict[str, Any]]

class LossWarning(UserWarning): ...

def convert(
    text: str,
    *,
    to: str,
    from_format: Optional[str] = ...,
    filename: Optional[str] = ...,
) -> str: ...
@overload
def read(
    text: str,
    *,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    location: None = ...,
) -> Dict[str, Any]: ...
@overload
def read(
    text: None = ...,
    *,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    location: str,
) -> Dict[str, Any]: ...
@overload
def write(
    model: Dict[str, Any],
    *,
    to: str,
    location: None = ...,
    now: Optional[str] = ...,
    strict: bool = ...,
) -> str: ...
@overload
def write(
    model: Dict[str, Any],
    *,
    to: None = ...,
    location: str,
    now: Optional[str] = ...,
    strict: bool = ...,
) -> None: ...
def validate(
    text: str,
    *,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    config: Optional[str] = ...,
) -> List[Dict[str, Any]]: ...
def find_config(start: str = ...) -> Optional[str]: ...
@overload
def apply(
    playbook_text: None = ...,
    deltas: Iterable[str] = ...,
    *,
    location: str,
    lock_timeout: float = ...,
    format: None = ...,
    now: Optional[str] = ...,
    filename: None = ...,
    companion: None = ...,
    config: Optional[str] = ...,
    min_confidence: Optional[float] = ...,
    min_evidence: Optional[int] = ...,
    delta_format: Optional[str] = ...,
    compat: Optional[str] = ...,
    append_only: bool = ...,
    prune: bool = ...,
    write_scope: None = ...,
    strict: bool = ...,
) -> Dict[str, Any]: ...
@overload
def apply(
    playbook_text: str,
    deltas: Iterable[str],
    *,
    location: None = ...,
    lock_timeout: float = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: None = ...,
    config: Optional[str] = ...,
    min_confidence: Optional[float] = ...,
    min_evidence: Optional[int] = ...,
    delta_format: Optional[str] = ...,
    compat: Optional[str] = ...,
    append_only: bool = ...,
    prune: bool = ...,
    write_scope: Optional[Iterable[str]] = ...,
    strict: bool = ...,
) -> Tuple[str, Dict[str, Any]]: ...
@overload
def apply(
    playbook_text: str,
    deltas: Iterable[str],
    *,
    location: None = ...,
    lock_timeout: float = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: str,
    config: Optional[str] = ...,
    min_confidence: Optional[float] = ...,
    min_evidence: Optional[int] = ...,
    delta_format: Optional[str] = ...,
    compat: Optional[str] = ...,
    append_only: bool = ...,
    prune: bool = ...,
    write_scope: Optional[Iterable[str]] = ...,
    strict: bool = ...,
) -> Tuple[str, Dict[str, Any], str]: ...
def render(
    text: str,
    *,
    style: str = ...,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    max_tokens: Optional[int] = ...,
    encoding: Optional[str] = ...,
) -> str: ...
def view(
    text: str,
    *,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    encoding: Optional[str] = ...,
    config: Optional[str] = ...,
) -> str: ...
def count_tokens(
    text: str,
    *,
    format: Optional[str] = ...,
    encoding: Optional[str] = ...,
    filename: Optional[str] = ...,
) -> Dict[str, Any]: ...
@overload
def prune(
    playbook_text: str,
    *,
    max_tokens: Optional[int] = ...,
    max_entries: Optional[int] = ...,
    encoding: Optional[str] = ...,
    threshold: Optional[int] = ...,
    deprecate: bool = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: None = ...,
    config: Optional[str] = ...,
) -> Tuple[str, Dict[str, Any]]: ...
@overload
def prune(
    playbook_text: str,
    *,
    max_tokens: Optional[int] = ...,
    max_entries: Optional[int] = ...,
    encoding: Optional[str] = ...,
    threshold: Optional[int] = ...,
    deprecate: bool = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: str,
    config: Optional[str] = ...,
) -> Tuple[str, Dict[str, Any], str]: ...
@overload
def dedup(
    playbook_text: str,
    *,
    similarity: Optional[float] = ...,
    across_sections: bool = ...,
    deprecate: bool = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: None = ...,
    config: Optional[str] = ...,
) -> Tuple[str, Dict[str, Any]]: ...
@overload
def dedup(
    playbook_text: str,
    *,
    similarity: Optional[float] = ...,
    across_sections: bool = ...,
    deprecate: bool = ...,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    companion: str,
    config: Optional[str] = ...,
) -> Tuple[str, Dict[str, Any], str]: ...
def merge(
    base: str,
    runs: Iterable[str],
    *,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
    filename: Optional[str] = ...,
    allow_empty: bool = ...,
) -> Tuple[str, Dict[str, Any]]: ...
