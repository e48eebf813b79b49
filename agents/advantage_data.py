"""The data of approximate policy iteration: each legal action's advantage over a base.

:func:`sampled_decisions` plays the base heuristic (against itself or an opponent)
and hands out decisions with a choice; :func:`advantages` values every legal action
of those decisions by playing a copy of the true game out to its end
(:func:`outcomes`), and :func:`searched_advantages` by the search agent's playouts
in worlds sampled from the public game. ``experiments/train_improvement.py`` fits
:class:`uno_agents.improved.AdvantageNet` to them; ``experiments/departure_check.py``
uses the same play-outs to check a search's departures from the base.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from uno_env import Engine, Rules
from uno_env.actions import CATCH, DOBON, UNO
from uno_env.deals import deal_seed

from .base import BatchAgent, choose_in_parts
from .ismcts import IsmctsAgent, play_out


def outcomes(engine: Engine, games: np.ndarray, actions: np.ndarray, base: BatchAgent,
             rng: np.random.Generator, opponent: BatchAgent | None = None) -> np.ndarray:
    """``float[len(games)]``: the outcome for the player to move in ``games[i]`` (a game
    may be listed several times) of playing ``actions[i]`` in a copy of that game, then
    ``base`` in every seat (the other seats ``opponent``, if given) to the end."""
    seat = engine.state.current[games]
    sims = Engine(engine.rules, games.size, 0, engine.backend)
    sims.state = engine.state.take(games)
    rewards, _, _ = sims.step(actions)
    return rewards[np.arange(games.size), seat] + play_out(sims, seat, base, rng,
                                                           opponent=opponent)


def advantages(engine: Engine, games: np.ndarray, masks: np.ndarray, chosen: np.ndarray,
               base: BatchAgent, rng: np.random.Generator,
               opponent: BatchAgent | None = None) -> np.ndarray:
    """``float32[len(games), A]``: each legal action's outcome for the acting player, played
    out by ``base`` in a copy of its game (the other seats by ``opponent``, if given), less
    the outcome of ``chosen`` (0 if illegal).

    The copies of a game share its cards and its random stream, so two actions' outcomes
    differ only through what the actions do."""
    row, action = np.nonzero(masks)
    out = np.zeros(masks.shape)
    out[row, action] = outcomes(engine, games[row], action, base, rng, opponent)
    out -= out[np.arange(len(games)), chosen][:, None]
    return np.where(masks, out, 0.0).astype(np.float32)


def searched_advantages(search: IsmctsAgent, engine: Engine, games: np.ndarray,
                        masks: np.ndarray, chosen: np.ndarray, base: BatchAgent,
                        rng: np.random.Generator) -> np.ndarray:
    """Like :func:`advantages`, from the search agent's view: each legal action's mean
    playout value over the worlds it samples from the public game, less that of
    ``chosen`` in the same worlds (many playouts, none of them in the true game)."""
    out = np.zeros(masks.shape, np.float32)
    for i, value in enumerate(search.action_values(engine, games, masks, rng)):
        legal = np.flatnonzero(masks[i])
        mean = value.mean(axis=1)
        out[i, legal] = mean - mean[np.searchsorted(legal, chosen[i])]
    return out


def sampled_decisions(rules: Rules, base: BatchAgent, opponent: BatchAgent | None,
                      games: int, record: float, seed: int, rng: np.random.Generator
                      ) -> Iterator[tuple[Engine, np.ndarray, np.ndarray, np.ndarray,
                                          np.ndarray]]:
    """Endless batches of ``games`` games of ``base`` against itself, or against
    ``opponent`` (the base in seat ``g % players`` of game ``g``, the opponent in the
    others). At every step, each decision of the base with a choice is recorded with
    chance ``record`` (decisions with one sensible action are skipped: a single legal
    action, calling UNO, catching, Dobon), and the recorded ones are yielded, before the
    step is played, as ``(engine, games, observations, masks, chosen)`` (``chosen``: the
    base's actions). The consumer may copy the engine's games but must not move them."""
    hero = np.arange(games) % rules.num_players     # the base's seat against an opponent
    batch = 0
    while True:
        first = deal_seed("training", seed, batch * games, games)
        engine = Engine(rules, games, first + np.arange(games))
        batch += 1
        while not engine.state.done.all():
            live = np.flatnonzero(~engine.state.done)
            obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
            if opponent is None:
                ours = np.ones(live.size, bool)
                players = [(base, ours)]
            else:
                ours = engine.state.current[live] == hero[live]
                players = [(base, ours), (opponent, ~ours)]
            chosen = choose_in_parts(players, engine, live, obs, masks, rng)
            choice = ours & (masks.sum(axis=1) > 1) & ~masks[:, [UNO, CATCH, DOBON]].any(axis=1)
            rows = np.flatnonzero(choice & (rng.random(live.size) < record))
            if rows.size:
                yield engine, live[rows], obs[rows], masks[rows], chosen[rows]
            engine.step(chosen, games=live)
