"""Pictures of a table: colored text (``ansi``) and an RGB image (``rgb_array``).

Both show one game of an :class:`~uno_env.Engine` as one player sees it: the
top card, the current color, the direction, a pending draw, the decision phase,
the acting player, every seat's hand size, and the cards of the ``viewer``
(default: the acting player). They read the engine's state and never change it.

The image needs Pillow (the ``render`` extra), imported only when an image is
asked for, so text rendering works without it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..cards import COLOR_NAMES, COLORED_SYMBOLS, COLORS, KIND_COLOR, KIND_ID, NUM_COLORED_KINDS
from ..engine import Engine

# --- what both renderers show ---------------------------------------------------------------

_ANSI_RESET = "\x1b[0m"
#: Card faces in the terminal: bold text on the card's color (wilds on dark grey).
_ANSI_CARD = {"R": "\x1b[1;97;41m", "Y": "\x1b[1;30;43m", "G": "\x1b[1;97;42m",
              "B": "\x1b[1;97;44m", "W": "\x1b[1;97;100m"}
_ANSI_TEXT = {"R": "\x1b[1;31m", "Y": "\x1b[1;33m", "G": "\x1b[1;32m", "B": "\x1b[1;34m"}


def _seat_name(seat: int) -> str:
    return f"player_{seat}"


def table_facts(engine: Engine, game: int = 0, viewer: int | None = None) -> dict[str, Any]:
    """Everything a picture of the table shows, read from the engine's state (the text
    and image renderers here and the web page of :mod:`uno_env.web` show these facts)."""
    s = engine.state
    num_players = engine.num_players
    if not 0 <= game < engine.num_games:
        raise ValueError(f"game {game} is out of range 0-{engine.num_games - 1}")
    acting = int(s.current[game])
    viewer = acting if viewer is None else int(viewer)
    if not 0 <= viewer < num_players:
        raise ValueError(f"viewer must be a seat 0-{num_players - 1}, got {viewer}")
    done, truncated = bool(s.done[game]), bool(s.truncated[game])
    winner = int(s.winner[game])
    return {
        "num_players": num_players,
        "top": engine.top_card(game),
        "color": engine.current_color(game),
        "direction": int(s.direction[game]),
        "pending": int(s.pending[game]),
        "phase": engine.phase_name(game),
        "acting": acting,
        "viewer": viewer,
        "dealer": int(s.dealer[game]),
        "exposed": int(s.uno_offender[game]),
        "hand_sizes": [int(n) for n in s.hand_size[game]],
        "scores": [int(n) for n in s.scores[game]],
        "match": engine.rules.match,
        "hand": engine.hand(game, viewer),
        "draw_pile": int(s.deck_len[game] - s.deck_pos[game]),
        "discards": int(s.discard[game].sum()),
        "turns": int(s.turns[game]),
        "done": done,
        "truncated": truncated,
        "winner": winner,
    }


def _card_color(card: str) -> str:
    """``R``/``Y``/``G``/``B`` for a colored card, ``W`` for a wild."""
    kind = KIND_ID[card]
    return "W" if KIND_COLOR[kind] < 0 else COLORS[int(KIND_COLOR[kind])]


def _status(t: dict[str, Any]) -> str:
    if t["truncated"]:
        return "round truncated (max_turns reached)"
    if t["done"]:
        return f"game over: {_seat_name(t['winner'])} wins" if t["winner"] >= 0 else "game over"
    return f"{_seat_name(t['acting'])} to act ({t['phase']})"


def _direction_text(direction: int) -> str:
    return "clockwise" if direction > 0 else "counter-clockwise"


# --- ansi -------------------------------------------------------------------------------------

def ansi_card(card: str, color: bool = True) -> str:
    """One card as ``[ R5 ]``-style text, in its color when ``color`` is set."""
    if not color:
        return f"[{card}]"
    return f"{_ANSI_CARD[_card_color(card)]} {card} {_ANSI_RESET}"


def render_ansi(engine: Engine, game: int = 0, viewer: int | None = None,
                color: bool = True) -> str:
    """The table of ``game`` as text with ANSI colors, seen by seat ``viewer``.

    ``viewer=None`` shows the acting player's hand. ``color=False`` gives plain
    text (for logs). Every other seat shows only its hand size.
    """
    t = table_facts(engine, game, viewer)

    def paint(text: str, letter: str) -> str:
        return f"{_ANSI_TEXT[letter]}{text}{_ANSI_RESET}" if color else text

    arrow = "->" if t["direction"] > 0 else "<-"
    lines = [
        f"UNO, {t['num_players']} players, decision {t['turns']}: {_status(t)}",
        f"  top card      {ansi_card(t['top'], color)}   current color "
        f"{paint(COLOR_NAMES[COLORS.index(t['color'])], t['color'])}",
        f"  direction     {_direction_text(t['direction'])} ({arrow})"
        f"   pending draw {t['pending']}   phase {t['phase']}",
        f"  draw pile     {t['draw_pile']}   discards {t['discards']}",
        "  seats:",
    ]
    for seat in range(t["num_players"]):
        marks = []
        if seat == t["acting"] and not t["done"]:
            marks.append("acting")
        if seat == t["viewer"]:
            marks.append("viewer")
        if seat == t["dealer"]:
            marks.append("dealer")
        if seat == t["exposed"]:
            marks.append("did not call UNO")
        if t["done"] and seat == t["winner"]:
            marks.append("winner")
        if t["match"]:
            marks.append(f"score {t['scores'][seat]}")
        pointer = ">" if seat == t["acting"] and not t["done"] else " "
        size = t["hand_sizes"][seat]
        lines.append(f"  {pointer} {_seat_name(seat):<10} {size:>3} card{'s' if size != 1 else ' '}"
                     + (f"   {', '.join(marks)}" if marks else ""))
    cards = " ".join(ansi_card(c, color) for c in t["hand"]) or "(no cards)"
    lines.append(f"  hand of {_seat_name(t['viewer'])}: {cards}")
    return "\n".join(lines)


# --- the envs' render modes ------------------------------------------------------------------

#: The render modes of the Gymnasium env and the batched envs (one learner's table).
ENV_RENDER_MODES = ("ansi", "rgb_array")


def check_render_mode(render_mode: object) -> None:
    """``ValueError`` naming ``render_mode`` unless it is None or one of
    :data:`ENV_RENDER_MODES`."""
    if render_mode is not None and render_mode not in ENV_RENDER_MODES:
        raise ValueError(f"render_mode {render_mode!r} is not one of "
                         f"{', '.join(map(repr, ENV_RENDER_MODES))} (or None)")


def render_frame(render_mode: str | None, engine: Engine, game: int = 0,
                 viewer: int | None = None) -> str | np.ndarray | None:
    """``game`` seen by ``viewer`` in ``render_mode``: text for ``ansi``, a picture for
    ``rgb_array``; None (with Gymnasium's warning) without a render mode."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode: pass render_mode= "
                              "('ansi' or 'rgb_array') when making the env")
        return None
    if render_mode == "rgb_array":
        return render_rgb(engine, game, viewer)
    return render_ansi(engine, game, viewer)


# --- rgb_array --------------------------------------------------------------------------------

WIDTH, HEIGHT = 960, 600
_FELT = (22, 92, 54)
_PANEL = (16, 66, 39)
_WHITE = (255, 255, 255)
_BLACK = (24, 24, 24)
_HIGHLIGHT = (255, 214, 64)
_RGB = {"R": (214, 40, 57), "Y": (245, 200, 20), "G": (52, 160, 72), "B": (25, 100, 190),
        "W": _BLACK}
#: Text in the middle of a card, by symbol (numbers show their digit).
_CENTER_LABEL = {"S": "SKIP", "R": "REV", "D2": "+2", "D4": "+4", "SE": "SKIP\nALL",
                 "DA": "DISC\nALL", "W": "WILD", "WD4": "+4", "WSH": "SWAP", "WSF": "SHUF",
                 "WCU": "WILD", "WRD4": "REV\n+4", "WD6": "+6", "WD10": "+10", "WCR": "ROUL"}


def _pillow() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise ImportError("rgb_array rendering needs Pillow: pip install 'uno-env[render]'"
                          ) from err
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=32)
def _font(size: int) -> Any:
    _, _, image_font = _pillow()
    try:
        return image_font.load_default(size=size)
    except TypeError:  # Pillow < 10.1: a fixed-size bitmap font
        return image_font.load_default()


def _text_size(draw: Any, text: str, font: Any) -> tuple[int, int]:
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font, align="center")
    return right - left, bottom - top


def _text_center(draw: Any, cx: float, cy: float, text: str, font: Any, fill: tuple,
                 stroke: int = 0) -> None:
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font, align="center",
                                                       stroke_width=stroke)
    x = cx - (right - left) / 2 - left
    y = cy - (bottom - top) / 2 - top
    draw.multiline_text((x, y), text, font=font, fill=fill, align="center", stroke_width=stroke,
                        stroke_fill=_BLACK)


def _fit_font(draw: Any, text: str, max_w: float, max_h: float, start: int) -> Any:
    size = start
    while size > 8:
        w, h = _text_size(draw, text, _font(size))
        if w <= max_w and h <= max_h:
            break
        size -= 2
    return _font(size)


def _center_label(card: str) -> str:
    kind = KIND_ID[card]
    symbol = card if kind >= NUM_COLORED_KINDS else COLORED_SYMBOLS[kind % len(COLORED_SYMBOLS)]
    return _CENTER_LABEL.get(symbol, symbol)


def draw_card(draw: Any, x: float, y: float, w: float, card: str | None) -> None:
    """A card of width ``w`` (height 1.5 w) at ``(x, y)``; ``None`` draws a card back."""
    h = 1.5 * w
    radius = max(3, int(w * 0.14))
    letter = "W" if card is None else _card_color(card)
    draw.rounded_rectangle((x, y, x + w, y + h), radius, fill=_WHITE)
    inset = max(2, int(w * 0.06))
    box = (x + inset, y + inset, x + w - inset, y + h - inset)
    draw.rounded_rectangle(box, max(2, radius - inset), fill=_RGB[letter])
    oval = (x + w * 0.16, y + h * 0.2, x + w * 0.84, y + h * 0.8)
    if card is None:
        draw.ellipse(oval, fill=_RGB["R"])
        font = _fit_font(draw, "UNO", w * 0.6, h * 0.3, int(w * 0.4))
        _text_center(draw, x + w / 2, y + h / 2, "UNO", font, _RGB["Y"], stroke=1)
        return
    if letter == "W":
        for i, c in enumerate(("R", "Y", "G", "B")):
            draw.pieslice(oval, 180 + 90 * i, 270 + 90 * i, fill=_RGB[c])
        label_fill, stroke = _WHITE, max(1, int(w / 30))
    else:
        draw.ellipse(oval, fill=_WHITE)
        label_fill, stroke = _RGB[letter], 0
    label = _center_label(card)
    font = _fit_font(draw, label, w * 0.62, h * 0.5, int(w * 0.5))
    _text_center(draw, x + w / 2, y + h / 2, label, font, label_fill, stroke=stroke)
    corner = _font(max(8, int(w * 0.2)))
    draw.text((x + inset + 2, y + inset + 1), card, font=corner, fill=_WHITE)


def _hand_layout(n: int, area_w: float, area_h: float) -> tuple[float, int, int]:
    """``(card width, cards per row, cards shown)`` to fit ``n`` cards in an area."""
    for w in (72, 64, 56, 48, 40, 34, 28):
        gap = max(4.0, w * 0.12)
        per_row = int((area_w + gap) // (w + gap))
        rows = int((area_h + gap) // (1.5 * w + gap))
        if per_row * rows >= n:
            return w, per_row, n
    return w, per_row, per_row * rows - 1


def render_rgb(engine: Engine, game: int = 0, viewer: int | None = None) -> np.ndarray:
    """``uint8[600, 960, 3]``: a picture of the table of ``game`` seen by seat ``viewer``.

    Seats run along the top (the acting one outlined, arrows showing the
    direction of play), the draw pile, top card, current color and pending draw
    in the middle, and the viewer's hand (default: the acting player's) below.
    """
    image_mod, draw_mod, _ = _pillow()
    t = table_facts(engine, game, viewer)
    img = image_mod.new("RGB", (WIDTH, HEIGHT), _FELT)
    d = draw_mod.Draw(img)

    # header
    d.rectangle((0, 0, WIDTH, 40), fill=_PANEL)
    d.text((16, 10), f"UNO  {t['num_players']} players  decision {t['turns']}", font=_font(18),
           fill=_WHITE)
    status = _status(t)
    sw, _ = _text_size(d, status, _font(18))
    d.text((WIDTH - 16 - sw, 10), status, font=_font(18),
           fill=_HIGHLIGHT if t["done"] else _WHITE)

    # seats
    p = t["num_players"]
    gap = 14
    box_w = min(120.0, (WIDTH - 32 - gap * (p - 1)) / p)
    x0 = (WIDTH - (p * box_w + (p - 1) * gap)) / 2
    y0, box_h = 54, 78
    for seat in range(p):
        x = x0 + seat * (box_w + gap)
        acting = seat == t["acting"] and not t["done"]
        outline = _HIGHLIGHT if acting else (_WHITE if seat == t["viewer"] else _PANEL)
        d.rounded_rectangle((x, y0, x + box_w, y0 + box_h), 8, fill=_PANEL, outline=outline,
                            width=3 if acting else 2)
        name_font = _fit_font(d, _seat_name(seat), box_w - 10, 18, 16)
        _text_center(d, x + box_w / 2, y0 + 14, _seat_name(seat), name_font, _WHITE)
        size = t["hand_sizes"][seat]
        _text_center(d, x + box_w / 2, y0 + 38, f"{size} card{'s' if size != 1 else ''}",
                     _fit_font(d, "99 cards", box_w - 10, 18, 16), _WHITE)
        marks = []
        if seat == t["dealer"]:
            marks.append("dealer")
        if seat == t["exposed"]:
            marks.append("UNO?")
        if t["done"] and seat == t["winner"]:
            marks.append("WINNER")
        if t["match"]:
            marks.append(str(t["scores"][seat]))
        if marks:
            text = " ".join(marks)
            _text_center(d, x + box_w / 2, y0 + 61, text,
                         _fit_font(d, text, box_w - 8, 16, 14), _HIGHLIGHT)
        if seat < p - 1:  # an arrow to the next seat, pointing the way play goes
            ax, ay = x + box_w + gap / 2, y0 + box_h / 2
            s = t["direction"] * 5
            d.polygon([(ax + s, ay), (ax - s, ay - 6), (ax - s, ay + 6)], fill=_WHITE)

    # middle: draw pile, top card, color, direction, pending draw
    mid_y = 160
    draw_card(d, 250, mid_y, 100, None)
    _text_center(d, 300, mid_y + 168, f"draw pile: {t['draw_pile']}", _font(16), _WHITE)
    draw_card(d, 390, mid_y, 100, t["top"])
    _text_center(d, 440, mid_y + 168, "top card", _font(16), _WHITE)
    cx, cy = 600, mid_y + 45
    d.ellipse((cx - 32, cy - 32, cx + 32, cy + 32), fill=_RGB[t["color"]], outline=_WHITE,
              width=3)
    _text_center(d, cx, cy + 52, f"color: {COLOR_NAMES[COLORS.index(t['color'])]}", _font(16),
                 _WHITE)
    info = [f"direction: {_direction_text(t['direction'])}",
            f"phase: {t['phase']}",
            f"pending draw: {t['pending']}" if t["pending"] else "no pending draw",
            f"discards: {t['discards']}"]
    for i, line in enumerate(info):
        d.text((680, mid_y + 10 + 30 * i), line, font=_font(18),
               fill=_HIGHLIGHT if line.startswith("pending") else _WHITE)

    # the viewer's hand
    hand = t["hand"]
    role = " (acting)" if t["viewer"] == t["acting"] and not t["done"] else ""
    d.text((20, 372), f"hand of {_seat_name(t['viewer'])}{role}: {len(hand)} "
           f"card{'s' if len(hand) != 1 else ''}", font=_font(18), fill=_WHITE)
    area_x, area_y, area_w, area_h = 20, 402, WIDTH - 40, HEIGHT - 402 - 10
    w, per_row, shown = _hand_layout(len(hand), area_w, area_h)
    gap_c = max(4.0, w * 0.12)
    for i, card in enumerate(hand[:shown]):
        row, col = divmod(i, per_row)
        draw_card(d, area_x + col * (w + gap_c), area_y + row * (1.5 * w + gap_c), w, card)
    if shown < len(hand):
        d.text((WIDTH - 140, HEIGHT - 30), f"+{len(hand) - shown} more", font=_font(18),
               fill=_HIGHLIGHT)
    return np.asarray(img, dtype=np.uint8).copy()
