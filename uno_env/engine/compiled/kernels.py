"""Batch entry points of the compiled backend: one compiled loop over the listed games.

Each kernel takes the state and the rules as structs (see ``layout``) and the
indices of the games to work on; the engine's public methods call them through
:class:`NumbaBackend`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import NUM_ACTIONS
from ...cards import NUM_KINDS
from ...rules import Rules
from ..observe import OBS_SIZE
from ..rng import GOLDEN
from ..state import ROUND_END, State
from .deal import mix64
from .effects import close_last_standing
from .layout import END_LAST_STANDING, rules_struct, state_struct
from .legal import legal_row
from .observe import observe_row
from .rounds import end_round, new_round
from .step import apply_action


@njit(cache=True)
def decide(s, r, g, action, rewards):
    """One decision in game ``g``: apply it, count it, end the round or truncate."""
    apply_action(s, r, g, action)
    s.turns[g] += 1
    if s.phase[g] == ROUND_END:
        end_round(s, r, g, rewards)
    if s.turns[g] >= r.max_turns and not s.done[g]:
        if r.end == END_LAST_STANDING and s.num_out[g] > 0:   # places won are kept
            close_last_standing(s, r, g, True)
            end_round(s, r, g, rewards)
            s.truncated[g] = s.done[g]
        else:
            s.done[g] = True
            s.truncated[g] = True


@njit(cache=True)
def play_forced(s, r, g, rewards):
    """With ``auto_forced``, play every decision that has a single legal action."""
    if not r.auto_forced:
        return
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for _ in range(10 * r.max_turns):
        legal_row(s, r, g, mask, kinds)
        if mask.sum() != 1:
            return
        decide(s, r, g, np.argmax(mask), rewards)


@njit(cache=True)
def legal_masks(s, r, games, out):
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        legal_row(s, r, games[i], out[i], kinds)


@njit(cache=True)
def refresh_mask(s, r, g, masks, kinds):
    """Rewrite row ``g`` of ``masks`` (all games' legal masks), if given (else no rows).

    Called right after a game changes, while its state is still in cache: the
    engine then has every mask ready without another pass over the batch.
    """
    if masks.shape[0] > 0:
        legal_row(s, r, g, masks[g], kinds)


@njit(cache=True)
def step_games(s, r, games, actions, rewards, masks, new_masks):
    """Check every action first; if all running games' actions are legal, apply them.

    ``masks`` holds the legal masks of all games (row ``g`` for game ``g``) when the
    caller has them, else no rows and the masks are computed. Returns -1, or the position
    in ``games`` of the first illegal action (and then changes nothing). Finished
    games are skipped. ``new_masks``: see :func:`refresh_mask`.
    """
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        if s.done[g]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS:
            return i
        if masks.shape[0] > 0:
            if not masks[g, a]:
                return i
        else:
            legal_row(s, r, g, mask, kinds)
            if not mask[a]:
                return i
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            decide(s, r, g, actions[i], rewards[g])
            play_forced(s, r, g, rewards[g])
        refresh_mask(s, r, g, new_masks, kinds)
    return -1


@njit(cache=True)
def play_random_games(s, r, games, until, streams, rewards, new_masks):
    """Uniformly random legal decisions in each listed game until ``until[i]`` is to act.

    ``streams[g] = (key, counter)`` is the game's own random stream for these
    picks (advanced here), kept apart from the game's deal stream.
    """
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    legal = np.empty(NUM_ACTIONS, np.int64)
    for i in range(games.size):
        g = games[i]
        for _ in range(10 * r.max_turns):
            if s.done[g] or s.current[g] == until[i]:
                break
            legal_row(s, r, g, mask, kinds)
            n = 0
            for a in range(NUM_ACTIONS):
                if mask[a]:
                    legal[n] = a
                    n += 1
            streams[g, 1] += np.uint64(1)
            pick = mix64(streams[g, 0] + streams[g, 1] * GOLDEN) % np.uint64(n)
            decide(s, r, g, legal[np.int64(pick)], rewards[g])
            play_forced(s, r, g, rewards[g])
        refresh_mask(s, r, g, new_masks, kinds)


@njit(cache=True)
def reset_games(s, r, games, keys, new_masks):
    unused = np.zeros(r.num_players, np.float32)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        s.key[g] = keys[i]
        s.counter[g] = 0
        s.scores[g, :] = 0
        s.round_points[g, :] = 0
        s.rounds_played[g] = 0
        s.done[g] = False
        s.truncated[g] = False
        s.winner[g] = -1
        s.round_winner[g] = -1
        new_round(s, r, g, True)
        play_forced(s, r, g, unused)
        refresh_mask(s, r, g, new_masks, kinds)


@njit(cache=True)
def observe_games(s, r, games, players, out):
    for i in range(games.size):
        observe_row(s, r, games[i], players[i], out[i])


# "No masks" for the kernels' two mask arguments, typed as the engine's masks are:
# the cached masks it reads are read-only, the ones it has written are not.
_NO_MASKS = np.zeros((0, NUM_ACTIONS), np.bool_)
_NO_MASKS.flags.writeable = False
_NO_NEW_MASKS = np.zeros((0, NUM_ACTIONS), np.bool_)


def _new(new_masks: np.ndarray | None) -> np.ndarray:
    return _NO_NEW_MASKS if new_masks is None else new_masks


class NumbaBackend:
    """The compiled twin of the numpy engine functions, for one rule set.

    Works in place on a :class:`State`'s arrays; every method takes the indices of
    the games to work on (``int64[n]``). The methods that change games take
    ``new_masks``: ``bool[G, A]`` legal masks of all games, whose rows of the
    changed games they rewrite, or None.
    """

    def __init__(self, rules: Rules) -> None:
        self._rules = rules
        self.rules = rules_struct(rules)
        self._state: State | None = None
        self._struct: object = None

    def __getstate__(self) -> dict:
        """Pickled as its rules: the structs are rebuilt on loading."""
        return {"rules": self._rules}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["rules"])

    def _arrays(self, state: State) -> object:
        if state is not self._state:
            self._state, self._struct = state, state_struct(state)
        return self._struct

    def legal_mask(self, state: State, games: np.ndarray) -> np.ndarray:
        out = np.empty((games.size, NUM_ACTIONS), bool)
        legal_masks(self._arrays(state), self.rules, games, out)
        return out

    def step(self, state: State, games: np.ndarray, actions: np.ndarray,
             rewards: np.ndarray, masks: np.ndarray | None,
             new_masks: np.ndarray | None) -> int:
        """Apply the actions of the running games, or none: returns -1 or the first illegal.

        ``masks``: the current (read-only) legal masks of all games, if known
        (saves recomputing them).
        """
        return step_games(self._arrays(state), self.rules, games, actions, rewards,
                          _NO_MASKS if masks is None else masks, _new(new_masks))

    def reset(self, state: State, games: np.ndarray, keys: np.ndarray,
              new_masks: np.ndarray | None) -> None:
        reset_games(self._arrays(state), self.rules, games, keys, _new(new_masks))

    def play_random(self, state: State, games: np.ndarray, until: np.ndarray,
                    streams: np.ndarray, rewards: np.ndarray,
                    new_masks: np.ndarray | None) -> None:
        """Random legal play in ``games`` until the seats ``until`` act (see the kernel)."""
        play_random_games(self._arrays(state), self.rules, games, until, streams, rewards,
                          _new(new_masks))

    def observe(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        out = np.empty((games.size, OBS_SIZE), np.float32)
        observe_games(self._arrays(state), self.rules, games, players, out)
        return out
