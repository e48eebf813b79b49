// The page of `uno-env serve`: play a game against agents, and replay game records.
// The server checks every action; the page only offers the legal ones.
"use strict";

const $ = (id) => document.getElementById(id);

async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(data.error || `request failed (${response.status})`);
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function message(text, isError = false) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "message error" : "message";
}

function setStatus(status) {
  document.body.dataset.status = status;
  document.body.dataset.seq = String(Number(document.body.dataset.seq || 0) + 1);
}

// --- play -------------------------------------------------------------------------------

const play = { game: null, busy: false, run: 0 };

function delaySeconds() {
  return Number($("delay").value);
}

function showGame() {
  const g = play.game;
  const legal = g.legal;
  const byCard = {};
  legal.filter((a) => a.card).forEach((a) => (byCard[a.card] = byCard[a.card] || []).push(a));
  const hand = g.seat === null ? [] : (g.hands[g.seat] || []);
  UnoTable.render($("table"), g, g.waiting_for === "you" ? (c) => {
    const options = byCard[c];
    if (!options) return null;
    // A wild always asks for its color, even when the rules leave one.
    return () => (options[0].color ? chooseColor(c, options) : choose(options[0].id));
  } : null);
  const controls = $("controls");
  controls.replaceChildren();
  $("chooser").replaceChildren();
  // Every legal action without a card of the hand to click gets a button.
  legal.filter((a) => !a.card || !hand.includes(a.card)).forEach((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `action ${a.name.split(/[ :]/)[0]}`;
    b.textContent = a.label;
    b.dataset.action = a.id;
    b.title = a.name;
    b.addEventListener("click", () => choose(a.id));
    controls.appendChild(b);
  });
  $("log").replaceChildren(...g.log.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  $("log").scrollTop = $("log").scrollHeight;
  $("save").disabled = false;
  if (g.done) {
    $("turn").textContent = g.status;
    setStatus("over");
  } else if (g.waiting_for === "you") {
    $("turn").textContent = "your turn: click a highlighted card or a button";
    setStatus("your_turn");
  } else {
    $("turn").textContent = `${g.names[g.acting]} is thinking\u2026`;
    setStatus("agents");
  }
}

function chooseColor(cardName, options) {
  const box = $("chooser");
  box.replaceChildren();
  box.appendChild(document.createTextNode(`${cardName}: choose a color `));
  options.forEach((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `color-choice c-${a.color}`;
    b.textContent = UnoTable.COLOR_NAMES[a.color];
    b.dataset.action = a.id;
    b.title = a.name;
    b.addEventListener("click", () => choose(a.id));
    box.appendChild(b);
  });
}

async function choose(actionId) {
  if (play.busy || !play.game) return;
  play.busy = true;
  try {
    play.game = await api("POST", `/api/games/${play.game.id}/actions`, { action: actionId });
    message("");
    showGame();
  } catch (err) {
    message(err.message, true);
  } finally {
    play.busy = false;
  }
  agentsMove();
}

// The agents move one at a time, a delay apart, until it is the person's turn.
async function agentsMove() {
  const run = play.run;
  while (play.game && play.run === run && !play.game.done && play.game.waiting_for === "agent") {
    await sleep(delaySeconds() * 1000);
    if (play.run !== run) return;
    try {
      play.game = await api("POST", `/api/games/${play.game.id}/advance`);
    } catch (err) {
      message(err.message, true);
      setStatus("error");
      return;
    }
    if (play.run === run) showGame();
  }
}

async function startGame(event) {
  event.preventDefault();
  const seat = $("seat").value;
  const body = {
    preset: $("preset").value,
    players: Number($("players").value),
    seat: seat === "watch" ? null : Number(seat),
    agents: [$("agents").value],
  };
  if ($("seed").value.trim()) body.seed = Number($("seed").value);
  play.run += 1;
  try {
    play.game = await api("POST", "/api/games", body);
    message("");
    $("game").hidden = false;
    showGame();
    agentsMove();
  } catch (err) {
    message(err.message, true);
  }
}

async function saveGame() {
  if (!play.game) return;
  try {
    const saved = await api("POST", `/api/games/${play.game.id}/record`);
    message(`saved as ${saved.name} (open it under Replays)`);
    await loadRecords(saved.name);
  } catch (err) {
    message(err.message, true);
  }
}

function fillSeats() {
  const players = Number($("players").value);
  const seat = $("seat");
  const chosen = seat.value;
  seat.replaceChildren();
  for (let i = 0; i < players; i += 1) seat.appendChild(new Option(`seat ${i}`, String(i)));
  seat.appendChild(new Option("none: watch the agents", "watch"));
  seat.value = [...seat.options].some((o) => o.value === chosen) ? chosen : "0";
}

// --- replays ----------------------------------------------------------------------------

const replay = { data: null, index: 0 };

async function loadRecords(select) {
  const { records } = await api("GET", "/api/records");
  const list = $("records");
  list.replaceChildren();
  records.forEach((r) => list.appendChild(new Option(
    `${r.name} \u2014 ${r.preset || "custom"}, ${r.players}p: ${r.seats.join(" v ")} (${r.decisions} moves)`,
    r.name)));
  if (select) list.value = select;
  $("open").disabled = !records.length;
}

async function openRecord(keepIndex = false) {
  const name = $("records").value;
  if (!name) return;
  const viewer = $("viewer").value;
  try {
    const query = viewer === "all" ? "" : `?viewer=${viewer}`;
    const data = await api("GET", `/api/records/${encodeURIComponent(name)}${query}`);
    const fresh = !replay.data || replay.data.name !== name;
    replay.data = data;
    replay.index = keepIndex && !fresh ? Math.min(replay.index, data.frames.length - 1) : 0;
    if (fresh) {
      const chosen = $("viewer").value;
      $("viewer").replaceChildren(new Option("all hands", "all"),
        ...data.names.map((n, i) => new Option(`view of ${n}`, String(i))));
      $("viewer").value = chosen === "all" || chosen < data.names.length ? chosen : "all";
    }
    $("replay").hidden = false;
    message("");
    showFrame();
  } catch (err) {
    message(err.message, true);
  }
}

function showFrame() {
  const { frames } = replay.data;
  const i = replay.index;
  const f = frames[i];
  UnoTable.render($("replay-table"), f, null);
  $("step").textContent = `position ${i} of ${frames.length - 1}`;
  $("next-move").textContent = f.next ? `next: ${f.next}` : "end of the record";
  $("replay-log").replaceChildren(...frames.slice(0, i).map((g) => {
    const li = document.createElement("li");
    li.textContent = g.next;
    return li;
  }));
  $("replay-log").scrollTop = $("replay-log").scrollHeight;
  $("first").disabled = $("back").disabled = i === 0;
  $("last").disabled = $("forward").disabled = i === frames.length - 1;
  document.body.dataset.replayStep = String(i);
  setStatus(document.body.dataset.status || "idle");
}

function stepTo(i) {
  if (!replay.data) return;
  replay.index = Math.max(0, Math.min(i, replay.data.frames.length - 1));
  showFrame();
}

// --- wiring -----------------------------------------------------------------------------

function showTab(name) {
  for (const tab of ["play", "replays"]) {
    $(`tab-${tab}`).classList.toggle("active", tab === name);
    $(`panel-${tab}`).hidden = tab !== name;
  }
  message("");
  if (name === "replays") loadRecords().catch((err) => message(err.message, true));
}

async function init() {
  const options = await api("GET", "/api/options");
  options.presets.forEach((p) => $("preset").appendChild(new Option(p, p)));
  options.agents.forEach((a) => $("agent-list").appendChild(new Option(a, a)));
  $("players").min = options.min_players;
  $("players").max = options.max_players;
  $("delay").value = options.delay;
  $("delay-value").textContent = `${options.delay} s`;
  fillSeats();
  $("players").addEventListener("input", fillSeats);
  $("delay").addEventListener("input", () => ($("delay-value").textContent = `${$("delay").value} s`));
  $("setup").addEventListener("submit", startGame);
  $("save").addEventListener("click", saveGame);
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replays").addEventListener("click", () => showTab("replays"));
  $("open").addEventListener("click", () => openRecord(false));
  $("viewer").addEventListener("change", () => openRecord(true));
  $("first").addEventListener("click", () => stepTo(0));
  $("back").addEventListener("click", () => stepTo(replay.index - 1));
  $("forward").addEventListener("click", () => stepTo(replay.index + 1));
  $("last").addEventListener("click", () => stepTo(Infinity));
  document.addEventListener("keydown", (e) => {
    if ($("panel-replays").hidden || !replay.data || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") stepTo(replay.index + 1);
    if (e.key === "ArrowLeft") stepTo(replay.index - 1);
  });
  setStatus("idle");
}

init().catch((err) => message(`could not reach the server: ${err.message}`, true));
