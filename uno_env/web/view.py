"""What the page shows of one game: a *frame*, JSON-ready, read from an engine.

A frame holds the facts of :func:`uno_env.envs.render.table_facts` (top card, current
color, direction, pending draw, phase, acting seat, hand sizes, scores, ...), the
hands the viewer may see, the seats' names, and, when the viewer is to act, every
legal action with a label a person understands. The play page, the replay page and
the notebook display (:mod:`uno_env.web.notebook`) all draw frames with the same
script (``static/table.js``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..actions import (
    ACTION_COLOR,
    ACTION_KIND,
    ACTION_NAMES,
    ACTION_TARGET,
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DOBON,
    DRAW,
    PASS,
    TARGET_BASE,
    UNO,
)
from ..cards import COLOR_NAMES, KIND_NAMES
from ..engine import Engine
from ..envs.render import table_facts
from ..records import GameRecord, replay


def action_label(action: int, facts: dict[str, Any], names: Sequence[str]) -> str:
    """``action`` said for a person, in the position ``facts`` describes (a penalty to
    take, whom a swap targets, ...)."""
    a = int(action)
    phase, pending, actor = facts["phase"], facts["pending"], facts["acting"]
    if ACTION_KIND[a] >= 0:
        card = KIND_NAMES[int(ACTION_KIND[a])]
        color = int(ACTION_COLOR[a])
        return f"play {card}" + (f" as {COLOR_NAMES[color]}" if color >= 0 else "")
    if a == DRAW:
        if pending:
            return f"take the {pending} card{'s' if pending != 1 else ''}"
        return "draw another card" if phase == "after_draw" else "draw a card"
    if a == PASS:
        return {"after_draw": "keep the card and pass", "multi": "end the play",
                "react": "let it go"}.get(phase, "pass")
    if a == CHALLENGE:
        return "challenge the Wild Draw Four"
    if a == UNO:
        return "call UNO"
    if a == CATCH:
        exposed = facts["exposed"]
        return f"catch {names[exposed]} (no UNO call)" if exposed >= 0 else "catch"
    if a == DOBON:
        return "declare Dobon"
    if COLOR_BASE <= a < TARGET_BASE:
        return f"choose {COLOR_NAMES[int(ACTION_COLOR[a])]}"
    target = (actor + int(ACTION_TARGET[a])) % facts["num_players"]
    return f"swap hands with {names[target]}"


def legal_actions(engine: Engine, facts: dict[str, Any], names: Sequence[str]
                  ) -> list[dict[str, Any]]:
    """Every legal action of game 0: id, name, label, and for a play its card and color
    (the page puts plays on the cards of the hand)."""
    out = []
    for a in np.flatnonzero(engine.legal_action_mask()[0]).tolist():
        kind, color = int(ACTION_KIND[a]), int(ACTION_COLOR[a])
        out.append({"id": a, "name": ACTION_NAMES[a], "label": action_label(a, facts, names),
                    "card": KIND_NAMES[kind] if kind >= 0 else None,
                    "color": "RYGB"[color] if kind >= 0 and color >= 0 else None})
    return out


def frame(engine: Engine, names: Sequence[str], viewer: int | None,
          actions_for: int | None = None) -> dict[str, Any]:
    """Game 0 of ``engine`` as a frame, seen by seat ``viewer`` (None: every hand
    shown). The legal actions are listed when seat ``actions_for`` is to act."""
    facts = table_facts(engine, 0, viewer)
    s = engine.state
    shown = range(engine.num_players) if viewer is None else [viewer]
    hands: list[list[str] | None] = [None] * engine.num_players
    for seat in shown:
        hands[seat] = engine.hand(0, seat)
    facts["teams"] = engine.rules.teams
    facts.update(
        names=list(names), hands=hands, viewer=viewer,
        round_points=[int(x) for x in s.round_points[0]],
        rounds_played=int(s.rounds_played[0]),
        legal=[], status=status_text(facts, names))
    if actions_for is not None and not facts["done"] and facts["acting"] == actions_for:
        facts["legal"] = legal_actions(engine, facts, names)
    return facts


def status_text(facts: dict[str, Any], names: Sequence[str]) -> str:
    """One line: who is to act and on what, or how the game ended."""
    if facts["done"]:
        w = facts["winner"]
        if w >= 0 and facts["teams"]:
            side = [n for seat, n in enumerate(names) if seat % 2 == w % 2]
            return f"game over: {' and '.join(side)} win"
        if w >= 0:
            return f"game over: {names[w]} wins"
        return "game over: cut at the turn limit, nobody wins"
    what = facts["phase"].replace("_", " ")
    return f"{names[facts['acting']]} to act ({what})"


def replay_frames(record: GameRecord, viewer: int | None) -> dict[str, Any]:
    """The record and its positions as frames (``viewer`` None: all hands)."""
    p = record.rules.num_players
    if viewer is not None and not 0 <= viewer < p:
        raise ValueError(f"viewer {viewer} is not a seat 0-{p - 1}")
    engine, steps = replay(record)
    names = [f"{s} (seat {i})" for i, s in enumerate(record.seats)]
    frames = []
    for step in steps:
        engine.state = step.state
        f = frame(engine, names, viewer)
        if step.action is not None:
            f["next"] = f"{names[step.actor]}: {action_label(step.action, f, names)}"
        frames.append(f)
    return {"record": record.to_dict(), "names": names, "viewer": viewer, "frames": frames}
