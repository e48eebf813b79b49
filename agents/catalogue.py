"""The shipped models: which spec plays each file, its hash, and its card's headline.

Every model in ``agents/models/`` has a card beside it (``<stem>.json``, or
``<stem>.ppo.json`` for a PPO policy) with the recipe that made it. A card's
``headline`` holds the model's measured win rates, copied from the record that
measured them (``experiments/headlines.py``) together with the SHA-256 of the file
that was measured, so a headline never outlives the file it describes:
:func:`shipped_models` shows it only while the hashes agree. Results elsewhere
(exploiters, the leaderboard) join a model by the same hash, not by its name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from uno_env.files import write_atomic
from uno_env.tooling.stages import sha256

from .files import MODELS_DIR, shipped_stems

#: ``(spec prefix, file suffix, card suffix, kind)`` of every kind of shipped model.
KINDS = (("net", ".safetensors", ".json", "network"),
         ("ppo", ".ppo.safetensors", ".ppo.json", "PPO policy"),
         ("improved", ".pt", ".json", "heuristic + learned advantage"))


def card_path(model: str | Path) -> Path:
    """The card beside a model file."""
    model = Path(model)
    for _, suffix, card, _ in KINDS:
        if model.name.endswith(suffix) and model.name != suffix:
            return model.with_name(model.name[: -len(suffix)] + card)
    raise ValueError(f"{str(model)!r} is not a model file (suffixes: "
                     f"{', '.join(k[1] for k in KINDS)})")


def model_file(agent: Any) -> Path | None:
    """The file an agent plays from (its ``model_file``), or ``None`` for an agent
    without one (the heuristics)."""
    path = getattr(agent, "model_file", None)
    return Path(path) if path is not None else None


def model_hash(agent: Any) -> str | None:
    """The SHA-256 of the file an agent plays from, or ``None`` when it has none."""
    path = model_file(agent)
    return sha256(path) if path is not None else None


def read_card(model: str | Path) -> dict[str, Any]:
    """The card of a model file (empty when it has none)."""
    path = card_path(model)
    return json.loads(path.read_text()) if path.is_file() else {}


def current_headlines(model: str | Path, card: dict[str, Any] | None = None
                      ) -> list[dict[str, Any]]:
    """The card's headline rows measured on this very file (by hash)."""
    card = read_card(model) if card is None else card
    digest = sha256(model)
    return [row for row in card.get("headline", []) if row.get("sha256") == digest]


def headline_text(row: dict[str, Any]) -> str:
    """One headline row in words: ``54.1% [53.5, 54.6] vs tuned (2p, 20,000 games)``."""
    return (f"{row['win_rate']:.1%} [{row['low']:.1%}, {row['high']:.1%}] vs "
            f"{row['opponent']} ({row['players']}p, {row['games']:,} games)")


def shipped_models() -> list[dict[str, Any]]:
    """Every shipped model: its spec, kind, file, size, SHA-256 and current headline."""
    models = []
    seen: set[str] = set()
    for prefix, suffix, _, kind in KINDS:
        for stem in shipped_stems(suffix):
            path = MODELS_DIR / f"{stem}{suffix}"
            if path.name in seen:
                continue
            seen.add(path.name)
            card = read_card(path)
            models.append({"spec": f"{prefix}:{stem}", "kind": kind, "file": path.name,
                           "bytes": path.stat().st_size, "sha256": sha256(path),
                           "headline": [headline_text(r)
                                        for r in current_headlines(path, card)],
                           "recipe": str(card.get("recipe") or card.get("what") or "")})
    return models


def write_headlines(record: dict[str, Any], record_path: str,
                    models_dir: Path | None = None) -> list[Path]:
    """Copy a headlines record's rows into the cards of the model files they measured,
    in ``models_dir`` (default: the shipped models'; rows of the same opponent and table
    size replaced); returns the cards written."""
    written: dict[Path, dict[str, Any]] = {}
    for row in record["rows"]:
        if not row.get("sha256") or not row.get("file"):
            continue
        path = Path(models_dir or MODELS_DIR) / row["file"]
        if not path.is_file() or sha256(path) != row["sha256"]:
            continue
        card_file = card_path(path)
        card = written.get(card_file) or read_card(path)
        kept = [r for r in card.get("headline", [])
                if (r.get("opponent"), r.get("players")) != (row["opponent"], row["players"])]
        entry = {k: row[k] for k in ("opponent", "players", "win_rate", "low", "high",
                                     "deals", "games", "sha256")}
        entry.update(record=record_path, command=record.get("command"),
                     commit=record.get("commit"), deals_namespace=record.get("deals"))
        card["headline"] = [*kept, entry]
        written[card_file] = card
    for card_file, card in written.items():
        write_atomic(card_file, json.dumps(card, indent=2) + "\n")
    return sorted(written)
