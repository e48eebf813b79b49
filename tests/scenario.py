"""Helpers of the test suite: one builder of game positions, and play and state helpers.

:func:`make` is the one way tests build a position: the rules are a preset
(``official`` unless named) with any option overridden, exactly as given; no
option is changed behind the caller's back. Test modules that study rules other
than the UNO call say so once, at their top, with ``uno_penalty=0``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

import numpy as np

from uno_env import PRESETS, Engine, Rules
from uno_env.actions import NUM_PLAY_ACTIONS
from uno_env.engine.deal import pile_counts
from uno_env.engine.worlds import known_seats


def make(hands: Sequence[Sequence[str]], top: str | None = "R3", color: str | None = None,
         current: int = 0, direction: int = 1, pile: Sequence[str] | None = None, *,
         preset: str = "official", discard: Sequence[str] = (), dealer_seat: int | None = None,
         seed: int = 0, **options) -> Engine:
    """A one-game engine in a position, under ``preset`` with ``options`` overridden.

    ``len(hands)`` players; ``top`` is the card on the discard pile (``None``:
    the round starts by flipping ``pile[0]`` under the ``first_card`` rule, as a
    real deal would, ``dealer_seat`` saying who dealt); ``pile`` lists the next
    cards of the draw pile, top first (``deck`` and ``dealer`` are rule options).
    """
    rules = Rules.preset(preset, num_players=len(hands), **options)
    return Engine.from_setup(rules, hands=[list(h) for h in hands], top=top, color=color,
                             current=current, direction=direction, deck=pile, discard=discard,
                             dealer=dealer_seat, seed=seed)


def cur(eng: Engine) -> int:
    """The acting seat of game 0."""
    return int(eng.current_player[0])


def size(eng: Engine, p: int) -> int:
    """Cards held by seat ``p`` of game 0."""
    return len(eng.hand(0, p))


def same(a, b) -> bool:
    """Equal as multisets."""
    return Counter(a) == Counter(b)


def snapshot(engine: Engine) -> dict[str, np.ndarray]:
    """A copy of every array of the engine state."""
    return {f.name: getattr(engine.state, f.name).copy()
            for f in dataclasses.fields(engine.state)}


def assert_equal_arrays(a: np.ndarray, b: np.ndarray, err_msg: str) -> None:
    """``np.testing.assert_array_equal``, its cost (most of a lockstep test's time) paid
    only to report a difference: equal arrays of one shape pass at once."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not (a == b).all():
        np.testing.assert_array_equal(a, b, err_msg=err_msg)


def assert_same_state(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert_equal_arrays(a[name], b[name], err_msg=f"state field {name} differs")


def random_actions(engine: Engine, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per running game (0 for finished games)."""
    mask = engine.legal_action_mask()
    noise = np.where(mask, rng.random(mask.shape), -1.0)
    return np.where(mask.any(axis=1), noise.argmax(axis=1), 0).astype(np.int64)


def eager_actions(engine: Engine, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game, a card play whenever one is legal (short rounds)."""
    mask = engine.legal_action_mask()
    plays = mask.copy()
    plays[:, NUM_PLAY_ACTIONS:] = False
    choice = np.where(plays.any(axis=1, keepdims=True), plays, mask)
    noise = np.where(choice, rng.random(mask.shape), -1.0)
    return np.where(mask.any(axis=1), noise.argmax(axis=1), 0).astype(np.int64)


def assert_census(engine: Engine) -> None:
    """Card conservation: every game holds exactly its deck, per kind."""
    expected = np.broadcast_to(engine.deck_composition(), (engine.num_games,
                                                            engine.deck_composition().size))
    np.testing.assert_array_equal(engine.census(), expected)


def random_positions(preset: str, players: int, games: int = 24, seed: int = 7) -> Engine:
    """An engine whose games stand at varied positions reached by random play."""
    eng = Engine(Rules.preset(preset, num_players=players), games, seed)
    rng = np.random.default_rng(seed)
    depth = rng.integers(0, 60, games)
    for step in range(60):
        live = np.flatnonzero(~eng.state.done & (depth > step))
        if not live.size:
            break
        eng.step(random_actions(eng, rng)[live], games=live)
    return eng


def redeal_hidden(engine: Engine, game: int, seat: int, rng: np.random.Generator) -> None:
    """Deal the cards ``seat`` cannot see in ``game`` (the other hands, the draw pile)
    anew, keeping every public fact (hand sizes, pile length)."""
    s = engine.state
    others = [q for q in range(engine.num_players) if q != seat]
    if engine.rules.teams:
        others.remove((seat + 2) % engine.num_players)
    pile = slice(int(s.deck_pos[game]), int(s.deck_len[game]))
    cards = np.concatenate([np.repeat(np.arange(s.hands.shape[2]), s.hands[game, q])
                            for q in others] + [s.deck[game, pile]])
    rng.shuffle(cards)
    sizes = [int(s.hand_size[game, q]) for q in others]
    s.hands[game, others] = 0
    for q, part in zip(others, np.split(cards[:sum(sizes)], np.cumsum(sizes)[:-1]),
                       strict=True):
        np.add.at(s.hands[game, q], part, 1)
    s.deck[game, pile] = cards[sum(sizes):]
    engine.state = s


def valid_player_counts(counts: tuple[int, ...]) -> list[tuple[str, int]]:
    """``(preset, players)`` for every preset and each of ``counts`` its rules allow
    (team play needs 4 players)."""
    pairs = []
    for preset in sorted(PRESETS):
        for players in counts:
            try:
                Rules.preset(preset, num_players=players)
            except ValueError:
                continue
            pairs.append((preset, players))
    return pairs


def play_all_seats(rules: Rules, agent, games: int, seed: int) -> Engine:
    """Every seat of ``games`` games played by ``agent`` to the end (or to the engine's
    turn limit); asserts each action is legal."""
    eng = Engine(rules, games, seed)
    rng = np.random.default_rng(seed)
    for _ in range(rules.max_turns * rules.num_players + 10):
        if eng.done.all():
            break
        live = np.flatnonzero(~eng.done)
        obs, mask = eng.observe(games=live), eng.legal_action_mask(live)
        actions = np.zeros(games, np.int64)
        actions[live] = agent.act(obs, mask, rng)
        assert mask[np.arange(live.size), actions[live]].all()
        eng.step(actions)
    return eng


#: Every preset at 2 and 4 players (team play only at 4): the tables of the world tests.
WORLD_CASES = [(preset, players) for preset in sorted(PRESETS) for players in (2, 4)
               if not (preset == "teams" and players != 4)]


def hidden_cards(eng: Engine, game: int, seat: int) -> np.ndarray:
    """The cards ``seat`` cannot see in ``game``: other hands and the draw pile."""
    s = eng.state
    others = np.ones(eng.num_players, bool)
    others[known_seats(eng.rules, seat)] = False
    return (s.hands[game, others].sum(axis=0, dtype=np.int64)
            + pile_counts(s, np.array([game]))[0])


def damage_hand(engine: Engine, game: int) -> None:
    """Damage the hand of the seat after the one to move in ``game`` (a count of -1 with a
    hand size over a ``mercy_limit`` of 25), so that the elimination check after that
    game's next decision fails inside the engine: how tests reach an internal error."""
    s = engine.state
    seat = (int(s.current[game]) + 1) % engine.num_players
    s.hands[game, seat] = 0
    s.hands[game, seat, 0] = -1
    s.hand_size[game, seat] = 30
    engine.state = s
