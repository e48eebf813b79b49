"""The optional extras, the modules each brings, and a one-line refusal for a script
run without the one it needs.

A script calls :func:`require` before importing anything of an extra, so that running
it (``--help`` included) without that extra ends in one line naming the extra and the
command that installs it, never in a traceback.
"""

from __future__ import annotations

import importlib.util

#: The top-level modules each extra provides (the ones the scripts import).
EXTRAS: dict[str, tuple[str, ...]] = {
    "cli": ("rich", "tqdm"),
    "fast": ("numba",),
    "render": ("PIL",),
    "eval": ("openskill", "matplotlib"),
    "train": ("torch", "safetensors", "stable_baselines3", "sb3_contrib", "tqdm"),
    "rllib": ("ray",),
    "bench": ("rlcard",),
}

#: How to install an extra from a clone, with torch kept to the CPU build
#: (``constraints.txt``; see the README).
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def install_command(extra: str) -> str:
    """The command installing ``extra`` into the current environment from a clone."""
    torch = " --extra-index-url " + CPU_INDEX if extra in ("train", "rllib") else ""
    return f'pip install{torch} -c constraints.txt -e ".[{extra}]"'


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` this environment lacks (none when it is installed)."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; extras: {', '.join(EXTRAS)}")
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def require(script: str, *extras: str) -> None:
    """Stop with one line (``SystemExit``, exit status 1) naming the first of ``extras``
    this environment lacks, the module missing and how to install it."""
    for extra in extras:
        lacking = missing(extra)
        if lacking:
            raise SystemExit(f"{script} needs the {extra} extra (no module {lacking[0]!r}): "
                             f"{install_command(extra)}")


__all__ = ["EXTRAS", "install_command", "missing", "require"]
