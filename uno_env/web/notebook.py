"""A game record shown in a notebook: the replay of the web page, inline.

``ReplayDisplay(record)`` is displayed by Jupyter as HTML: the table of every position
drawn by the page's own script (``static/table.js``) with buttons to step forwards and
backwards, every hand shown or one seat's view (``viewer``). Where a notebook viewer runs
no scripts, the final position shows as text. Needs nothing beyond the core package.
"""

from __future__ import annotations

import html
import json
import secrets
from pathlib import Path
from typing import Any

from ..envs.render import render_ansi
from ..records import GameRecord, load_record, replay
from .view import replay_frames

STATIC = Path(__file__).resolve().parent / "static"

_STEPPER = """
(function () {
%(table_js)s
  const frames = %(frames)s;
  const root = document.getElementById("%(id)s");
  const fallback = root.querySelector(".uno-fallback");
  if (fallback) fallback.remove();
  const view = root.querySelector(".uno-view");
  const label = root.querySelector(".uno-step");
  const next = root.querySelector(".uno-next");
  let i = 0;
  function show(k) {
    i = Math.max(0, Math.min(k, frames.length - 1));
    UnoTable.render(view, frames[i], null);
    label.textContent = "position " + i + " of " + (frames.length - 1);
    next.textContent = frames[i].next ? "next: " + frames[i].next : "end of the record";
  }
  const on = (name, f) => root.querySelector(".uno-" + name).addEventListener("click", f);
  on("first", () => show(0));
  on("back", () => show(i - 1));
  on("forward", () => show(i + 1));
  on("last", () => show(frames.length - 1));
  show(0);
})();
"""


class ReplayDisplay:
    """A record (a :class:`~uno_env.records.GameRecord` or the path of one) replayed
    inline in a notebook, seen by ``viewer`` (None: every hand shown)."""

    def __init__(self, record: GameRecord | str | Path, viewer: int | None = None) -> None:
        self.record = record if isinstance(record, GameRecord) else load_record(record)
        self.viewer = viewer
        self.data: dict[str, Any] = replay_frames(self.record, viewer)

    def __repr__(self) -> str:
        """The final position as text (what a plain console shows)."""
        engine, _ = replay(self.record)
        return render_ansi(engine, 0, self.viewer, color=False)

    def _repr_html_(self) -> str:
        element = f"uno-replay-{secrets.token_hex(4)}"
        frames = json.dumps(self.data["frames"], separators=(",", ":")).replace("</", "<\\/")
        script = _STEPPER % {"table_js": (STATIC / "table.js").read_text(encoding="utf-8"),
                             "frames": frames, "id": element}
        buttons = "".join(f'<button type="button" class="uno-{name}">{text}</button> '
                          for name, text in (("first", "&laquo; first"), ("back", "&#9664; back"),
                                             ("forward", "forward &#9654;"),
                                             ("last", "last &raquo;")))
        return (f'<div id="{element}"><style>{(STATIC / "table.css").read_text()}</style>'
                f'<div>{buttons}<span class="uno-step"></span> '
                f'<b class="uno-next"></b></div><div class="uno-view"></div>'
                f'<pre class="uno-fallback">{html.escape(repr(self))}</pre>'
                f"<script>{script}</script></div>")
