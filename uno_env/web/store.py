"""The records folder the server reads and writes, and nothing outside it.

A record is named by its file name in the folder (``tournament-official-2p-seed0-000.json``):
letters, digits, ``.``, ``_`` and ``-``, ending in ``.json``, never a path. Every name
from the page is checked against that pattern and resolved inside the folder before a
file is touched, so no request reads or writes anywhere else. Records are written
atomically, so they survive a restart whole.
"""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

from ..records import GameRecord, load_record, save_record
from .view import replay_frames

#: What a record's file name may be.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json")


class UnknownRecord(LookupError):
    """A record name the records folder does not hold."""


class RecordStore:
    """The game records of one folder (created when missing)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, name: str) -> Path:
        """The file of record ``name``; ``ValueError`` for a name that is not a plain
        record file name of this folder."""
        if not isinstance(name, str) or not NAME.fullmatch(name) or ".." in name:
            raise ValueError(f"{name!r} is not a record name (letters, digits, '.', '_', "
                             "'-', ending in .json)")
        path = (self.folder / name).resolve()
        if path.parent != self.folder:
            raise ValueError(f"{name!r} is not a record of the records folder")
        return path

    def names(self) -> list[str]:
        """The record files of the folder, by name."""
        return sorted(p.name for p in self.folder.glob("*.json")
                      if NAME.fullmatch(p.name) and p.is_file())

    def summaries(self) -> list[dict[str, Any]]:
        """Name, preset, players, seats and decisions of each readable record."""
        out = []
        for name in self.names():
            try:
                r = load_record(self.folder / name)
            except (OSError, ValueError):
                continue
            out.append({"name": name, "preset": r.preset, "players": r.rules.num_players,
                        "seats": list(r.seats), "decisions": len(r.actions),
                        "source": r.source})
        return out

    def load(self, name: str) -> GameRecord:
        path = self.path(name)
        if not path.is_file():
            raise UnknownRecord(f"no record {name!r} in the records folder")
        return load_record(path)

    def save(self, record: GameRecord, stem: str = "game") -> str:
        """Save ``record`` under a new name (``<stem>-<time>-<random>.json``); its name."""
        name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.json"
        save_record(record, self.path(name))
        return name

    def frames(self, name: str, viewer: int | None) -> dict[str, Any]:
        """Record ``name`` replayed: every position as a frame seen by ``viewer`` (None:
        every hand shown), with the action taken from it."""
        record = self.load(name)
        return replay_frames(record, viewer) | {"name": name}

