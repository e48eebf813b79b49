"""Rule options and presets (docs/rules.md sections 3 and 4).

A :class:`Rules` is a frozen, validated set of option values; every option's
default is the official international rule. A preset is a named set of
overrides: ``Rules.preset("federation", num_players=3)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

from . import checks
from .cards import DECKS

#: Allowed values of every option that takes one of a fixed set of strings.
CHOICES: dict[str, tuple[str, ...]] = {
    "deck": tuple(DECKS),
    "first_card": ("official", "bury_non_number", "redraw_non_number"),
    "first_player": ("left_of_dealer", "dealer"),
    "dealer": ("random", "previous_winner", "rotate"),
    "draw_rule": ("one_may_play", "one_then_pass", "until_playable_may_play",
                  "until_playable_must_play"),
    "wd4_restriction": ("color", "playable", "none"),
    "challenge_guilty": ("offender_draws", "retract"),
    "stack_draw2_on_draw4": ("never", "matching_color", "any"),
    "stack_skip": ("none", "skip_next", "pass_on"),
    "multi_play": ("none", "same_number", "identical", "same_kind"),
    "multi_skip": ("consecutive", "each"),
    "roulette_color": ("player", "victim"),
    "finish_on_action": ("allowed", "forbidden_draw1", "forbidden_draw2"),
    "end": ("first_out", "last_standing"),
    "scoring": ("winner_takes_sum", "zero_sum", "card_count", "rank", "none"),
    "points": ("standard", "house"),
    "draw_return_winner": ("zero_sum", "zero", "fixed"),
    "reward": ("win", "points", "rank"),
}

MIN_PLAYERS, MAX_PLAYERS = 2, 10

#: The values every integer option may take: what the state's integer types hold and the
#: observation's bounds cover (a penalty larger than the deck draws every card left).
INT_RANGES: dict[str, tuple[int, int]] = {
    "num_players": (MIN_PLAYERS, MAX_PLAYERS),
    "challenge_penalty": (0, 1000),
    "uno_penalty": (0, 1000),
    "declare_on_finish": (0, 1000),
    "mercy_limit": (0, 1000),
    "feed_penalty": (0, 1000),
    "draw_return_winner_points": (-1000, 0),
    "target_score": (0, 1_000_000),
    "rounds": (0, 10_000),
    "max_turns": (1, 1_000_000),
}


@dataclass(frozen=True)
class Rules:
    """Every rule option of the game; the defaults are the official rules.

    See ``docs/rules.md`` for what each option does and where it comes from.
    """

    num_players: int = 4
    deck: str = "classic108"
    # start of the round
    first_card: str = "official"
    first_player: str = "left_of_dealer"
    dealer: str = "random"
    # drawing
    draw_rule: str = "one_may_play"
    draw_when_playable: bool = True
    play_any_after_draw: bool = False
    draw_keep_going: bool = False
    # Wild Draw Four
    wd4_restriction: str = "color"
    wd4_bluff: bool = True
    challenge: bool = True
    challenge_guilty: str = "offender_draws"
    challenge_penalty: int = 2
    # draw stacking
    stack_draw2_on_draw2: bool = False
    stack_draw4_on_draw2: bool = False
    stack_draw4_on_draw4: bool = False
    stack_draw2_on_draw4: str = "never"
    stack_no_mixing: bool = False
    stack_reverse: bool = False
    stack_skip: str = "none"
    stack_wild_cancels: bool = False
    stack_by_value: bool = False
    challenge_on_stack: bool = False
    # several cards at once
    multi_play: str = "none"
    multi_effects_add: bool = False
    multi_skip: str = "consecutive"
    uno_to_finish: bool = False
    # going out
    finish_on_action: str = "allowed"
    uno_penalty: int = 2
    single_card_finish: bool = False
    declare_on_finish: int = 0
    # special rules
    seven_zero: bool = False
    zero_open: bool = False
    jump_in: bool = False
    skip_answers_skip: bool = False
    dobon: bool = False
    mercy_limit: int = 0
    roulette_color: str = "player"
    # end of round and scoring
    end: str = "first_out"
    scoring: str = "winner_takes_sum"
    points: str = "standard"
    draw_return_winner: str = "zero_sum"
    draw_return_winner_points: int = -20
    feed_penalty: int = 0
    match: bool = False
    target_score: int = 500
    rounds: int = 0
    max_turns: int = 1000
    teams: bool = False
    # environment conveniences
    auto_forced: bool = False
    reward: str = "win"

    def __post_init__(self) -> None:
        _validate(self)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The rules of a named preset, with any option overridden."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        unknown = sorted(set(overrides) - OPTION_NAMES)
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(map(repr, unknown))}")
        return cls(**{**PRESETS[name], **overrides})

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        unknown = sorted(set(changes) - OPTION_NAMES)
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(map(repr, unknown))}")
        return dataclasses.replace(self, **changes)

    def differences(self) -> dict[str, Any]:
        """The options that differ from the official defaults."""
        base = Rules(num_players=self.num_players)
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(base, f.name)}

    def preset_name(self) -> str | None:
        """The preset these rules are (with any player count), or None."""
        return next((n for n, p in PRESETS.items()
                     if Rules(**{**p, "num_players": self.num_players}) == self), None)

    def side_won(self, winner: Any, seat: Any) -> Any:
        """Whether ``seat``'s side won an episode won by ``winner`` (-1: none): the seat
        itself, or in team play either partner. Works on ints and integer arrays."""
        same_side = (seat % 2 == winner % 2) if self.teams else (seat == winner)
        return (winner >= 0) & same_side

    def describe(self) -> str:
        """Every option, the preset and its source, and the decisions that apply."""
        diff = self.differences()
        name = self.preset_name()
        title = f"preset {name!r} ({PRESET_SOURCES[name]})" if name else "custom rules"
        lines = [f"Rules: {title}, {self.num_players} players"]
        for f in fields(self):
            mark = "*" if f.name in diff else " "
            lines.append(f" {mark} {f.name:<22} {getattr(self, f.name)!r}")
        lines.append(" (* differs from the official rules)")
        notes = [text for option, text in DECISIONS.items()
                 if option == "always" or option in diff]
        lines.append("Decisions where the rules were open (docs/rules.md has them all):")
        lines += [f" - {text}" for text in notes]
        return "\n".join(lines)


OPTION_NAMES = frozenset(f.name for f in fields(Rules))

_BOOL_OPTIONS = {f.name for f in fields(Rules) if f.type in ("bool", bool)}
_INT_OPTIONS = {f.name for f in fields(Rules) if f.type in ("int", int)}


def _validate(r: Rules) -> None:
    for name in _BOOL_OPTIONS:
        if not isinstance(getattr(r, name), bool):
            raise ValueError(f"option {name} must be True or False, got {getattr(r, name)!r}")
    for name in _INT_OPTIONS:
        value = getattr(r, name)
        low, high = INT_RANGES[name]
        if not checks.is_integer(value) or not low <= value <= high:
            raise ValueError(f"option {name} must be an integer from {low} to {high}, "
                             f"got {value!r}")
        object.__setattr__(r, name, int(value))   # numpy integers become ints
    for name, allowed in CHOICES.items():
        if getattr(r, name) not in allowed:
            raise ValueError(f"option {name}={getattr(r, name)!r} is not one of {allowed}")
    if r.draw_keep_going and not r.draw_rule.startswith("until_playable"):
        raise ValueError("option draw_keep_going=True needs a draw_rule of "
                         "'until_playable_may_play' or 'until_playable_must_play'")
    if r.challenge and r.wd4_restriction == "none":
        raise ValueError("option challenge=True needs a wd4_restriction other than 'none' "
                         "(there is nothing to challenge)")
    if r.challenge and not r.wd4_bluff:
        raise ValueError("option challenge=True needs wd4_bluff=True (without bluffing a "
                         "challenge always fails)")
    if r.challenge_on_stack and not r.challenge:
        raise ValueError("option challenge_on_stack=True needs challenge=True")
    if r.scoring == "rank" and r.end != "last_standing":
        raise ValueError("option scoring='rank' needs end='last_standing'")
    if r.reward == "rank" and r.end != "last_standing":
        raise ValueError("option reward='rank' needs end='last_standing'")
    if r.teams and r.num_players != 4:
        raise ValueError("option teams=True needs num_players=4")
    if r.teams and r.end == "last_standing":
        raise ValueError("options teams=True and end='last_standing' cannot be combined")
    if r.draw_return_winner != "zero_sum" and r.scoring != "zero_sum":
        raise ValueError(f"option draw_return_winner={r.draw_return_winner!r} needs "
                         "scoring='zero_sum' (it sets what the winner scores there)")
    if r.match and r.rounds == 0:
        endless = _endless_scoring(r)
        if endless:
            raise ValueError(f"option match=True with {endless} needs a rounds limit "
                             "(no seat could ever reach a target score, so the match "
                             "would never end)")
    if r.declare_on_finish and r.multi_play == "none":
        raise ValueError("option declare_on_finish needs a multi_play other than 'none' "
                         "(the sources ask the declaration with several cards at once)")
    if r.single_card_finish and r.multi_play == "none":
        raise ValueError("option single_card_finish=True needs a multi_play other than 'none' "
                         "(without it every play is a single card)")
    if r.multi_effects_add and r.multi_play == "none":
        raise ValueError("option multi_effects_add=True needs a multi_play other than 'none'")


def _endless_scoring(r: Rules) -> str | None:
    """The options under which no seat's match score can ever reach ``target_score``
    (named as they are set), or None if some seat can.

    ``target_score=0`` sets no target; ``scoring="none"`` scores nothing; under
    ``scoring="zero_sum"`` a winner who scores ``draw_return_winner="zero"`` (or
    ``"fixed"`` with a non-negative amount in the page's sign) never gains, unless a
    ``feed_penalty`` pays it.
    """
    if r.target_score == 0:
        return "target_score=0 (no points target)"
    if r.scoring == "none":
        return "scoring='none'"
    if r.scoring != "zero_sum" or r.feed_penalty > 0:
        return None
    if r.draw_return_winner == "zero":
        return "scoring='zero_sum', draw_return_winner='zero' and feed_penalty=0"
    if r.draw_return_winner == "fixed" and r.draw_return_winner_points >= 0:
        return (f"scoring='zero_sum', draw_return_winner='fixed', "
                f"draw_return_winner_points={r.draw_return_winner_points} and feed_penalty=0")
    return None


#: Every preset of docs/rules.md section 4 as overrides of the official defaults.
PRESETS: dict[str, dict[str, Any]] = {
    "official": {},
    "official_jp": dict(wd4_restriction="playable", challenge_guilty="retract",
                        scoring="zero_sum", rounds=5, target_score=0),
    "federation": dict(
        first_card="bury_non_number", first_player="dealer", dealer="previous_winner",
        draw_rule="until_playable_may_play", draw_keep_going=True, play_any_after_draw=True,
        multi_play="same_number", multi_effects_add=True,
        stack_draw2_on_draw2=True, stack_draw4_on_draw2=True, stack_draw4_on_draw4=True,
        stack_draw2_on_draw4="matching_color", challenge_guilty="retract",
        finish_on_action="forbidden_draw1", scoring="zero_sum", feed_penalty=20,
    ),
    "draw_return": dict(
        stack_draw2_on_draw2=True, stack_draw4_on_draw4=True, stack_no_mixing=True,
        stack_reverse=True, stack_skip="skip_next", wd4_restriction="none", challenge=False,
        multi_play="identical", multi_effects_add=True, uno_to_finish=True,
        scoring="zero_sum",
    ),
    "house_dobon": dict(
        dobon=True, multi_skip="each", points="house", scoring="zero_sum",
        draw_rule="one_then_pass", stack_draw2_on_draw2=True, stack_draw4_on_draw4=True,
        stack_wild_cancels=True, wd4_restriction="none", challenge=False, multi_play="same_kind",
        multi_effects_add=True, finish_on_action="forbidden_draw1",
    ),
    "computer": dict(stack_draw2_on_draw2=True, stack_draw4_on_draw4=True,
                     challenge_on_stack=True, jump_in=True, seven_zero=True),
    "last_standing": dict(end="last_standing", scoring="rank"),
    "no_mercy": dict(
        deck="no_mercy168", stack_by_value=True, seven_zero=True,
        draw_rule="until_playable_must_play", first_card="redraw_non_number", challenge=False,
        mercy_limit=25,
    ),
    "teams": dict(teams=True, num_players=4),
}

#: Where each preset comes from.
PRESET_SOURCES: dict[str, str] = {
    "official": "the international instruction sheet",
    "official_jp": "the Japanese instruction sheet and a 2013 magazine article",
    "federation": "the Japan UNO Federation 'official original' rules",
    "draw_return": "the draw-return (Draw返し) extension page",
    "house_dobon": "a family house-rule page",
    "computer": "licensed video-game conventions",
    "last_standing": "the Federation 'last & top' rules",
    "no_mercy": "UNO Show 'Em No Mercy",
    "teams": "the 2-vs-2 mobile-game mode",
}

#: The engine's decisions where the rules leave a point open, by the option they concern.
DECISIONS: dict[str, str] = {
    "always": "the first card acts as if the player before the starter had played it; a "
              "turned-up Reverse lets that player start counter-clockwise",
    "draw_keep_going": "drawing on after a playable card shows draws until the next one; "
                       "only the last card drawn may then be played",
    "wd4_restriction": "under 'playable', another Wild Draw Four does not count as a "
                       "playable card",
    "challenge_guilty": "retract: the offender takes back every Wild Draw Four of the play, "
                        "draws the pending total and must play a card "
                        "they held when they played the Wild Draw Four (none drawn "
                        "since), legal on the previous top and color (if a "
                        "reshuffle took that top card away, the offender draws instead)",
    "stack_draw4_on_draw2": "a Wild Draw Four answering a pending draw is not "
                            "challengeable (unless challenge_on_stack)",
    "uno_penalty": "the call is checked when a turn's cards are down; the next player to "
                   "act may catch, before its own move, until the next card is played or "
                   "drawn (a penalty's victim may catch before drawing); no catch by a "
                   "player not to act, no grace period",
    "uno_to_finish": "without the call a multi-card play may not lay the last card",
    "declare_on_finish": "the uno call declares going out too; undeclared, the player "
                         "draws the penalty and the round goes on",
    "single_card_finish": "a multi-card play ends when one card is left: the last card is "
                          "always laid alone, on a later turn",
    "multi_play": "a multi-card play is a sequence of decisions ('play' to add, 'pass' to "
                  "end); it ends by itself when no card may be added (a last card "
                  "finish_on_action forbids included); 7-0 applies once, for the last "
                  "card; under same_number plain Wilds group only under scoring='none'; "
                  "Wild Draw Fours laid together are challenged as one play, judged on "
                  "the hand that laid the first",
    "target_score": "target_score=0 sets no points target: only the rounds limit ends a "
                    "match",
    "multi_effects_add": "draw values add, Reverses flip once per card, Skips count per "
                         "multi_skip",
    "stack_draw2_on_draw2": "a penalty is a decision only if the victim holds an answer; "
                            "answers are judged against the chain's last draw card and "
                            "must match the top card by color or kind",
    "stack_no_mixing": "disables the mixed answers",
    "stack_wild_cancels": "a plain Wild ends the chain and the next player takes a turn",
    "finish_on_action": "a last card that is an action or wild may not be played; 'draw' "
                        "then draws the penalty and ends the turn",
    "skip_answers_skip": "the skipped player answers in the respond phase with nothing to "
                         "draw ('pass' accepts the skip); only a single Skip is answered",
    "jump_in": "offered in turn order; the jumped card's effect is cancelled, its draws "
               "stay only where stacking that card is allowed; no jump on a card that went "
               "out",
    "dobon": "the declaring hand needs two or more cards, not only Draw Two/Reverse/Skip; "
             "the loser's hand counts double; a pending draw is void; under last_standing "
             "the declarer takes the best free place, the loser the worst, the others share "
             "the places between",
    "mercy_limit": "eliminated cards go under the draw pile in random order; later "
                   "eliminations get better places",
    "end": "under last_standing the winner is the first out (or the last one standing); "
           "a round cut by max_turns after someone went out ends there, the players still "
           "in sharing the remaining places",
    "draw_return_winner": "the losers are charged their own hands under any winner "
                          "option; 'fixed' gives the winner minus draw_return_winner_points",
    "scoring": "points never count the winner's own hand; card_count counts cards like "
               "winner_takes_sum; rank gives P-1-place",
    "teams": "the partner's hand does not count; both partners share the team reward",
    "roulette_color": "the turned-over cards are not a penalty: they close the UNO catch "
                      "window like any draw",
    "zero_open": "the hand shown on a 0 is the one left after the play (later cards of a "
                 "multi-card play leave it); the table sees those cards until they leave "
                 "the hand (a card of a shown kind played counts as a shown one; a "
                 "passed or swapped hand stays shown, a shuffled or eliminated one does "
                 "not); cards drawn later are not shown",
    "seven_zero": "a 0 passes hands among the players still in, in the current direction; "
                  "a 7 or 0 that goes out swaps or passes none",
}


def played_at(presets: list[str], players: tuple[int, ...]) -> list[tuple[str, int]]:
    """``(preset, players)`` for every preset of ``presets`` at every count of ``players``
    its rules allow (``teams`` is played at 4 only), in that order."""
    out = []
    for preset in presets:
        for n in players:
            try:
                Rules.preset(preset, num_players=n)
            except ValueError:
                continue
            out.append((preset, n))
    return out
