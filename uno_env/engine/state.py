"""The engine state: one struct of numpy arrays, first axis = game."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..cards import MAX_DECK_SIZE, NUM_COLORS, NUM_KINDS

# Decision phases: what the acting player is deciding.
TURN = 0          # a normal turn: play a card or draw
AFTER_DRAW = 1    # the card just drawn (or, by option, any card) may be played; or pass
RESPOND = 2       # a draw penalty is pending: accept it or challenge (or answer it)
CHOOSE_COLOR = 3  # a wild's color is still to be chosen (first card)
FORCED_PLAY = 4   # a retracted Wild Draw Four: play one of the hidden legal cards
MULTI = 5         # several cards in one play: add another compatible card or pass
CHOOSE_TARGET = 6  # choose the seat to swap hands with (7 of 7-0, Wild Swap Hands)
REACT = 7         # out of turn: jump in with an identical card, declare Dobon, or pass
NUM_PHASES = 8
ROUND_END = 99    # not a decision: the round has just ended (internal, within a step)
PHASE_NAMES = ("turn", "after_draw", "respond", "choose_color", "forced_play", "multi",
               "choose_target", "react")


@dataclass
class State:
    """Arrays over ``G`` games with ``P`` seats and ``K`` card kinds."""

    hands: np.ndarray         # int8[G, P, K]  cards of each kind in each hand
    hand_size: np.ndarray     # int16[G, P]    kept equal to hands.sum(-1)
    deck: np.ndarray          # int16[G, N]    draw pile; cards deck_pos..deck_len-1 remain
    deck_pos: np.ndarray      # int32[G]       next card to draw
    deck_len: np.ndarray      # int32[G]       end of the pile
    discard: np.ndarray       # int16[G, K]    discards by kind, top card included
    top: np.ndarray           # int16[G]       kind of the top discard
    color: np.ndarray         # int8[G]        current color
    current: np.ndarray       # int64[G]       seat that acts next
    direction: np.ndarray     # int64[G]       +1 clockwise, -1 counter-clockwise
    phase: np.ndarray         # int8[G]        decision phase (constants above)
    pending: np.ndarray       # int16[G]       draw penalty waiting on the acting player
    drawn: np.ndarray         # int16[G]       kind drawn this turn, -1 if none
    uno_called: np.ndarray    # bool[G]        the acting player has called UNO this turn
    uno_offender: np.ndarray  # int64[G]       seat that may be caught (-1: none)
    attacker: np.ndarray      # int64[G]       seat that played the challengeable Wild Draw Four
    wd4_guilty: np.ndarray    # bool[G]        that Wild Draw Four broke the restriction
    prev_top: np.ndarray      # int16[G]       top card before that Wild Draw Four
    prev_color: np.ndarray    # int8[G]        color before that Wild Draw Four
    wd4_count: np.ndarray     # int16[G]       Wild Draw Fours laid together in that play
                              #                (what a retraction gives back)
    hidden: np.ndarray        # bool[G, K]     kinds the offender held when it laid the Wild Draw
                              #                Four (under retract: what it may be made to replay)
    dealer: np.ndarray        # int64[G]
    active: np.ndarray        # bool[G, P]     still playing (not out, not eliminated)
    place: np.ndarray         # int64[G, P]    finishing place, 0 = first; -1 while playing
    num_out: np.ndarray       # int64[G]       players who have gone out this round
    num_eliminated: np.ndarray  # int64[G]     players eliminated this round
    turn_draw: np.ndarray     # int16[G]       draw penalty laid this turn (not yet imposed)
    turn_reverse: np.ndarray  # int16[G]       Reverses laid this turn
    turn_skip: np.ndarray     # int16[G]       Skips laid this turn
    targeted: np.ndarray      # bool[G]        this turn's target decision has been made
    chain_first: np.ndarray   # int16[G]       draw card that started the penalty chain (-1)
    chain_last: np.ndarray    # int16[G]       last draw card of the chain (-1)
    react_from: np.ndarray    # int64[G]       seat whose card is open to reactions
    top_player: np.ndarray    # int64[G]       seat that laid the top card (-1: the deal)
    fed: np.ndarray           # int64[G]       seat whose card the last play answered
    dobon_loser: np.ndarray   # int64[G]       seat whose card was answered by Dobon (-1)
    roulette: np.ndarray      # bool[G]        the color choice is for Wild Color Roulette
    # What every player has seen each seat do this round (public memory, see observe.py):
    drew_on: np.ndarray       # bool[G, P, C]  colors current when the seat's hand drew
                              #                voluntarily since a card was last played from it
    last_played: np.ndarray   # int16[G, P]    kind of the seat's last card played (-1: none)
    last_named: np.ndarray    # int8[G, P]     color the seat last named for a wild (-1: none)
    wd4_after_draw: np.ndarray  # bool[G, P]   the seat's last Wild Draw Four replaced a color
                                #              it had drawn on
    shown: np.ndarray         # int8[G, P, K]  cards of the seat's hand shown to the table
                              #                (zero_open) that have not left it since
    turns: np.ndarray         # int32[G]       decisions taken this round
    key: np.ndarray           # uint64[G]      random key of the game's seed
    counter: np.ndarray       # uint64[G]      random numbers used so far
    done: np.ndarray          # bool[G]        the episode has ended
    truncated: np.ndarray     # bool[G]        ... by max_turns
    winner: np.ndarray        # int64[G]       episode winner, -1 while running
    round_winner: np.ndarray  # int64[G]       last round's winner, -1 while running
    round_points: np.ndarray  # int32[G, P]    points of the last round
    scores: np.ndarray        # int32[G, P]    match totals
    rounds_played: np.ndarray  # int32[G]

    @classmethod
    def empty(cls, num_games: int, num_players: int) -> State:
        g, p, k = num_games, num_players, NUM_KINDS
        i64 = np.int64
        return cls(
            hands=np.zeros((g, p, k), np.int8), hand_size=np.zeros((g, p), np.int16),
            deck=np.zeros((g, MAX_DECK_SIZE), np.int16), deck_pos=np.zeros(g, np.int32),
            deck_len=np.zeros(g, np.int32), discard=np.zeros((g, k), np.int16),
            top=np.zeros(g, np.int16), color=np.zeros(g, np.int8), current=np.zeros(g, i64),
            direction=np.ones(g, i64), phase=np.zeros(g, np.int8), pending=np.zeros(g, np.int16),
            drawn=np.full(g, -1, np.int16), uno_called=np.zeros(g, bool),
            uno_offender=np.full(g, -1, i64), attacker=np.full(g, -1, i64),
            wd4_guilty=np.zeros(g, bool), prev_top=np.zeros(g, np.int16),
            prev_color=np.zeros(g, np.int8), wd4_count=np.zeros(g, np.int16),
            hidden=np.zeros((g, k), bool),
            dealer=np.zeros(g, i64), active=np.ones((g, p), bool),
            place=np.full((g, p), -1, i64), num_out=np.zeros(g, i64),
            num_eliminated=np.zeros(g, i64), turn_draw=np.zeros(g, np.int16),
            turn_reverse=np.zeros(g, np.int16), turn_skip=np.zeros(g, np.int16),
            targeted=np.zeros(g, bool), chain_first=np.full(g, -1, np.int16),
            chain_last=np.full(g, -1, np.int16), react_from=np.full(g, -1, i64),
            top_player=np.full(g, -1, i64), fed=np.full(g, -1, i64),
            dobon_loser=np.full(g, -1, i64), roulette=np.zeros(g, bool),
            drew_on=np.zeros((g, p, NUM_COLORS), bool), last_played=np.full((g, p), -1, np.int16),
            last_named=np.full((g, p), -1, np.int8), wd4_after_draw=np.zeros((g, p), bool),
            shown=np.zeros((g, p, k), np.int8),
            turns=np.zeros(g, np.int32), key=np.zeros(g, np.uint64),
            counter=np.zeros(g, np.uint64), done=np.zeros(g, bool), truncated=np.zeros(g, bool),
            winner=np.full(g, -1, i64), round_winner=np.full(g, -1, i64),
            round_points=np.zeros((g, p), np.int32), scores=np.zeros((g, p), np.int32),
            rounds_played=np.zeros(g, np.int32),
        )

    def copy(self) -> State:
        return State(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, games: np.ndarray) -> State:
        """A new state holding only the given games."""
        return State(**{f.name: getattr(self, f.name)[games].copy() for f in fields(self)})

    def put(self, games: np.ndarray, other: State) -> None:
        """Write ``other`` (a state of ``len(games)`` games) into the given games."""
        for f in fields(self):
            getattr(self, f.name)[games] = getattr(other, f.name)

    def check_shape(self, num_games: int, num_players: int) -> None:
        """Raise ``ValueError`` naming the first field whose shape or dtype is not that of
        a state of ``num_games`` games with ``num_players`` seats, or that is not
        C-contiguous (the compiled code reads the arrays without bounds checks, and
        copies a game's rows as one run of memory)."""
        if self.num_games != num_games:
            raise ValueError(f"the state holds {self.num_games} games, the engine {num_games} "
                             "games")
        if self.num_players != num_players:
            raise ValueError(f"the state seats {self.num_players} players, the rules "
                             f"{num_players} players")
        model = State.empty(num_games, num_players)
        for f in fields(self):
            have, want = getattr(self, f.name), getattr(model, f.name)
            if not isinstance(have, np.ndarray) or have.shape != want.shape:
                shape = have.shape if isinstance(have, np.ndarray) else type(have).__name__
                raise ValueError(f"state field {f.name} must have shape {want.shape}, "
                                 f"got {shape}")
            if have.dtype != want.dtype:
                raise ValueError(f"state field {f.name} must be {want.dtype}, got {have.dtype}")
            if not have.flags.c_contiguous:
                raise ValueError(f"state field {f.name} must be a C-contiguous array "
                                 "(np.ascontiguousarray), got a strided view")

    @property
    def num_games(self) -> int:
        return self.hands.shape[0]

    @property
    def num_players(self) -> int:
        return self.hands.shape[1]


def where(mask: np.ndarray) -> np.ndarray:
    """Indices of the True entries of a 1-D mask (``np.flatnonzero`` without its overhead)."""
    return mask.nonzero()[0]
