"""The compiled backend's dispatch: the engine's calls turned into kernel calls.

:class:`NumbaBackend` holds the rules and state as the kernels take them, picks the
kernel for each call of the engine and cuts large calls into blocks of games run
on several threads (:mod:`.parallel`). It sits above every kernel module it calls.
"""

from __future__ import annotations

import threading

import numpy as np

from ...actions import NUM_ACTIONS
from ...rules import Rules
from ..observe import OBS_SIZE
from ..packed import PACKED_DTYPE, packed_size
from ..state import State
from .kernels import (
    WHOLE_SAVED,
    first_illegal,
    legal_masks,
    observe_games,
    play_random_games,
    reset_games,
    save_and_step_games,
    step_games,
)
from .layout import rules_struct, state_struct
from .packed import pack_games, packed_starts
from .parallel import in_blocks
from .playouts import choose_games, play_opponents_games, play_policy_games, score_games
from .rows import copy_block, copy_rows
from .search import deal_worlds, play_values
from .seated import play_seated_games

#: From this many games a call saves the whole state for its undo log (see _undo_log).
_BULK_SAVE_GAMES = 32
#: From this many games a call that plays games on (``play_policies``) runs on the
#: engine's threads, if it has several (:mod:`.parallel`); smaller calls cost less on
#: one thread than waking the others.
PARALLEL_GAMES = 256
#: The same for a call of one decision a game (step, observe, masks, reset), whose
#: pieces are short: two threads measured 0.64x one thread at 512 games, 0.84x at
#: 1024, 1.13x at 2048 and 1.3-1.6x at 4096 (docs/benchmarks.md).
PARALLEL_DECISION_GAMES = 2048
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
    changed games they rewrite, or None. ``threads`` above 1: calls of
    :data:`PARALLEL_DECISION_GAMES` games or more (:data:`PARALLEL_GAMES` for calls that
    play games on) are cut into that many blocks of games, run at once on as many
    threads (:mod:`.parallel`), with the same results as on one thread.
    """

    def __init__(self, rules: Rules, threads: int = 1) -> None:
        self._rules = rules
        self.threads = threads
        self.rules = rules_struct(rules)
        self._state: State | None = None
        self._struct: object = None
        self._saved: State | None = None       # rows saved by the last changing call
        self._saved_struct: object = None
        self._log = np.zeros(1, np.int64)        # rows saved and their games (see save)
        self._worlds: State | None = None      # where world_values deals and plays
        self._worlds_struct: object = None
        self._own: dict[int, tuple[object, object, object]] = {}   # see _structs_here
        self._own_of: tuple[State | None, State | None] = (None, None)
        self._packed_starts = packed_starts(rules)
        self._packed_size = packed_size(rules)

    def __getstate__(self) -> dict:
        """Pickled as its rules: the structs are rebuilt on loading."""
        return {"rules": self._rules, "threads": self.threads}

    def __setstate__(self, state: dict) -> None:
        type(self).__init__(self, state["rules"], state.get("threads", 1))

    def _blocks(self, games: np.ndarray, least: int = PARALLEL_DECISION_GAMES) -> int:
        """How many blocks of games a call over ``games`` runs in (1: the one-thread
        kernel): the engine's threads from ``least`` games on."""
        return self.threads if self.threads > 1 and games.size >= least else 1

    def _arrays(self, state: State) -> object:
        if state is not self._state:
            self._state, self._struct = state, state_struct(state)
        return self._struct

    def _structs_here(self, state: State) -> tuple[object, object, object]:
        """The rules, ``state`` and undo-copy structs for the calling thread's block.

        A struct holds its arrays' reference counts, which compiled code updates at
        every use; two threads reading one struct update the same counts at once and
        contend for them (two threads then run slower than one). Each thread therefore gets
        structs of its own over the same arrays, built once per state."""
        if self._own_of != (state, self._saved):
            self._own, self._own_of = {}, (state, self._saved)
        key = threading.get_ident()
        own = self._own.get(key)
        if own is None:
            saved = self._saved if self._saved is not None else state
            own = self._own[key] = (rules_struct(self._rules), state_struct(state),
                                    state_struct(saved))
        return own

    def _undo_log(self, state: State, games: np.ndarray, whole: bool = False,
                  copy: bool = True) -> tuple[object, np.ndarray]:
        """Where a changing kernel on ``games`` saves each game's row before changing it
        (see :func:`save`). When the call lists many games, the whole state is copied
        here at once instead, a field of every game in one run (:func:`copy_block`),
        many times faster per game than the row by row copy, which stays the cheaper
        one for a few games. ``whole``: save every row (the parallel kernels need it);
        ``copy=False``: the kernel's blocks copy their own rows
        (:func:`save_and_step_games`)."""
        saved = self._saved
        if saved is None or saved.hands.shape != state.hands.shape:
            saved = self._saved = State.empty(state.num_games, state.num_players)
            self._saved_struct = state_struct(saved)
            self._log = np.zeros(1 + state.num_games, np.int64)
        log = self._log
        if whole or (games.size >= _BULK_SAVE_GAMES and games.size * 16 >= state.num_games):
            if copy:
                copy_block(self._arrays(state), 0, self._saved_struct, 0, state.num_games)
            log[:2] = WHOLE_SAVED
        else:
            log[0] = 0
        return self._saved_struct, log

    def undo(self, state: State) -> int:
        """After an error escaped a changing kernel: put back what it had saved; returns
        the game it was changing when the error came (-1: none)."""
        log = self._log
        if log[0] == WHOLE_SAVED:
            copy_block(self._saved_struct, 0, self._arrays(state), 0, state.num_games)
            return int(log[1])
        n = int(log[0])
        if n == 0:
            return -1
        games = log[1:1 + n]
        copy_rows(self._saved_struct, np.arange(n), self._arrays(state), games)
        return int(games[-1])

    def legal_mask(self, state: State, games: np.ndarray) -> np.ndarray:
        out = np.empty((games.size, NUM_ACTIONS), bool)
        blocks = self._blocks(games)
        if blocks > 1:
            in_blocks(legal_masks, blocks, games.size, lambda first, end: (
                *self._structs_here(state)[:2], games[first:end], out[first:end]))
        else:
            legal_masks(self.rules, self._arrays(state), games, out)
        return out

    def step(self, state: State, games: np.ndarray, actions: np.ndarray,
             rewards: np.ndarray, masks: np.ndarray | None,
             new_masks: np.ndarray | None) -> int:
        """Apply the actions of the running games, or none: returns -1 or the first illegal.

        ``masks``: the current (read-only) legal masks of all games, if known
        (saves recomputing them).
        """
        masks = _NO_MASKS if masks is None else masks
        blocks = self._blocks(games)
        if blocks > 1:
            s = self._arrays(state)
            bad = first_illegal(self.rules, s, games, actions, masks)
            if bad >= 0:
                return bad
            # every game in order (the engine lists no game twice): blocks of consecutive rows
            every_game = games.size == state.num_games and bool((games[1:] > games[:-1]).all())
            _, log = self._undo_log(state, games, whole=True, copy=not every_game)

            def block(first: int, end: int) -> tuple:
                rules, s_own, saved_own = self._structs_here(state)
                return (rules, s_own, games[first:end], actions[first:end], rewards, masks,
                        _new(new_masks), saved_own, log)
            try:   # every piece runs, even after another failed: all rows are then saved
                in_blocks(save_and_step_games if every_game else step_games, blocks,
                          games.size, block)
                return -1
            except Exception:  # replayed on one thread, which raises it
                self.undo(state)
                rewards[...] = 0
        return step_games(self.rules, self._arrays(state), games, actions, rewards,
                          masks, _new(new_masks), *self._undo_log(state, games))

    def reset(self, state: State, games: np.ndarray, keys: np.ndarray,
              new_masks: np.ndarray | None) -> None:
        blocks = self._blocks(games)
        if blocks > 1:
            try:
                in_blocks(reset_games, blocks, games.size, lambda first, end: (
                    *self._structs_here(state)[:2], games[first:end], keys[first:end],
                    _new(new_masks)))
                return
            except Exception:  # dealt again on one thread, which raises it
                pass
        reset_games(self.rules, self._arrays(state), games, keys, _new(new_masks))

    def play_random(self, state: State, games: np.ndarray, until: np.ndarray,
                    streams: np.ndarray, rewards: np.ndarray,
                    new_masks: np.ndarray | None) -> None:
        """Random legal play in ``games`` until the seats ``until`` act (see the kernel)."""
        play_random_games(self.rules, self._arrays(state), games, until, streams, rewards,
                          _new(new_masks), *self._undo_log(state, games))

    def play_policy(self, state: State, games: np.ndarray, seats: np.ndarray, horizon: int,
                    tables: tuple[np.ndarray, ...], streams: np.ndarray, rewards: np.ndarray,
                    new_masks: np.ndarray | None) -> None:
        """Play in ``games`` by the policy tables (see :func:`.playouts.play_policy_games`)."""
        play_policy_games(self.rules, self._arrays(state), games, seats, horizon, *tables,
                          streams, rewards, _new(new_masks), *self._undo_log(state, games))

    def play_opponents(self, state: State, games: np.ndarray, seats: np.ndarray,
                       tables: tuple[np.ndarray, ...], streams: np.ndarray, rewards: np.ndarray,
                       new_masks: np.ndarray | None) -> None:
        """Play the seats other than ``seats`` in ``games`` by the policy tables until
        ``seats`` act (see :func:`.playouts.play_opponents_games`)."""
        play_opponents_games(self.rules, self._arrays(state), games, seats, *tables, streams,
                             rewards, _new(new_masks), *self._undo_log(state, games))

    def choose(self, state: State, games: np.ndarray, tables: tuple[np.ndarray, ...]
               ) -> np.ndarray:
        """``int64[n]``: the action of the policy of row 0 of ``tables`` for the acting
        player of each listed game (see :func:`.playouts.choose_games`)."""
        out = np.empty(games.size, np.int64)
        choose_games(self.rules, self._arrays(state), games, *tables, out)
        return out

    def scores(self, state: State, games: np.ndarray, tables: tuple[np.ndarray, ...]
               ) -> np.ndarray:
        """``float64[n, A]``: the scores of the policy of row 0 of ``tables`` of the legal
        actions of the acting player of each listed game, ``-inf`` for the others (see
        :func:`.playouts.score_games`)."""
        out = np.empty((games.size, NUM_ACTIONS))
        score_games(self.rules, self._arrays(state), games, *tables, out)
        return out

    def deal_worlds(self, state: State, games: np.ndarray, repeats: np.ndarray,
                    worlds: np.ndarray, keys: np.ndarray, weight: float, out: State) -> None:
        """The worlds of ``games`` into ``out`` (see :func:`.search.deal_worlds`)."""
        self._deal(state, games, repeats, worlds, keys, weight, state_struct(out))

    def _deal(self, state: State, games: np.ndarray, repeats: np.ndarray,
              worlds: np.ndarray, keys: np.ndarray, weight: float, out: object) -> None:
        seats = state.current[games]
        bad = deal_worlds(self.rules, self._arrays(state), games, seats, repeats, worlds,
                          keys, weight, out)
        if bad >= 0:
            raise ValueError(f"game {int(games[bad])} does not add up: its unseen cards do "
                             "not fill the hidden hands and the draw pile")

    def world_values(self, state: State, games: np.ndarray, repeats: np.ndarray,
                     worlds: np.ndarray, keys: np.ndarray, weight: float, first: np.ndarray,
                     seats: np.ndarray, horizon: int, tables: tuple[np.ndarray, ...],
                     streams: np.ndarray) -> np.ndarray:
        """Deal the worlds into this backend's own rows and play them out (see
        :func:`.search.play_values`); the rows are kept from one call to the next."""
        rows = first.size
        if self._worlds is None or self._worlds.num_games < rows:
            self._worlds = State.empty(max(rows, 64), state.num_players)
            self._worlds_struct = state_struct(self._worlds)
        self._deal(state, games, repeats, worlds, keys, weight, self._worlds_struct)
        values = np.empty(rows)
        play_values(self.rules, self._worlds_struct, rows, first, seats, horizon, *tables,
                    streams, values)
        return values

    def observe(self, state: State, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        out = np.empty((games.size, OBS_SIZE), np.float32)
        self._per_game(observe_games, state, games, players, out)
        return out

    def observe_packed(self, state: State, games: np.ndarray, players: np.ndarray
                       ) -> np.ndarray:
        """The packed observations (:mod:`uno_env.engine.packed`) of ``games``."""
        out = np.empty((games.size, self._packed_size), PACKED_DTYPE)
        self._per_game(pack_games, state, games, players, self._packed_starts, out)
        return out

    def _per_game(self, kernel, state: State, games: np.ndarray, players: np.ndarray,
                  *args) -> None:
        """``kernel(rules, s, games, players, *args, out)`` over the listed games, in
        blocks on several threads for a large call (``out`` last, a row per game)."""
        *shared, out = args
        blocks = self._blocks(games)
        if blocks > 1:
            in_blocks(kernel, blocks, games.size, lambda first, end: (
                *self._structs_here(state)[:2], games[first:end], players[first:end],
                *shared, out[first:end]))
        else:
            kernel(self.rules, self._arrays(state), games, players, *args)

    def play_seated(self, state: State, games: np.ndarray, rows: np.ndarray, horizon: int,
                    tables: tuple[np.ndarray, ...], decisions: np.ndarray, rewards: np.ndarray,
                    new_masks: np.ndarray | None) -> None:
        """Play in ``games`` by a policy table per seat (see
        :func:`.seated.play_seated_games`)."""
        s = self._arrays(state)
        blocks = self._blocks(games, PARALLEL_GAMES)
        if blocks > 1:
            _, log = self._undo_log(state, games, whole=True)
            before = decisions.copy()

            def block(first: int, end: int) -> tuple:
                rules, s_own, saved_own = self._structs_here(state)
                return (rules, s_own, games[first:end], rows[first:end], horizon, *tables,
                        decisions, rewards, _new(new_masks), saved_own, log)
            try:
                in_blocks(play_seated_games, blocks, games.size, block)
                return
            except Exception:  # replayed on one thread, which raises it
                self.undo(state)
                decisions[...] = before
                rewards[...] = 0
        play_seated_games(self.rules, s, games, rows, horizon, *tables, decisions, rewards,
                          _new(new_masks), *self._undo_log(state, games))
