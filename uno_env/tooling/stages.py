"""Stages of an experiment, reused only under the settings that made them.

An experiment that runs its steps as commands of their own (an exploiter's training,
an iteration's distillation, a clone and its fine-tuning) keeps each step's output in
a folder and reuses it when the experiment runs again, so a stopped experiment goes on
where it stopped. A folder reused under other settings would pass off one run's
result as another's. So each stage folder carries ``stage.json``: the command that
makes it (without its output folder and its progress and resume flags) and the
SHA-256 of every file it starts from. :func:`claim_stage` records it in a new folder
and, in a folder that has one, refuses other settings in one line naming the first
difference; a folder with work in it but no ``stage.json`` is refused too, as its
settings cannot be known. Nothing is deleted or overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..files import write_atomic

#: The file of a stage folder holding the settings that made it.
STAGE_FILE = "stage.json"
#: Flags that do not change what a stage makes (and the output folder, the stage itself).
_NEUTRAL = {"--no-progress": 0, "--progress": 0, "--resume": 0, "--out": 1}


def sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def stage_settings(command: Sequence[str], inputs: Sequence[str | Path] = ()) -> dict[str, Any]:
    """The settings of a stage made by ``command`` (``[python, script, *flags]``): the
    script's name and its flags without those that do not change the result, each file
    of ``inputs`` named in them replaced by its SHA-256 (its contents are what count)."""
    marks = {str(p): f"<sha256 {sha256(p)}>" for p in inputs}
    flags: list[str] = []
    skip = 0
    for arg in command[2:]:
        if skip:
            skip -= 1
            continue
        if arg in _NEUTRAL:
            skip = _NEUTRAL[arg]
            continue
        for path, mark in marks.items():
            arg = arg.replace(path, mark)
        flags.append(arg)
    return {"script": Path(command[1]).name, "flags": flags}


def _difference(held: dict[str, Any], asked: dict[str, Any]) -> str:
    """The first difference of two stage settings, as text."""
    if held.get("script") != asked.get("script"):
        return f"made by {held.get('script')}, not {asked.get('script')}"
    ours, theirs = held.get("flags", []), asked.get("flags", [])
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            flag = ours[i - 1] if i and ours[i - 1].startswith("--") else "a flag"
            return f"{flag} {a} there, {b} now"
    return f"flags {' '.join(ours)!r} there, {' '.join(theirs)!r} now"


def claim_stage(folder: str | Path, settings: dict[str, Any], what: str) -> None:
    """Check that ``folder`` may hold the stage of ``settings`` (``what`` names it in
    messages): record them in a new or empty folder; accept a folder recording the same
    ones (its work is reused or resumed); raise ``SystemExit`` in one line, changing
    nothing, for a folder recording other settings or holding work of unknown ones."""
    folder = Path(folder)
    record = folder / STAGE_FILE
    if record.is_file():
        try:
            held = json.loads(record.read_text())
        except (OSError, ValueError) as e:
            raise SystemExit(f"{what}: {record} is damaged ({type(e).__name__}); its stage "
                             f"cannot be checked: choose another --out") from None
        if held != settings:
            raise SystemExit(f"{what}: {folder} holds a stage made with other settings "
                             f"({_difference(held, settings)}); it is kept as it is: choose "
                             f"another --out to make this one")
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise SystemExit(f"{what}: {folder} holds work without a record of its settings "
                         f"({STAGE_FILE}); it is kept as it is: choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(record, json.dumps(settings, indent=1) + "\n")
