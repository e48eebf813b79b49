"""Batch entry points of the compiled backend: one compiled loop over the listed games.

Each kernel takes the state and the rules as structs (see ``layout``) and the
indices of the games to work on; the engine's public methods call them through
:class:`NumbaBackend`.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from ...actions import NUM_ACTIONS
from ...cards import NUM_KINDS
from ...rules import Rules
from ..codes import End
from ..observe import OBS_SIZE
from ..packed import PACKED_DTYPE, packed_size
from ..rng import GOLDEN
from ..state import ROUND_END, State
from .deal import mix64
from .effects import close_last_standing
from .layout import rules_struct, state_struct
from .legal import legal_row
from .observe import observe_row
from .packed import pack_games, packed_starts
from .rounds import end_round, new_round
from .rows import copy_block, copy_row, copy_rows
from .step import apply_action


@njit(cache=True)
def decide(rules, s, g, action, rewards):
    """One decision in game ``g``: apply it, count it, end the round or truncate."""
    apply_action(rules, s, g, action)
    s.turns[g] += 1
    if s.phase[g] == ROUND_END:
        end_round(rules, s, g, rewards)
    if s.turns[g] >= rules.max_turns and not s.done[g]:
        if rules.end == End.LAST_STANDING and s.num_out[g] > 0:   # places won are kept
            close_last_standing(rules, s, g, True)
            end_round(rules, s, g, rewards)
            s.truncated[g] = s.done[g]
        else:
            s.done[g] = True
            s.truncated[g] = True


@njit(cache=True)
def play_forced(rules, s, g, rewards):
    """With ``auto_forced``, play every decision that has a single legal action."""
    if not rules.auto_forced:
        return
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for _ in range(10 * rules.max_turns):
        legal_row(rules, s, g, mask, kinds)
        if mask.sum() != 1:
            return
        decide(rules, s, g, np.argmax(mask), rewards)


@njit(cache=True, nogil=True)
def legal_masks(rules, s, games, out):
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        legal_row(rules, s, games[i], out[i], kinds)


@njit(cache=True)
def refresh_mask(rules, s, g, masks, kinds):
    """Rewrite row ``g`` of ``masks`` (all games' legal masks), if given (else no rows).

    Called right after a game changes, while its state is still in cache: the
    engine then has every mask ready without another pass over the batch.
    """
    if masks.shape[0] > 0:
        legal_row(rules, s, g, masks[g], kinds)


#: ``log[0]`` of :func:`save` when the caller saved every row already.
WHOLE_SAVED = -1


@njit(cache=True)
def save(s, g, saved, log):
    """Before game ``g`` changes: its row into the next free row of ``saved``, so that an
    error escaping the kernel can be undone. ``log[0]`` counts the rows saved by this
    call and ``log[1 + k]`` is the game of row ``k``; games that do not change (finished,
    or already at the seat to wait for) are not copied. ``log[0] == WHOLE_SAVED`` says
    the caller saved every row already, each into the same row of ``saved`` (cheaper
    for large batches): then ``log[1]`` only notes the game being changed."""
    k = log[0]
    if k < 0:
        log[1] = g
        return
    log[1 + k] = g
    log[0] = k + 1
    copy_row(s, g, saved, k)


@njit(cache=True, nogil=True)
def first_illegal(rules, s, games, actions, masks):
    """The position in ``games`` of the first running game whose action is not legal, or
    -1 (``masks``: the legal masks of all games, or no rows to compute them)."""
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
            legal_row(rules, s, g, mask, kinds)
            if not mask[a]:
                return i
    return -1


@njit(cache=True, nogil=True)
def step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log):
    """Check every action first; if all running games' actions are legal, apply them.

    ``masks`` holds the legal masks of all games (row ``g`` for game ``g``) when the
    caller has them, else no rows and the masks are computed. Returns -1, or the position
    in ``games`` of the first illegal action (and then changes nothing). Finished
    games are skipped. ``new_masks``: see :func:`refresh_mask`; ``saved``, ``log``: see
    :func:`save`.
    """
    bad = first_illegal(rules, s, games, actions, masks)
    if bad >= 0:
        return bad
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
            decide(rules, s, g, actions[i], rewards[g])
            play_forced(rules, s, g, rewards[g])
        refresh_mask(rules, s, g, new_masks, kinds)
    return -1


@njit(cache=True, nogil=True)
def save_and_step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log):
    """:func:`step_games` on a block of consecutive games that first copies their rows
    into the same rows of ``saved``: the parallel step, where each thread saves its own
    block for the undo instead of one thread copying the whole state before the others
    start."""
    if games.size:
        copy_block(s, games[0], saved, games[0], games.size)
    return step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log)


@njit(cache=True)
def play_random_games(rules, s, games, until, streams, rewards, new_masks, saved, log):
    """Uniformly random legal decisions in each listed game until ``until[i]`` is to act.

    ``streams[g] = (key, counter)`` is the game's own random stream for these
    picks (advanced here), kept apart from the game's deal stream.
    """
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    legal = np.empty(NUM_ACTIONS, np.int64)
    for i in range(games.size):
        g = games[i]
        if not s.done[g] and s.current[g] != until[i]:
            save(s, g, saved, log)
        for _ in range(10 * rules.max_turns):
            if s.done[g] or s.current[g] == until[i]:
                break
            legal_row(rules, s, g, mask, kinds)
            n = 0
            for a in range(NUM_ACTIONS):
                if mask[a]:
                    legal[n] = a
                    n += 1
            streams[g, 1] += np.uint64(1)
            pick = mix64(streams[g, 0] + streams[g, 1] * GOLDEN) % np.uint64(n)
            decide(rules, s, g, legal[np.int64(pick)], rewards[g])
            play_forced(rules, s, g, rewards[g])
        refresh_mask(rules, s, g, new_masks, kinds)


@njit(cache=True, nogil=True)
def reset_games(rules, s, games, keys, new_masks):
    unused = np.zeros(rules.num_players, np.float32)
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
        new_round(rules, s, g, True)
        play_forced(rules, s, g, unused)
        refresh_mask(rules, s, g, new_masks, kinds)


@njit(cache=True, nogil=True)
def observe_games(rules, s, games, players, out):
    for i in range(games.size):
        observe_row(rules, s, games[i], players[i], out[i])


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
            from .parallel import in_blocks
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
            from .parallel import in_blocks
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
            from .parallel import in_blocks
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
        from .playouts import play_policy_games  # it builds on this module's kernels
        play_policy_games(self.rules, self._arrays(state), games, seats, horizon, *tables,
                          streams, rewards, _new(new_masks), *self._undo_log(state, games))

    def play_opponents(self, state: State, games: np.ndarray, seats: np.ndarray,
                       tables: tuple[np.ndarray, ...], streams: np.ndarray, rewards: np.ndarray,
                       new_masks: np.ndarray | None) -> None:
        """Play the seats other than ``seats`` in ``games`` by the policy tables until
        ``seats`` act (see :func:`.playouts.play_opponents_games`)."""
        from .playouts import play_opponents_games
        play_opponents_games(self.rules, self._arrays(state), games, seats, *tables, streams,
                             rewards, _new(new_masks), *self._undo_log(state, games))

    def deal_worlds(self, state: State, games: np.ndarray, repeats: np.ndarray,
                    worlds: np.ndarray, keys: np.ndarray, weight: float, out: State) -> None:
        """The worlds of ``games`` into ``out`` (see :func:`.search.deal_worlds`)."""
        self._deal(state, games, repeats, worlds, keys, weight, state_struct(out))

    def _deal(self, state: State, games: np.ndarray, repeats: np.ndarray,
              worlds: np.ndarray, keys: np.ndarray, weight: float, out: object) -> None:
        from .search import deal_worlds  # it builds on this module's kernels
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
        from .search import play_values
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
            from .parallel import in_blocks
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
        from .seated import play_seated_games
        s = self._arrays(state)
        blocks = self._blocks(games, PARALLEL_GAMES)
        if blocks > 1:
            from .parallel import in_blocks
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
