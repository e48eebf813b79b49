// Draws one frame of a game (see uno_env/web/view.py): the seats, the middle of the
// table and a hand. Used by the page (play and replays) and by the notebook display.
"use strict";

const UnoTable = (() => {
  const COLOR_NAMES = { R: "red", Y: "yellow", G: "green", B: "blue" };
  // What the middle of a card shows, by symbol (numbers show their digit).
  const FACE = {
    S: "\u2298", R: "\u21c4", D2: "+2", D4: "+4", SE: "skip all", DA: "discard all",
    W: "wild", WD4: "+4", WSH: "swap", WSF: "shuffle", WCU: "wild", WRD4: "\u21c4+4",
    WD6: "+6", WD10: "+10", WCR: "roulette",
  };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardColor(name) {
    return name[0] === "W" ? "W" : name[0];
  }

  // A card face: a <button> (clickable when `onClick` is given) or a <span>.
  function card(name, options = {}) {
    const node = el(options.onClick ? "button" : "span", `card c-${cardColor(name)}`);
    if (options.small) node.classList.add("small");
    const symbol = name[0] === "W" ? name : name.slice(1);
    node.appendChild(el("span", "corner", name));
    node.appendChild(el("span", "face", FACE[symbol] || symbol));
    node.dataset.card = name;
    node.title = name;
    if (options.onClick) {
      node.type = "button";
      node.addEventListener("click", options.onClick);
    }
    return node;
  }

  function back(text) {
    const node = el("span", "card back");
    node.appendChild(el("span", "face", text || "UNO"));
    return node;
  }

  function seatBox(f, seat) {
    const box = el("div", "seat");
    box.dataset.seat = seat;
    if (!f.done && seat === f.acting) box.classList.add("acting");
    if (seat === f.viewer) box.classList.add("viewer");
    if (f.done && seat === f.winner) box.classList.add("winner");
    box.appendChild(el("div", "name", f.names[seat]));
    const n = f.hand_sizes[seat];
    box.appendChild(el("div", "count", `${n} card${n === 1 ? "" : "s"}`));
    const marks = [];
    if (!f.done && seat === f.acting) marks.push("to act");
    if (seat === f.dealer) marks.push("dealer");
    if (seat === f.exposed) marks.push("no UNO call!");
    if (f.done && seat === f.winner) marks.push("WINNER");
    if (f.match) marks.push(`score ${f.scores[seat]}`);
    if (f.round_points.some((p) => p !== 0)) {
      const p = f.round_points[seat];
      marks.push(`round ${p > 0 ? "+" : ""}${p}`);
    }
    box.appendChild(el("div", "marks", marks.join(" \u00b7 ")));
    const hand = f.hands[seat];
    if (hand && f.viewer === null) {
      const row = el("div", "mini-hand");
      hand.forEach((c) => row.appendChild(card(c, { small: true })));
      box.appendChild(row);
    }
    return box;
  }

  function middle(f) {
    const mid = el("div", "middle");
    const pile = el("div", "pile");
    pile.appendChild(back());
    pile.appendChild(el("div", "caption", `draw pile: ${f.draw_pile}`));
    mid.appendChild(pile);
    const top = el("div", "pile top-card");
    top.appendChild(card(f.top));
    top.appendChild(el("div", "caption", "top card"));
    mid.appendChild(top);
    const info = el("div", "info");
    const color = el("div", "color");
    const swatch = el("span", `swatch c-${f.color}`);
    color.appendChild(swatch);
    const chosen = f.phase === "choose_color" ? "being chosen" : COLOR_NAMES[f.color];
    color.appendChild(el("span", "", `current color: ${chosen}`));
    info.appendChild(color);
    const dir = f.direction > 0 ? "\u21bb clockwise" : "\u21ba counter-clockwise";
    info.appendChild(el("div", "direction", `direction: ${dir}`));
    info.appendChild(el("div", f.pending ? "pending on" : "pending",
                        f.pending ? `pending draw: +${f.pending}` : "no pending draw"));
    info.appendChild(el("div", "phase", `phase: ${f.phase.replace("_", " ")}`));
    info.appendChild(el("div", "turns", `decision ${f.turns} \u00b7 discards ${f.discards}`));
    mid.appendChild(info);
    return mid;
  }

  // The whole table of frame `f` into `root`. `play(card)` (optional) returns the click
  // handler of a card of the viewer's hand, or null when that card cannot be played.
  function render(root, f, play) {
    root.replaceChildren();
    const table = el("div", "uno-table");
    const status = el("div", f.done ? "status over" : "status", f.status);
    table.appendChild(status);
    const seats = el("div", "seats");
    f.names.forEach((_, seat) => seats.appendChild(seatBox(f, seat)));
    table.appendChild(seats);
    table.appendChild(middle(f));
    if (f.viewer !== null && f.hands[f.viewer]) {
      const area = el("div", "hand");
      area.id = "hand";
      const mine = f.hands[f.viewer];
      const whose = f.names[f.viewer] === "you" ? "your hand" : `hand of ${f.names[f.viewer]}`;
      area.appendChild(el("div", "caption",
        `${whose}: ${mine.length} card${mine.length === 1 ? "" : "s"}`));
      const row = el("div", "cards");
      mine.forEach((c) => {
        const onClick = play ? play(c) : null;
        const node = card(c, onClick ? { onClick } : {});
        if (play && !onClick) node.classList.add("dim");
        if (onClick) node.classList.add("playable");
        row.appendChild(node);
      });
      area.appendChild(row);
      table.appendChild(area);
    }
    root.appendChild(table);
    return table;
  }

  return { render, card, COLOR_NAMES };
})();

if (typeof window !== "undefined") window.UnoTable = UnoTable;
