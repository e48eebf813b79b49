"""Generate docs/observation.md and docs/actions.md from the code.

The tables come from ``uno_env.engine.observe.VIEWS`` and ``uno_env.actions``,
so they cannot drift from the environment; ``tests/test_docs.py`` regenerates
them and fails when the committed files differ.

    python docs/gen_docs.py           # write both files
    python docs/gen_docs.py --check   # exit 1 if a file is out of date
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path

from uno_env.actions import (
    ACTION_NAMES,
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DOBON,
    DRAW,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    PASS,
    PLAY_WILD_BASE,
    TARGET_BASE,
    UNO,
)
from uno_env.cards import (
    COLOR_NAMES,
    COLORED_SYMBOLS,
    COLORS,
    KIND_NAMES,
    NUM_COLORED_KINDS,
    NUM_KINDS,
    WILD_SYMBOLS,
)
from uno_env.engine import observe as observe_module
from uno_env.engine.observe import (
    NUM_SYMBOLS,
    OBS_SIZE,
    OBSERVATION_VERSION,
    OTHERS,
    RULES_SIZE,
    VIEW_SLICES,
    VIEWS,
    observation_bounds,
)
from uno_env.engine.packed import SCALARS, SCORE_SHIFT, SEAT_NUMBERS, packed_size
from uno_env.engine.state import PHASE_NAMES
from uno_env.rules import CHOICES, MAX_PLAYERS, Rules

DOCS = Path(__file__).resolve().parent

OBSERVATION_HISTORY = f"""\
## Version history

`uno_env.engine.observe.OBSERVATION_VERSION` is the layout's version (now
{OBSERVATION_VERSION}).

- **v3**: the `rules` view gains the option `zero_open` (87 -> {RULES_SIZE} numbers),
  and the view `shown_hands` ({OTHERS} x {NUM_KINDS}: the cards each opponent showed on
  playing a 0 under `zero_open` and still holds) is appended; the views after
  `rules` move by one place; 858 -> {OBS_SIZE} numbers. A network or policy of an
  earlier version reads the views it was trained on by name (`uno_agents.net.layout_columns`,
  `uno_agents.policy.RULES_VIEW_VERSIONS`), without the new columns.
- **v2**: the `rules` view gains the options `draw_return_winner`,
  `draw_return_winner_points`, `draw_keep_going`, `single_card_finish`,
  `declare_on_finish` and `skip_answers_skip` (79 -> 87 numbers); the
  views after `rules` move by as many places; 858 numbers. A policy
  trained on an earlier version reads today's observation without the added
  columns (`uno_agents.policy.RULES_VIEW_VERSIONS`).
- **v1** (package 0.1.0): the public-memory views (`drew_on`, `last_played_color`,
  `last_played_symbol`, `last_named`, `wd4_after_draw`) appended after `rules`,
  and the `rules` view gains the options `uno_to_finish` and `roulette_color` (76
  -> 79 numbers); every view before `rules` keeps its offset and meaning; 505 ->
  850 numbers.
- **v0** (`uno_v0`, package 0.1.0): first release, 505 numbers.
"""

ACTIONS_HISTORY = """\
## Version history

- **v0** (`uno_v0`, package 0.1.0): first release.
"""

_SPECIAL_ACTIONS = {
    DRAW: "draw a card; facing a draw penalty: accept it and draw the cards",
    PASS: "keep the drawn card and end the turn; end a multi-card play; decline an offer",
    CHALLENGE: "challenge the Wild Draw Four just played",
    UNO: "call UNO before playing down to one card",
    CATCH: "catch the previous player who did not call UNO (they draw the penalty)",
    DOBON: "declare Dobon (house rule): the played card completes your hand total",
}


_SYMBOL_NAMES = {"S": "Skip", "R": "Reverse", "D2": "Draw Two", "D4": "Draw Four",
                 "SE": "Skip Everyone", "DA": "Discard All", "W": "Wild", "WD4": "Wild Draw Four",
                 "WSH": "Wild Swap Hands", "WSF": "Wild Shuffle Hands",
                 "WCU": "Wild Customizable", "WRD4": "Wild Reverse Draw Four",
                 "WD6": "Wild Draw Six", "WD10": "Wild Draw Ten", "WCR": "Wild Color Roulette"}


def _card_text(kind: int) -> str:
    """``red Skip`` for ``RS``: a card's name in words."""
    name = KIND_NAMES[kind]
    if kind >= NUM_COLORED_KINDS:
        return _SYMBOL_NAMES[name]
    color, symbol = COLOR_NAMES[COLORS.index(name[0])], name[1:]
    return f"{color} {_SYMBOL_NAMES.get(symbol, symbol)}"


def _fmt(x: float) -> str:
    return f"{x:g}"


def _rules_elements() -> list[tuple[str, str]]:
    """(element, meaning) of every number in the ``rules`` view, in order."""
    scale = getattr(observe_module, "_INT_SCALE", {})
    out: list[tuple[str, str]] = []
    for f in fields(Rules):
        default = getattr(Rules(), f.name)
        if f.name in CHOICES:
            out += [(f"{f.name}={c}", "1 if the option has this value")
                    for c in CHOICES[f.name]]
        elif isinstance(default, bool):
            out.append((f.name, "1 if on"))
        else:
            out.append((f.name, f"value / {scale.get(f.name, 1)}"))
    if len(out) != RULES_SIZE:
        raise RuntimeError(f"the rules view has {RULES_SIZE} numbers but {len(out)} were "
                           "described; update docs/gen_docs.py with rules_vector")
    return out


def observation_md() -> str:
    """The text of docs/observation.md."""
    low, high = observation_bounds()
    lines = [
        "# Observation",
        "",
        "<!-- Generated by docs/gen_docs.py from uno_env/engine/observe.py; do not edit. -->",
        "",
        f"Every player observes one flat `float32` vector of **{OBS_SIZE}** numbers. The",
        "layout is the same for every preset and every player count (2-10), so one",
        "policy can play them all. It is egocentric: seats are listed clockwise starting",
        "with the seat after the observer (seat offset 1, 2, ...), padded to the",
        f"{MAX_PLAYERS}-player maximum. Nothing hidden from the observer is in it.",
        "",
        "`uno_env.engine.observe.VIEW_SLICES[name]` is the slice of a view, e.g.",
        "`obs[..., VIEW_SLICES[\"hand\"]]`. The PettingZoo environment returns the vector",
        "under `\"observation\"` with the legal actions under `\"action_mask\"` (`int8`,",
        "all zeros for a player who is not acting); the range column is the bound of",
        "its observation space.",
        "",
        "## Views",
        "",
        "| view | offset | size | range | meaning |",
        "|---|---:|---:|---|---|",
    ]
    for name, size, meaning in VIEWS:
        view = VIEW_SLICES[name]
        rng = f"{_fmt(low[view].min())} .. {_fmt(high[view].max())}"
        lines.append(f"| `{name}` | {view.start} | {size} | {rng} | {meaning} |")
    lines += [
        "",
        f"Total: {OBS_SIZE}.",
        "",
        "## Index tables",
        "",
        f"Views of size {NUM_KINDS} (`hand`, `top`, `drawn`, `discards`, `partner_hand`) are",
        "indexed by card kind:",
        "",
        "| kinds | cards |",
        "|---|---|",
    ]
    for start in range(0, NUM_COLORED_KINDS, 16):
        cards = " ".join(f"`{KIND_NAMES[k]}`" for k in range(start, start + 16))
        lines.append(f"| {start}-{start + 15} | {cards} |")
    wilds = " ".join(f"`{KIND_NAMES[k]}`" for k in range(NUM_COLORED_KINDS, NUM_KINDS))
    lines += [
        f"| {NUM_COLORED_KINDS}-{NUM_KINDS - 1} | {wilds} |",
        "",
        "`color`: " + ", ".join(f"{i} = {n}" for i, n in enumerate(COLOR_NAMES)) + ".",
        "",
        "`phase`: " + ", ".join(f"{i} = `{n}`" for i, n in enumerate(PHASE_NAMES)) + ".",
        "",
        "`acting_seat` and `scores`: index 0 is the observer, index k the seat k places",
        "clockwise. `hand_sizes`, `seats_present` and `uno_exposed`: index k - 1 is the",
        "seat k places clockwise.",
        "",
        "## What a player remembers",
        "",
        "The last views are the table's public memory of the current round, kept by the",
        "engine from public events only and forgotten when a round is dealt. Each has one",
        f"row per opponent seat ({OTHERS} rows, row k - 1 for the seat k places clockwise,",
        "zeros where there is no seat), stored row after row;",
        "`uno_env.engine.observe.seat_view(obs, name)` gives one as `[..., 9, columns]`:",
        "",
        "| view | columns per seat | updated when the seat ... |",
        "|---|---:|---|",
        f"| `drew_on` | {len(COLORS)} (colors) | draws a card by choice or because it cannot "
        "play (the `draw` action on its turn, not a penalty): the current color is set; "
        "it plays a card: all cleared |",
        f"| `last_played_color` | {len(COLORS)} (colors) | plays a card: its color "
        "(none for a wild) |",
        f"| `last_played_symbol` | {NUM_SYMBOLS} (symbols) | plays a card: its symbol |",
        f"| `last_named` | {len(COLORS)} (colors) | plays a wild, or names the color of a wild "
        "turned up as the first card: that color |",
        "| `wd4_after_draw` | 1 | plays a Wild Draw Four: 1 if the color it replaced is set "
        "in the seat's `drew_on` |",
        f"| `shown_hands` | {NUM_KINDS} (card kinds) | under `zero_open`, plays a 0: the "
        "cards of each kind left in its hand; plays or discards a card of a shown kind: "
        "one (a Discard All: all) fewer; zeros when the option is off |",
        "",
        "Symbols: " + ", ".join(f"{i} = `{s}`" for i, s in enumerate(COLORED_SYMBOLS))
        + ", then the wilds " + ", ".join(
            f"{len(COLORED_SYMBOLS) + i} = `{s}`" for i, s in enumerate(WILD_SYMBOLS)) + ".",
        "",
        "A seat that drew when red was current and has not played since probably holds",
        "no red card (unless the draw rules made it draw while it could play), and a",
        "Wild Draw Four from it on red is then probably legal. `drew_on` describes a",
        "hand: when hands change seats (Seven-O's 7 and 0, Wild Swap Hands) it moves with them,",
        "and it is cleared when hands are shuffled together (Wild Shuffle Hands).",
        "`shown_hands` describes a hand too and moves and clears the same way; cards the",
        "seat draws after showing are not shown (docs/rules.md, `zero_open`). The other",
        "views describe what the seat did and stay with the seat.",
        "",
        "## The `rules` view",
        "",
        "The rule options as numbers (`uno_env.engine.observe.rules_vector`): one-hot for",
        "options with a fixed set of values, 0/1 for switches, scaled integers.",
        "",
        "| index | element | meaning |",
        "|---:|---|---|",
    ]
    start = VIEW_SLICES["rules"].start
    for i, (element, meaning) in enumerate(_rules_elements()):
        lines.append(f"| {start + i} | `{element}` | {meaning} |")
    lines += ["", *_packed_lines(), "", OBSERVATION_HISTORY]
    return "\n".join(lines)


def _packed_lines() -> list[str]:
    """The section on the packed observation (``uno_env.engine.packed``)."""
    official = Rules.preset("official", num_players=4)
    lines = [
        "## Packed observation",
        "",
        "`observe_packed(engine, players, games)` (`uno_env.engine.packed_rows`) returns the",
        "same facts as `observe` in",
        "`int16`: each count as a count, each one-hot as the index it marks, each seat's",
        "`drew_on` as bits, the `rules` view left out (it is a constant of the engine), and",
        "only the seats the rules have. Under the official rules at 4 players a row is",
        f"{packed_size(official)} numbers ({2 * packed_size(official)} bytes) against "
        f"{OBS_SIZE} float32 ({4 * OBS_SIZE:,} bytes).",
        "`uno_env.engine.packed.unpack(rows, rules)` turns packed rows into the layout",
        "above, bit for bit what `observe` returns (tested on every preset at 2, 4 and 10",
        "players, on both backends). It is for loops that step thousands of games and",
        "keep, send or batch the observations before a policy builds the float view",
        "(docs/benchmarks.md has what it saves); the environments keep the float layout.",
        "",
        "The layout of a row depends on the rules (`packed_views(rules)` gives each view's",
        "slice, `packed_size(rules)` the length); P is the player count:",
        "",
        "| view | size | holds |",
        "|---|---:|---|",
        f"| `hand` | {NUM_KINDS} | cards of each kind in the observer's hand |",
        f"| `discards` | {NUM_KINDS} | cards of each kind in the discard pile |",
    ]
    lines += [f"| `{name}` | 1 | {meaning} |" for name, meaning in SCALARS]
    lines += [f"| `{name}` | P - 1 | per seat at offsets 1..P-1: {meaning} |"
              for name, meaning in SEAT_NUMBERS]
    lines += [
        f"| `scores_high`, `scores_low` | P each | match scores, observer first: "
        f"`score >> {SCORE_SHIFT}` and `score & {(1 << SCORE_SHIFT) - 1}` |",
        f"| `partner_hand` | {NUM_KINDS} | team play only: the partner's hand |",
        f"| `shown_hands` | (P - 1) x {NUM_KINDS} | `zero_open` only: per seat, the cards "
        "it showed and still holds |",
    ]
    return lines


def _action_meaning(a: int) -> str:
    if a < NUM_COLORED_KINDS:
        return f"play {_card_text(a)}"
    if a < NUM_PLAY_ACTIONS:
        w, c = divmod(a - PLAY_WILD_BASE, len(COLORS))
        return f"play {_card_text(NUM_COLORED_KINDS + w)} choosing {COLOR_NAMES[c]}"
    if a in _SPECIAL_ACTIONS:
        return _SPECIAL_ACTIONS[a]
    if COLOR_BASE <= a < TARGET_BASE:
        return (f"choose {COLOR_NAMES[a - COLOR_BASE]} when a color is asked for outside a "
                "wild play (e.g. a Wild turned up as the first card)")
    k = a - TARGET_BASE + 1
    return (f"choose the player {k} seat{'s' if k > 1 else ''} clockwise (target of a hand "
            "swap: Seven-O, Wild Swap Hands)")


def actions_md() -> str:
    """The text of docs/actions.md."""
    lines = [
        "# Actions",
        "",
        "<!-- Generated by docs/gen_docs.py from uno_env/actions.py; do not edit. -->",
        "",
        f"One `Discrete({NUM_ACTIONS})` action space serves every preset and every player",
        "count; a preset only changes which ids can ever be legal. The legal ids of a",
        "decision are the `action_mask` of the observation (`Engine.legal_action_mask()`).",
        "Names convert with `uno_env.action_id(name)` and `uno_env.action_name(id)`.",
        "",
        "| ids | group |",
        "|---|---|",
        f"| 0-{NUM_COLORED_KINDS - 1} | play a colored card (id = card kind) |",
        f"| {PLAY_WILD_BASE}-{NUM_PLAY_ACTIONS - 1} | play a wild card and choose its color |",
        f"| {DRAW}-{DOBON} | draw, pass, challenge, uno, catch, dobon |",
        f"| {COLOR_BASE}-{TARGET_BASE - 1} | choose a color |",
        f"| {TARGET_BASE}-{NUM_ACTIONS - 1} | choose a target seat |",
        "",
        "## Every action",
        "",
        "| id | name | meaning |",
        "|---:|---|---|",
    ]
    for a, name in enumerate(ACTION_NAMES):
        lines.append(f"| {a} | `{name}` | {_action_meaning(a)} |")
    lines += ["", ACTIONS_HISTORY]
    return "\n".join(lines)


def generated() -> dict[Path, str]:
    """Every generated file and its text."""
    return {DOCS / "observation.md": observation_md(), DOCS / "actions.md": actions_md()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the files are current")
    args = parser.parse_args(argv)
    stale = []
    for path, text in generated().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(DOCS.parent)}")
    if args.check and stale:
        names = ", ".join(str(p.relative_to(DOCS.parent)) for p in stale)
        print(f"out of date: {names}; run python docs/gen_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
