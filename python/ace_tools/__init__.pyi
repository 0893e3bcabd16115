from typing import Any, Dict, Iterable, List, Optional, Tuple

__all__ = [
    "AceError",
    "FORMATS",
    "LossWarning",
    "apply",
    "convert",
    "read",
    "validate",
    "write",
]

__version__: str
FORMATS: Tuple[str, ...]

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
def read(
    text: str, *, format: Optional[str] = ..., filename: Optional[str] = ...
) -> Dict[str, Any]: ...
def write(model: Dict[str, Any], *, to: str) -> str: ...
def validate(
    text: str,
    *,
    format: Optional[str] = ...,
    filename: Optional[str] = ...,
    config: Optional[str] = ...,
) -> List[Dict[str, Any]]: ...
def apply(
    playbook_text: str,
    deltas: Iterable[str],
    *,
    format: Optional[str] = ...,
    now: Optional[str] = ...,
) -> Tuple[str, Dict[str, Any]]: ...
