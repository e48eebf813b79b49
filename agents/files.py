"""Model files of the agents: which file a spec names, and the checks before reading it.

One rule for every model kind (``ppo:``, ``improved:``, ``net:``): a spec with a
path separator or a file suffix (``./official-2p.pt``, ``runs/x/policy.safetensors``,
``model.zip``) is a path; a bare stem (``official-2p``) is a model shipped in
``agents/models/``, so a file or folder of that name in the working directory never
shadows it. Shipped stems have no dot.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import zipfile
from pathlib import Path, PurePath
from typing import Any, TypeGuard

#: Where the shipped models live.
MODELS_DIR = Path(__file__).parent / "models"

#: The built-in heuristics a model file may name as its base (or its prior), with or
#: without parameters (``greedy:challenge_threshold=4``): agents without a model file
#: of their own, so reading one model never loads another.
BUILTIN_HEURISTICS = ("greedy", "tuned", "defender", "random_play", "random")


def is_path_spec(spec: str) -> bool:
    """Whether ``spec`` names a file (it has a path separator or a suffix) rather than
    a shipped model's stem."""
    return "/" in spec or "\\" in spec or bool(PurePath(spec).suffix)


def shipped_stems(suffix: str) -> list[str]:
    """The stems of the shipped models whose files end in ``suffix``."""
    names = (p.name[: -len(suffix)] for p in MODELS_DIR.glob(f"*{suffix}"))
    return sorted(name for name in names if name and "." not in name)


def resolve_model(spec: str, suffix: str, kind: str, prefix: str) -> Path:
    """The file of ``<prefix>:<spec>``: ``spec`` itself when it is a path
    (:func:`is_path_spec`), else the shipped ``MODELS_DIR/<spec><suffix>``. Raises
    ``ValueError`` for a stem that names no shipped model, listing those of ``kind``."""
    if is_path_spec(spec):
        return Path(spec)
    shipped = MODELS_DIR / f"{spec}{suffix}"
    if spec and shipped.is_file():
        return shipped
    names = ", ".join(shipped_stems(suffix)) or "none"
    if not spec:
        raise ValueError(f"agent '{prefix}:' names no {kind}: give a shipped one ({names}) "
                         f"or a path, e.g. {prefix}:./model{suffix}")
    raise ValueError(f"agent '{prefix}:{spec}': no shipped {kind} {spec!r} (shipped: {names}); "
                     f"a file needs a path, e.g. {prefix}:./{spec}{suffix}")


def check_file(path: str | Path, kind: str) -> Path:
    """``path`` as a ``Path`` if it is a file; else ``ValueError`` naming it and saying
    whether it is a folder or missing (``kind`` names the model, e.g. "ppo model")."""
    path = Path(path)
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise ValueError(f"{kind} file {str(path)!r} {what}")
    return path


def is_builtin(spec: object) -> TypeGuard[str]:
    """Whether ``spec`` is an agent spec of one of :data:`BUILTIN_HEURISTICS`."""
    return isinstance(spec, str) and spec.split(":", 1)[0] in BUILTIN_HEURISTICS


def check_builtin(name: object, role: str, path: str | Path) -> str:
    """``name`` if it is a spec of one of :data:`BUILTIN_HEURISTICS`; else ``ValueError``
    naming the model file and the ``role`` the name plays in it (a file must not load
    another)."""
    if not is_builtin(name):
        raise ValueError(f"model file {str(path)!r} names {role} {name!r}; a model's {role} "
                         f"may only be a built-in heuristic ({', '.join(BUILTIN_HEURISTICS)})")
    return name


# --- Size and shape limits, checked before any tensor or network is built -------------
#
# A model file is read only after these checks: its size, its JSON headers (length and
# nesting depth), the widths and layer count it declares, and the least number of
# parameters the declared network has against the numbers the file holds. A small file
# declaring a huge network, a zip entry inflating far beyond its file, or a header
# nested thousands deep is refused with a ``ValueError`` naming the file and the limit,
# before memory is spent on it.

#: Largest model file read, and largest total of a zip's inflated entries (bytes): far
#: above the shipped models (under 5 MB).
MAX_MODEL_BYTES = 256 * 2**20
#: Largest JSON header of a model file (bytes).
MAX_HEADER_BYTES = 2**20
#: Deepest nesting of a model file's JSON header.
MAX_JSON_DEPTH = 32
#: Widest layer a model file may declare.
MAX_WIDTH = 16_384
#: Most hidden layers a model file may declare.
MAX_LAYERS = 16
#: Most parameters a model file may declare.
MAX_PARAMETERS = 64 * 2**20

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_BRACKETS = re.compile(r"[\[\]{}]")


def check_limit(path: Path | str, kind: str, what: str, value: int, limit: int) -> None:
    """``ValueError`` naming the file, what exceeds the limit, and the limit."""
    if value > limit:
        raise ValueError(f"{kind} file {str(path)!r}: {what} {value:,} exceeds the "
                         f"limit of {limit:,}")


def check_file_size(path: Path, kind: str) -> int:
    """The size of ``path`` in bytes; ``ValueError`` naming it beyond
    :data:`MAX_MODEL_BYTES`."""
    size = path.stat().st_size
    check_limit(path, kind, "its size in bytes", size, MAX_MODEL_BYTES)
    return size


def json_depth(text: str) -> int:
    """The deepest nesting of objects and arrays in JSON ``text`` (strings skipped),
    counted without recursion so that any depth is measured safely."""
    depth = deepest = 0
    for bracket in _JSON_BRACKETS.findall(_JSON_STRING.sub('""', text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def parse_header(text: str | bytes, path: Path | str, kind: str, what: str = "header"
                 ) -> Any:
    """JSON ``text`` of a model file's header, checked against :data:`MAX_HEADER_BYTES`
    and :data:`MAX_JSON_DEPTH` first; ``ValueError`` naming the file otherwise."""
    check_limit(path, kind, f"its {what} length in bytes", len(text), MAX_HEADER_BYTES)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{kind} file {str(path)!r}: its {what} is not UTF-8 ({e})"
                             ) from None
    check_limit(path, kind, f"its {what} nesting depth", json_depth(text), MAX_JSON_DEPTH)
    try:
        return json.loads(text)
    except ValueError as e:
        raise ValueError(f"{kind} file {str(path)!r}: its {what} is not JSON ({e})") from None


def safetensors_header(path: Path, kind: str) -> tuple[dict[str, Any], int]:
    """``(metadata, numbers)`` of a safetensors file, read from its header alone after
    the checks of the module: its string metadata and how many numbers its tensors
    hold. ``ValueError`` naming the file for a file too large, a header too long or
    deep, or a header that is not a safetensors one."""
    size = check_file_size(path, kind)
    with path.open("rb") as f:
        prefix = f.read(8)
        if len(prefix) < 8:
            raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file "
                             f"({size} bytes)")
        length = int.from_bytes(prefix, "little")
        if 8 + length > size:
            raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file (its "
                             f"header runs past its end)")
        check_limit(path, kind, "its header length in bytes", length, MAX_HEADER_BYTES)
        header = parse_header(f.read(length), path, kind)
    if not isinstance(header, dict):
        raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file (its "
                         f"header is not a JSON object)")
    metadata = header.pop("__metadata__", None) or {}
    numbers = 0
    try:
        for entry in header.values():
            shape = [int(n) for n in entry["shape"]]
            numbers += math.prod(shape) if all(n >= 0 for n in shape) else 0
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file (a "
                         f"malformed tensor entry: {type(e).__name__}: {e})") from None
    if not isinstance(metadata, dict):
        raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file (its "
                         f"metadata is not a JSON object)")
    return metadata, numbers


def read_tensors(path: Path, kind: str) -> dict[str, Any]:
    """The tensors of a safetensors file, on the CPU, read after
    :func:`safetensors_header`'s checks; ``ValueError`` naming the file if they cannot
    be read."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt") as f:
            return {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (not a dict)
    except (SafetensorError, OSError, ValueError) as e:
        raise ValueError(f"{kind} file {str(path)!r} is not a safetensors file ({e})"
                         ) from None


def check_widths(widths: Any, path: Path | str, kind: str, what: str = "hidden") -> list[int]:
    """``widths`` as positive ints, at most :data:`MAX_LAYERS` of them, each at most
    :data:`MAX_WIDTH`; ``ValueError`` naming the file and the limit otherwise."""
    if not isinstance(widths, (list, tuple)) or not all(type(w) is int for w in widths):
        raise ValueError(f"{kind} file {str(path)!r}: {what} must be a list of layer "
                         f"widths, got {str(widths)[:80]}")
    check_limit(path, kind, f"its {what} layer count", len(widths), MAX_LAYERS)
    for w in widths:
        if w < 1:
            raise ValueError(f"{kind} file {str(path)!r}: {what} must be positive layer "
                             f"widths, got {w}")
        check_limit(path, kind, f"its {what} layer width", w, MAX_WIDTH)
    return list(widths)


def check_parameters(chains: list[list[int]], numbers: int, path: Path | str,
                     kind: str) -> None:
    """Refuse a declared network before building it: ``chains`` are its layer widths
    end to end (each consecutive pair a weight matrix), whose sizes add up to the fewest
    parameters the network can have. ``ValueError`` naming the file when that exceeds
    :data:`MAX_PARAMETERS` or the ``numbers`` its tensors hold."""
    least = sum(a * b for chain in chains for a, b in itertools.pairwise(chain))
    check_limit(path, kind, "the parameters of the network it declares", least, MAX_PARAMETERS)
    if least > numbers:
        raise ValueError(f"{kind} file {str(path)!r}: its tensors do not fit a network of "
                         f"the shape it declares (at least {least:,} parameters; its "
                         f"tensors hold {numbers:,} numbers)")


def check_zip(path: Path, kind: str) -> None:
    """Refuse a zip (an SB3 model, a torch file) whose entries would inflate beyond
    :data:`MAX_MODEL_BYTES`, from the sizes its directory declares (a reader never
    inflates an entry beyond its declared size), before anything is inflated."""
    check_file_size(path, kind)
    try:
        with zipfile.ZipFile(path) as z:
            inflated = sum(info.file_size for info in z.infolist())
    except zipfile.BadZipFile:
        return   # not a zip: its reader says what it is
    check_limit(path, kind, "its inflated size in bytes", inflated, MAX_MODEL_BYTES)
