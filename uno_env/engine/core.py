"""The public batch engine: ``Engine(rules, num_games, seed)``."""

from __future__ import annotations

import copy
import functools
import importlib.util
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import checks
from ..actions import ACTION_NAMES, NUM_ACTIONS, action_id
from ..cards import (
    COLORS,
    DECKS,
    IS_WILD,
    KIND_COLOR,
    NUM_KINDS,
    card_name,
    cards_from_counts,
    counts_from_cards,
    parse_card,
    parse_color,
)
from ..rules import Rules
from .codes import End, rule_codes
from .deal import pile_counts, write_shuffled
from .effects import close_last_standing
from .legal import legal_mask
from .observe import OBS_SIZE, Observer
from .rng import mix64, seed_key
from .rounds import clear_round, end_round, new_round, open_round
from .state import PHASE_NAMES, ROUND_END, TURN, State, where
from .step import apply_actions

if TYPE_CHECKING:   # numba is an optional extra: imported only when the backend is chosen
    from .compiled import NumbaBackend

#: A seed of :class:`Engine`: one int for all the games, or one per game.
Seed = int | Sequence[int] | np.ndarray


class IllegalActionError(ValueError):
    """An action that is not legal in its game; the state is left untouched."""


class EngineError(RuntimeError):
    """An unexpected error inside the engine while it changed the games (a bug).

    Raised from the original error; every game was put back as it was before the
    call, so the batch is never left half-advanced.
    """


#: The ways to run the rules: ``numpy`` (vectorised over the games, the reference) and
#: ``numba`` (compiled, one game at a time; needs the ``fast`` extra). Both play the
#: same games from the same seeds.
BACKENDS = ("numpy", "numba")


def default_backend() -> str:
    """``$UNO_ENV_BACKEND`` if set, else ``numba`` when it is installed, else ``numpy``."""
    chosen = os.environ.get("UNO_ENV_BACKEND", "").strip().lower()
    if chosen:
        return chosen
    return "numba" if _numba_installed() else "numpy"


@functools.cache
def _numba_installed() -> bool:
    """Whether numba can be imported (looked up once: the lookup costs tens of
    microseconds, more than a random pick over thousands of games)."""
    return importlib.util.find_spec("numba") is not None


def _kernels(rules: Rules, backend: str | None, threads: int = 1) -> NumbaBackend | None:
    """The compiled kernels for ``backend`` (None for the numpy engine)."""
    name = default_backend() if backend is None else backend
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; backends: {', '.join(BACKENDS)}")
    if name == "numpy":
        return None
    try:
        from .compiled import NumbaBackend
    except ImportError as err:
        raise ImportError("backend 'numba' needs the fast extra (numba, filelock): "
                          f"pip install 'uno-env[fast]' ({err})") from err
    return NumbaBackend(rules, threads)


class Engine:
    """``num_games`` UNO games under one set of rules, stepped together.

    Every game waits at a decision of its ``current_player``; ``step`` applies
    one action per game and moves each game to its next decision. Finished
    games keep their final state (and ignore actions) until ``reset``.
    ``backend`` chooses how the rules run (see :data:`BACKENDS`; default
    :func:`default_backend`); it changes the speed, never the games. ``threads``
    (``numba`` backend; default 1): large calls (256 games or more) run in that many
    blocks of games at once, one thread each, with the same results as on one thread
    (worth it only where that many cores are otherwise idle).
    """

    def __init__(self, rules: Rules | None = None, num_games: int = 1,
                 seed: Seed | None = None, backend: str | None = None,
                 threads: int = 1) -> None:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        self.rules = rules
        self.num_games = checks.integer(num_games, "num_games", 1)
        self.num_players = rules.num_players
        self.num_actions = NUM_ACTIONS
        self.obs_size = OBS_SIZE
        self.deck_size = int(DECKS[rules.deck].sum())
        self._observer = Observer(rules)
        self._codes = rule_codes(rules)   # the options as the numpy engine reads them
        self.threads = checks.integer(threads, "threads", 1)
        self._kernels = _kernels(rules, backend, self.threads)
        self.backend = "numpy" if self._kernels is None else "numba"
        self._mask: np.ndarray | None = None
        self._sub_mask: tuple[np.ndarray, np.ndarray] | None = None
        self.state = State.empty(self.num_games, self.num_players)
        self.reset(seed)

    def __getstate__(self) -> dict:
        """Pickled without the cached legal masks: they are recomputed when asked for."""
        return {**self.__dict__, "_mask": None, "_sub_mask": None}

    @property
    def state(self) -> State:
        """Every game's position: a struct of arrays whose first axis is the game."""
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        """Put the games in another position (its legal masks are computed anew).

        The state must hold this engine's games and seats with the dtypes of
        :meth:`State.empty` (``TypeError`` / ``ValueError`` naming the field otherwise).
        """
        if not isinstance(state, State):
            raise TypeError(f"state must be a State, got {type(state).__name__}")
        state.check_shape(self.num_games, self.num_players)
        self._state = state
        self._invalidate()

    # --- episodes ---------------------------------------------------------------------------

    def reset(self, seed: Seed | None = None,
              games: Sequence[int] | np.ndarray | None = None) -> None:
        """Start new episodes in all games, or only in ``games``.

        ``seed``: an int seeds the games as ``seed, seed+1, ...`` (in the order
        listed); a sequence gives one seed per game. Without a seed, each game's
        next episode is derived from its previous one, so an autoresetting batch
        stays reproducible.
        """
        idx = self._game_indices(games)
        if seed is None:
            if games is None and not self.state.key.any():
                keys = seed_key(np.random.SeedSequence().generate_state(idx.size, np.uint64)
                                .astype(np.int64))
            else:
                keys = mix64(self.state.key[idx] ^ np.uint64(0xA5A5A5A5A5A5A5A5))
        else:
            keys = seed_key(self._seeds(seed, idx.size))
        s = self.state
        if self._kernels is not None:
            masks = self._new_masks(idx)
            self._kernels.reset(s, idx, keys, masks)
            self._keep_masks(masks)
            return
        s.key[idx] = keys
        s.counter[idx] = 0
        s.scores[idx] = 0
        s.round_points[idx] = 0
        s.rounds_played[idx] = 0
        s.done[idx] = False
        s.truncated[idx] = False
        s.winner[idx] = -1
        s.round_winner[idx] = -1
        new_round(self._codes, s, idx, np.ones(idx.size, bool))
        self._invalidate()
        self._auto_forced(np.zeros((self.num_games, self.num_players), np.float32))

    @staticmethod
    def _seeds(seed: Seed, n: int) -> np.ndarray:
        """The seeds of ``n`` games: integers ``0 <= seed < 2**63`` (see :mod:`uno_env.checks`)."""
        if isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim):
            return checks.seed_list(seed, n)
        return checks.integer(seed, "seed", 0, checks.SEED_LIMIT - n) + np.arange(n, dtype=np.int64)

    def _game_indices(self, games: Sequence[int] | np.ndarray | None, unique: bool = True
                      ) -> np.ndarray:
        if games is None:
            return np.arange(self.num_games)
        idx = np.asarray(games)
        if idx.dtype == bool and idx.shape == (self.num_games,):
            return where(idx)
        if idx.ndim != 1 or not (idx.size == 0 or np.issubdtype(idx.dtype, np.integer)):
            raise ValueError(f"games must be a list of game indices, got {games!r}")
        bad = idx[(idx < 0) | (idx >= self.num_games)]
        if bad.size:
            raise ValueError(f"games: game index {int(bad[0])} out of range "
                             f"0-{self.num_games - 1}")
        idx = idx.astype(np.int64)
        increasing = bool((idx[1:] > idx[:-1]).all())
        if unique and not increasing:
            return np.unique(idx)
        if not increasing and np.unique(idx).size != idx.size:
            raise ValueError("games lists a game twice")
        return idx

    # --- decisions --------------------------------------------------------------------------

    def _invalidate(self) -> None:
        """Forget the cached masks: the state has changed."""
        self._mask = self._sub_mask = None

    def _new_masks(self, changed: np.ndarray) -> np.ndarray | None:
        """Where a compiled kernel about to change the games ``changed`` writes their new
        legal masks: a new array when they are all the games, else a copy of the cached
        masks (only their rows will differ), else None (masks are computed when asked).

        The masks are thus ready when the game changed, with its state still in
        cache, and a mask handed out earlier is never changed afterwards.
        """
        if changed.size == self.num_games:
            return np.empty((self.num_games, NUM_ACTIONS), bool)
        return None if self._mask is None else self._mask.copy()

    def _keep_masks(self, masks: np.ndarray | None) -> None:
        """Cache the masks a compiled kernel wrote (see :meth:`_new_masks`)."""
        self._invalidate()
        if masks is not None:
            masks.flags.writeable = False
            self._mask = masks

    def _compute_masks(self, idx: np.ndarray | None) -> np.ndarray:
        """The legal masks of all games (None) or of the games ``idx``, computed anew
        (read-only)."""
        if self._kernels is not None:
            games = self._listed(idx)
            mask = self._kernels.legal_mask(self.state, games)
        else:
            mask = legal_mask(self._codes, self.state if idx is None else self.state.take(idx))
        mask.flags.writeable = False
        return mask

    def legal_action_mask(self, games: Sequence[int] | np.ndarray | None = None
                          ) -> np.ndarray:
        """``bool[G, A]`` legal actions of each game's acting player (read-only).

        With ``games`` (indices), only those rows, computed for those games alone:
        cheaper when a few games of a large batch are to act.
        """
        if games is None:
            if self._mask is None:
                self._mask = self._compute_masks(None)
            return self._mask
        idx = self._game_indices(games, unique=False)
        if self._mask is not None or 2 * idx.size >= self.num_games:
            return self.legal_action_mask()[idx]
        cached = self._sub_mask
        if cached is not None and np.array_equal(cached[0], idx):
            return cached[1]
        mask = self._compute_masks(idx)
        self._sub_mask = (idx, mask)
        return mask

    def step(self, actions: Sequence[int] | np.ndarray,
             games: Sequence[int] | np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game; returns ``(rewards[G, P], terminated[G], truncated[G])``.

        With ``games`` (indices), only those games advance and ``actions`` holds
        one action for each of them. Actions of finished games are ignored.

        Nothing changes when a call fails: malformed ``actions`` or ``games`` raise
        ``ValueError`` or ``TypeError``, an illegal action :class:`IllegalActionError`
        (a ``ValueError``) naming the game, all before any game changes; an
        unexpected error inside the engine raises :class:`EngineError` naming the
        game, after putting every game back as it was.
        """
        idx = None if games is None else self._game_indices(games, unique=False)
        listed = self._listed(idx)
        actions = self._action_ids(actions, listed)
        s = self.state
        rewards = np.zeros((self.num_games, self.num_players), np.float32)
        if self._kernels is not None:   # checks, then applies (auto_forced moves too)
            masks = self._new_masks(listed)
            try:
                bad = self._kernels.step(s, listed, actions, rewards, self._mask, masks)
            except Exception as err:
                raise self._failed(self._kernels.undo(s), err) from err
            if bad >= 0:
                raise self._illegal(int(listed[bad]), int(actions[bad]))
            self._keep_masks(masks)
        else:
            self._check_legal(actions, listed, idx)
            saved = s.take(listed)
            try:
                live = ~s.done[listed]
                self._apply(listed[live], actions[live], rewards)
                self._auto_forced(rewards)
            except Exception as err:
                s.put(listed, saved)
                self._invalidate()
                raise self._failed(self._failing_game(listed, actions), err) from err
        return rewards, self.terminated, s.truncated.copy()

    def _failing_game(self, games: np.ndarray, actions: np.ndarray) -> int:
        """The first of ``games`` whose action fails when stepped alone, from a copy of it
        (-1 if none does): the numpy engine steps the games together, so this is how it
        tells which one failed."""
        rewards = np.zeros((1, self.num_players), np.float32)
        for g, a in zip(games.tolist(), actions.tolist(), strict=True):
            if self.state.done[g]:
                continue
            alone = copy.copy(self)
            alone.num_games = 1
            alone._state = self.state.take(np.array([g]))
            alone._invalidate()
            try:
                alone._apply(np.zeros(1, np.int64), np.array([a]), rewards)
                alone._auto_forced(rewards)
            except Exception:
                return g
        return -1

    @staticmethod
    def _failed(game: int, err: Exception) -> EngineError:
        where = f"in game {game}" if game >= 0 else "in this batch"
        return EngineError(f"internal error {where} ({type(err).__name__}: {err}); every "
                           "game was put back as it was before this call")

    def _run_kernel(self, games: np.ndarray, call: Callable[[np.ndarray | None], None],
                    streams: np.ndarray | None = None) -> None:
        """Run ``call(masks)``, a compiled call that changes the games ``games`` and writes
        their new legal masks into ``masks`` (see :meth:`_new_masks`). A failed call
        puts every game, and ``streams`` (random streams it advances), back as they were
        and raises :class:`EngineError`. The playouts over an engine
        (:mod:`uno_env.engine.playouts`) change the games through it."""
        kernels = self._kernels
        if kernels is None:
            raise NotImplementedError("a compiled call needs the numba backend")
        masks = self._new_masks(games)
        saved = None if streams is None else streams.copy()
        try:
            call(masks)
        except Exception as err:
            if streams is not None and saved is not None:
                streams[...] = saved
            raise self._failed(kernels.undo(self.state), err) from err
        self._keep_masks(masks)

    def _apply(self, idx: np.ndarray, actions: np.ndarray, rewards: np.ndarray) -> None:
        s = self.state
        self._invalidate()
        apply_actions(self._codes, s, idx, actions)
        s.turns[idx] += 1
        ended = idx[s.phase[idx] == ROUND_END]
        if ended.size:
            end_round(self._codes, s, ended, rewards)
        over = idx[(s.turns[idx] >= self.rules.max_turns) & ~s.done[idx]]
        if over.size and self._codes.end == End.LAST_STANDING:   # places won are kept
            decided = over[s.num_out[over] > 0]
            over = over[s.num_out[over] == 0]
            if decided.size:
                close_last_standing(self._codes, s, decided, shared=True)
                end_round(self._codes, s, decided, rewards)
                s.truncated[decided[s.done[decided]]] = True
        if over.size:
            s.done[over] = True
            s.truncated[over] = True

    def _auto_forced(self, rewards: np.ndarray) -> None:
        """With ``auto_forced``, play every decision that has a single legal action."""
        if not self.rules.auto_forced:
            return
        for _ in range(10 * self.rules.max_turns):
            mask = self.legal_action_mask()
            single = where(mask.sum(axis=1) == 1)
            if not single.size:
                return
            self._apply(single, mask[single].argmax(axis=1), rewards)

    @staticmethod
    def _action_ids(actions: Sequence[int] | np.ndarray, games: np.ndarray) -> np.ndarray:
        """``actions`` as ``int64[n]``, one per listed game, or a clear error."""
        return checks.action_array(actions, games.shape)

    def _check_legal(self, a: np.ndarray, games: np.ndarray, idx: np.ndarray | None) -> None:
        """Raise for the first running game whose action is out of range or not legal."""
        running = ~self.state.done[games]
        safe = np.where(running & (a >= 0) & (a < NUM_ACTIONS), a, 0)
        if idx is None:
            legal = self.legal_action_mask()[games, safe]
        else:
            legal = self.legal_action_mask(idx)[np.arange(idx.size), safe]
        bad = where(running & ((a < 0) | (a >= NUM_ACTIONS) | ~legal))
        if bad.size:
            raise self._illegal(int(games[bad[0]]), int(a[bad[0]]))

    def _illegal(self, game: int, action: int) -> IllegalActionError:
        """The error for ``action`` in ``game``: out of range, or not legal (listing the legal)."""
        if not 0 <= action < NUM_ACTIONS:
            return IllegalActionError(f"game {game}: action id {action} is out of "
                                      f"range 0-{NUM_ACTIONS - 1}")
        legal = ", ".join(self.legal_action_names(game))
        return IllegalActionError(
            f"game {game}: action {ACTION_NAMES[action]!r} (id {action}) is not legal for "
            f"player {int(self.state.current[game])} in phase {self.phase_name(game)!r}; "
            f"legal: {legal}")

    # --- views ------------------------------------------------------------------------------

    @property
    def current_player(self) -> np.ndarray:
        """``int[G]``: the seat that acts next in each game."""
        return self.state.current.copy()

    @property
    def phase(self) -> np.ndarray:
        return self.state.phase.copy()

    @property
    def pending_draw(self) -> np.ndarray:
        return self.state.pending.copy()

    @property
    def terminated(self) -> np.ndarray:
        return self.state.done & ~self.state.truncated

    @property
    def truncated(self) -> np.ndarray:
        return self.state.truncated.copy()

    @property
    def done(self) -> np.ndarray:
        return self.state.done.copy()

    @property
    def winner(self) -> np.ndarray:
        """``int[G]``: the episode's winner (the match winner in match play), -1 while running."""
        return self.state.winner.copy()

    @property
    def round_points(self) -> np.ndarray:
        return self.state.round_points.copy()

    @property
    def scores(self) -> np.ndarray:
        return self.state.scores.copy()

    @property
    def hand_sizes(self) -> np.ndarray:
        return self.state.hand_size.astype(np.int64)

    def observe(self, players: int | Sequence[int] | np.ndarray | None = None,
                games: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """``float32[G, D]``: each game seen by ``players`` (default: the acting players).

        With ``games`` (indices), only those games (``players`` then gives one
        seat per listed game).
        """
        idx, p = self._observed(players, games)
        if self._kernels is not None:
            return self._kernels.observe(self.state, self._listed(idx), p)
        return self._observer.observe(self.state if idx is None else self.state.take(idx), p)

    def _listed(self, idx: np.ndarray | None) -> np.ndarray:
        """The indices of the games ``idx`` lists (None: every game)."""
        return np.arange(self.num_games) if idx is None else idx

    def _observed(self, players: int | Sequence[int] | np.ndarray | None,
                  games: Sequence[int] | np.ndarray | None
                  ) -> tuple[np.ndarray | None, np.ndarray]:
        """The games (None: all) and the seat observing each, checked (see :meth:`observe`)."""
        idx = None if games is None else self._game_indices(games, unique=False)
        n = self.num_games if idx is None else idx.size
        if players is None:
            return idx, self.state.current if idx is None else self.state.current[idx]
        p = np.asarray(players)
        if p.ndim > 1 or (p.ndim == 1 and p.shape != (n,)) or p.dtype.kind not in "iu":
            raise ValueError(f"players must be one seat or {n} seats (integers), "
                             f"got {players!r}")
        if ((p < 0) | (p >= self.num_players)).any():   # before any conversion
            raise ValueError(f"players must be seats 0-{self.num_players - 1}, got {players!r}")
        return idx, p.astype(np.int64) if p.ndim else np.full(n, int(p), np.int64)

    def census(self) -> np.ndarray:
        """``int[G, K]``: every card in hands, draw pile and discards, by kind."""
        s = self.state
        return (s.hands.sum(axis=1, dtype=np.int64) + s.discard
                + pile_counts(s, np.arange(self.num_games)))

    def deck_composition(self) -> np.ndarray:
        return DECKS[self.rules.deck].astype(np.int64)

    # --- one game, by name ------------------------------------------------------------------

    def _game(self, game: int) -> int:
        """``game`` as an index into the games (``TypeError``/``ValueError`` otherwise:
        a negative index does not count from the end)."""
        return checks.integer(game, "game", 0, self.num_games - 1)

    def hand(self, game: int, player: int) -> list[str]:
        """The cards of ``player`` in ``game``, by name."""
        game = self._game(game)
        player = checks.integer(player, "player", 0, self.num_players - 1)
        return cards_from_counts(self.state.hands[game, player])

    def top_card(self, game: int = 0) -> str:
        """The top card of ``game``'s discard pile, by name."""
        return card_name(self.state.top[self._game(game)])

    def current_color(self, game: int = 0) -> str:
        """The color to match in ``game``."""
        return COLORS[int(self.state.color[self._game(game)])]

    def phase_name(self, game: int = 0) -> str:
        """What ``game`` waits for (``"over"`` once it has ended)."""
        game = self._game(game)
        if self.state.done[game]:
            return "over"
        return PHASE_NAMES[int(self.state.phase[game])]

    def legal_action_names(self, game: int = 0) -> list[str]:
        """The names of the actions legal in ``game``."""
        return [ACTION_NAMES[a] for a in where(self.legal_action_mask()[self._game(game)])]

    def step_names(self, names: str | Sequence[str]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step with action names, one per game (a plain string for a one-game engine)."""
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, (Sequence, np.ndarray)):
            raise TypeError(f"names must be action names, one per game, got {names!r}")
        if len(names) != self.num_games:
            raise ValueError(f"need {self.num_games} action names, got {len(names)}")
        return self.step(np.array([action_id(n) for n in names], np.int64))

    # --- scenarios --------------------------------------------------------------------------

    @classmethod
    def from_setup(cls, rules: Rules, hands: Sequence[Sequence[str]], top: str | None = None,
                   color: str | None = None, current: int = 0, direction: int = 1,
                   deck: Sequence[str] | None = None, discard: Sequence[str] = (),
                   dealer: int | None = None, seed: int = 0, backend: str | None = None
                   ) -> Engine:
        """A one-game engine in a given position (for tests and research).

        ``deck`` lists the next cards of the draw pile, top first; the cards of the
        deck not placed anywhere are shuffled beneath them. With ``top=None`` the
        round starts by flipping ``deck[0]`` under the ``first_card`` rule, as a
        real deal would (``dealer`` then says who dealt). Every hand holds at least
        one card: a player without cards has gone out, which ends the round or takes
        them out of it, so an empty hand is rejected (``ValueError`` naming it).
        """
        if len(hands) != rules.num_players:
            raise ValueError(f"hands gives {len(hands)} players but rules.num_players is "
                             f"{rules.num_players}")
        p = rules.num_players
        checks.integer(current, "current", 0, p - 1)
        for i, hand in enumerate(hands):
            if isinstance(hand, str):
                raise TypeError(f"hands[{i}] is the string {hand!r}: a hand is a list of card "
                                "names, such as ['G1', 'WD4']")
        empty = [i for i, hand in enumerate(hands) if len(hand) == 0]
        if empty:
            raise ValueError(f"hands[{empty[0]}] is empty: every seat of a position holds a "
                             "card (a player without cards has gone out)")
        if dealer is not None and (isinstance(dealer, (bool, np.bool_)) or not isinstance(
                dealer, (int, np.integer)) or not 0 <= dealer < p):
            raise ValueError(f"dealer={dealer!r} is not a seat 0-{p - 1}")
        if direction not in (1, -1):
            raise ValueError(f"direction must be 1 or -1, got {direction!r}")
        eng = cls(rules, 1, seed, backend)
        s = eng.state
        hand_counts = np.stack([counts_from_cards(list(h)) for h in hands]).astype(np.int64)
        top_kind = None if top is None else parse_card(top)
        deck_kinds = [parse_card(c) for c in (deck or [])]
        discard_counts = counts_from_cards(list(discard)).astype(np.int64)
        used = hand_counts.sum(0) + discard_counts + np.bincount(deck_kinds, minlength=NUM_KINDS)
        if top_kind is not None:
            used[top_kind] += 1
        rest = eng.deck_composition() - used
        if (rest < 0).any():
            k = int(where(rest < 0)[0])
            raise ValueError(f"card {card_name(k)} is used {int(used[k])} times but the "
                             f"{rules.deck} deck has {int(eng.deck_composition()[k])}")
        g = np.array([0])
        s.hands[0] = hand_counts
        s.hand_size[0] = hand_counts.sum(1)
        s.discard[0] = discard_counts
        s.deck[0, : len(deck_kinds)] = deck_kinds
        write_shuffled(s, g, rest[None, :], np.array([len(deck_kinds)]))
        s.deck_pos[0] = 0
        clear_round(s, g)
        s.direction[0] = direction
        s.dealer[0] = (current - direction) % p if dealer is None else dealer
        if top_kind is None:
            if color is not None:
                raise ValueError("color must be None when top=None: a wild turned up is "
                                 "chosen by the player left of the dealer")
            open_round(eng._codes, s, g)
        else:
            s.discard[0, top_kind] += 1
            s.top[0] = top_kind
            if IS_WILD[top_kind]:
                if color is None:
                    raise ValueError(f"top card {top} is wild: give its color")
                s.color[0] = parse_color(color)
            else:
                if color is not None and parse_color(color) != KIND_COLOR[top_kind]:
                    raise ValueError(f"color {color!r} does not match top card {top}")
                s.color[0] = KIND_COLOR[top_kind]
            s.current[0] = current
            s.phase[0] = TURN
            s.drawn[0] = -1
            s.uno_called[0] = False
        eng._invalidate()
        eng._auto_forced(np.zeros((1, p), np.float32))
        return eng
