"""Model files of the agents: which file a spec names, and the checks before reading it.

One rule for every model kind (``ppo:``, ``improved:``, ``net:``): a spec with a
path separator or a file suffix (``./official-2p.pt``, ``runs/x/policy.safetensors``,
``model.zip``) is a path; a bare stem (``official-2p``) is a model shipped in
``agents/models/``, so a file or folder of that name in the working directory never
shadows it. Shipped stems have no dot.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import TypeGuard

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
