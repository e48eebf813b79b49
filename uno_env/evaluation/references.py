"""The reference heuristic of every preset and table size: the record written by
``experiments/reference_heuristics.py`` (``docs/results/reference-heuristics.json``),
which chose it among the heuristics on selection deals. Studies that compare against
"the best heuristic" read it here, so every one of them means the same agent."""

from __future__ import annotations

import json
from pathlib import Path

#: The published record.
RECORD = Path("docs") / "results" / "reference-heuristics.json"


def reference_heuristics(path: Path = RECORD) -> dict[tuple[str, int], str]:
    """``{(preset, players): agent spec}`` from the record at ``path``; a ``ValueError``
    naming the file when it cannot be read as such a record."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        found = {(c["preset"], c["players"]): c["reference"] for c in record["cells"]}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"reference heuristics {str(path)!r} cannot be read as a record of "
                         f"experiments/reference_heuristics.py ({type(e).__name__}: "
                         f"{' '.join(str(e).split())[:80]})") from None
    if not all(isinstance(k[0], str) and type(k[1]) is int and isinstance(v, str)
               for k, v in found.items()):
        raise ValueError(f"reference heuristics {str(path)!r}: a cell is not a preset, a "
                         "player count and an agent spec")
    return found


def reference_of(preset: str, players: int, path: Path = RECORD) -> str:
    """The reference heuristic of ``preset`` at ``players``; a ``ValueError`` naming the
    preset when the record has none for it."""
    found = reference_heuristics(path)
    if (preset, players) not in found:
        raise ValueError(f"reference heuristics {str(path)!r} name none for {preset!r} at "
                         f"{players} players (it covers "
                         f"{', '.join(f'{p} {n}p' for p, n in sorted(found))})")
    return found[(preset, players)]


__all__ = ["RECORD", "reference_heuristics", "reference_of"]
