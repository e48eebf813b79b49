"""Helpers shared by the rule scenario tests: one-game positions under any options."""

from __future__ import annotations

from collections import Counter

from uno_env import Engine, Rules


def make(hands, top="R3", color=None, current=0, direction=1, pile=None, **options) -> Engine:
    """A one-game engine in a position; the UNO call is automatic unless asked for."""
    options.setdefault("uno_penalty", 0)
    rules = Rules(num_players=len(hands), **options)
    return Engine.from_setup(rules, hands=[list(h) for h in hands], top=top, color=color,
                             current=current, direction=direction, deck=pile)


def cur(eng: Engine) -> int:
    """The acting seat of game 0."""
    return int(eng.current_player[0])


def size(eng: Engine, p: int) -> int:
    """Cards held by seat ``p`` of game 0."""
    return len(eng.hand(0, p))


def same(a, b) -> bool:
    """Equal as multisets."""
    return Counter(a) == Counter(b)
