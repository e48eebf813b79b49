"""The canonical leaderboard: every shipped agent on one fixed, published deal set.

Two round-robin tables on ``official`` rules, heads-up and at 4 players, each on the
deals of a fixed seed (:mod:`uno_env.evaluation.play`: every group of agents in
every rotation of the seats on every deal). The page reports, per table and agent,
its rating with a 95% bootstrap interval over deals (Bradley-Terry on the Elo scale
heads-up, openskill at 4 players), its rating and win rate paired with ``tuned``'s
on the same deals, its head-to-head rate against ``tuned`` (heads-up), the
decisions per second of its own thinking, and its exploitability where a probe
recorded one (``docs/results/exploit.json``, written by ``experiments/exploit.py``).
Below the tables, every shipped model of every preset (``uno-env models``) is listed
with its exploiters, joined by the SHA-256 of its file (:func:`model_exploitability`),
and whether it meets the goal of conceding at most 3 points (:func:`gain_goal`).

The run is cut into pieces (groups of seatings, each the same whatever plays it);
after every piece the games so far are saved atomically beside the record, so
``--resume`` continues a stopped run where it stopped, with the same results as an
uninterrupted one. ``uno-env leaderboard`` and ``make leaderboard`` run it.

Every game of a finished run is kept beside its record (``leaderboard-2p-games.npz``,
``leaderboard-4p-games.npz``), so an agent of one's own joins the published tables
without the shipped agents' games being played again (``uno-env leaderboard --add
SPEC``, :func:`add`): it plays only the seatings it sits in, on the same deals, and the
tables are rated again over all the games. The seatings of the added agents come after
the recorded ones (:func:`table_seatings`), so an extended record can be extended again.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass, fields, replace
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from ..files import check_output, write_atomic
from ..rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from ..tooling.machine import backend_version, cores, cpu_model, load_average, revision
from ..tooling.parallel import executor
from ..tooling.stages import sha256
from .intervals import mean_interval
from .play import (
    Clock,
    Records,
    Schedule,
    TournamentError,
    build_agents,
    play_chunks,
    seatings,
)
from .tournament import TournamentResult

#: The shipped agents of each table: the heuristics, the shipped networks of that
#: player count and the search agent at a modest budget.
HEURISTICS = ["random", "random_play", "greedy", "defender", "tuned"]
SEARCH = "ismcts:budget=16"
AGENTS = {2: [*HEURISTICS, "net:official-2p", "improved:official-2p-exit",
              "improved:official-2p-exit-rp", "ppo:official-2p", SEARCH],
          4: [*HEURISTICS, "net:official-4p", "ppo:official-4p", SEARCH]}
#: The agent every other is paired with.
REFERENCE = "tuned"
#: The published deal set: tournament seed and deals per seating of each table.
SEED = 2026
#: The ``experiments/exploit.py`` records the leaderboard reads by default: the first
#: heads-up and 4-player probes, the probes of agents other than shipped networks measured
#: since (read after the first, so they are the newer), the PPO exploiters of the shipped
#: networks and the search best responses.
EXPLOIT_RECORDS = ("docs/results/exploit.json", "docs/results/exploit-4p.json",
                   "docs/results/exploit-probes", "docs/results/exploit-ppo",
                   "docs/results/exploit-search")
#: The rules of the leaderboard's tables (the exploitability of every shipped model, of any
#: preset, is listed below them).
PRESET = "official"
DEALS = {2: 240, 4: 32}
TINY_DEALS = {2: 2, 4: 1}
TINY_AGENTS = {2: ["random", "greedy", "tuned", "ismcts:budget=2"],
               4: ["random", "greedy", "tuned", "random_play", "ismcts:budget=2"]}
#: Where ``--tiny`` writes (never the published page).
TINY_OUT = "runs/leaderboard-tiny"
#: Where ``--add`` writes (never the published page).
ADD_OUT = "runs/leaderboard-add"
#: Games a piece of the run plays at most (the unit of progress and of parallel work).
PIECE_GAMES = 600


@dataclass(frozen=True)
class Settings:
    """What a leaderboard plays; a saved run is resumed only under the same settings."""

    preset: str = PRESET
    seed: int = SEED
    agents_2p: tuple[str, ...] = tuple(AGENTS[2])
    agents_4p: tuple[str, ...] = tuple(AGENTS[4])
    deals_2p: int = DEALS[2]
    deals_4p: int = DEALS[4]
    rating_rounds: int = 200
    smoke: bool = False           # a smoke run: its numbers mean nothing
    added: tuple[str, ...] = ()   # agents joining both tables after the shipped ones

    def tables(self) -> list[tuple[int, list[str], int]]:
        """``(players, agents, deals)`` of each table (the added agents last)."""
        return [(2, [*self.agents_2p, *self.added], self.deals_2p),
                (4, [*self.agents_4p, *self.added], self.deals_4p)]

    def shipped(self, players: int) -> int:
        """How many agents of the ``players`` table are not added ones."""
        return len(self.agents_2p if players == 2 else self.agents_4p)

    @classmethod
    def of_record(cls, record: dict[str, Any]) -> Settings:
        """The settings a record was played under."""
        saved = dict(record["settings"])
        for name in ("agents_2p", "agents_4p", "added"):
            saved[name] = tuple(saved.get(name, ()))
        return cls(**saved)

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


TINY = Settings(agents_2p=tuple(TINY_AGENTS[2]), agents_4p=tuple(TINY_AGENTS[4]),
                deals_2p=TINY_DEALS[2], deals_4p=TINY_DEALS[4], rating_rounds=20,
                smoke=True)


def table_seatings(shipped: int, added: int, players: int) -> np.ndarray:
    """``int[S, P]``: the seatings of a table of ``shipped`` agents (every group in every
    rotation, :func:`uno_env.evaluation.play.seatings`), then those of each of ``added``
    agents in turn: every group it forms with the agents before it, each rotation. A
    table with one agent more keeps the seatings of the table before it as they were."""
    rows = [seatings(shipped, players)] if shipped >= players else []
    for k in range(shipped, shipped + added):
        groups = [(*g, k) for g in combinations(range(k), players - 1)]
        rows.append(np.array([[g[(i + r) % players] for i in range(players)]
                              for g in groups for r in range(players)], np.int64
                             ).reshape(-1, players))
    if not rows or not sum(len(r) for r in rows):
        seatings(shipped + added, players)        # raises, saying how many agents are needed
    return np.concatenate(rows)


def schedule_of(players: int, agents: Sequence[str], deals: int, seed: int,
                added: int = 0) -> Schedule:
    """The table's schedule: every group in every rotation (the last ``added`` agents'
    seatings last, :func:`table_seatings`) on ``deals`` deals, one chunk per seating (so
    a seating's games are the unit of agent randomness)."""
    return Schedule(table_seatings(len(agents) - added, added, players), deals=deals,
                    seed=seed, chunk=deals)


def pieces(schedule: Schedule) -> list[list[int]]:
    """The chunk ids cut into runs of consecutive seatings of at most
    :data:`PIECE_GAMES` games (at least one seating each)."""
    per = max(1, PIECE_GAMES // schedule.deals)
    ids = list(range(len(schedule.chunks())))
    return [ids[i:i + per] for i in range(0, len(ids), per)]


# --- progress ---------------------------------------------------------------------------------


def _pack(records: Records, clock: Clock, done: list[int], key: str) -> bytes:
    """A table's games so far as ``.npz`` bytes."""
    buf = io.BytesIO()
    np.savez_compressed(buf, key=np.array(key), done=np.array(done, np.int64),
             seconds=clock.seconds, decisions=clock.decisions,
             **{f"r_{f.name}": getattr(records, f.name) for f in fields(Records)})
    return buf.getvalue()


def _unpack(path: Path, key: str) -> tuple[Records, Clock, set[int]]:
    """The saved table in ``path``, if saved under the settings ``key``; ``ValueError``
    naming the file, and changing nothing, if it is damaged or of other settings."""
    try:
        with np.load(path, allow_pickle=False) as data:
            saved = str(data["key"])
            if saved == key:
                records = Records(**{f.name: data[f"r_{f.name}"] for f in fields(Records)})
                return (records, Clock(data["seconds"].copy(), data["decisions"].copy()),
                        set(data["done"].tolist()))
    except Exception as e:  # a damaged file fails in many ways: name it
        raise ValueError(f"the saved progress {str(path)!r} is damaged ({type(e).__name__}: "
                         f"{' '.join(str(e).split())[:80]}); it is kept: remove it to start "
                         f"over") from None
    raise ValueError(f"--resume: the saved progress {str(path)!r} was played under other "
                     f"settings ({_first_difference(saved, key)}); it is kept: resume it "
                     f"with its own settings, or remove it to start over")


def _first_difference(saved: str, wanted: str) -> str:
    """The first setting in which two progress keys differ, as text."""
    def parse(key: str) -> dict[str, Any]:
        text, _, players = key.rpartition(" players=")
        try:
            return {**json.loads(text), "players": players}
        except ValueError:
            return {"key": key}
    old, new = parse(saved), parse(wanted)
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            return f"{name} {old.get(name)!r} there, {new.get(name)!r} now"
    return "another key"


def check_progress(progress: Path, key: str, resume: bool) -> None:
    """Refuse, before anything is played, a saved progress file that the run would
    overwrite: without ``resume`` (continuing it takes --resume; removing it starts
    over), or with ``resume`` when it is damaged or of other settings (:func:`_unpack`)."""
    if not progress.exists():
        return
    if not resume:
        raise ValueError(f"{str(progress)!r} holds the progress of a stopped run: --resume "
                         f"continues it (under the same settings); remove it to start over")
    _unpack(progress, key)


def progress_file(record: Path, players: int) -> Path:
    """Where the progress of the ``players`` table of the run writing ``record`` is kept."""
    return record.with_name(f".{record.stem}-{players}p.progress.npz")


def games_file(record: Path, players: int) -> Path:
    """Where the games of the ``players`` table of the finished run writing ``record`` are
    kept (what :func:`add` builds on)."""
    return record.with_name(f"{record.stem}-{players}p-games.npz")


def progress_key(settings: Settings, players: int) -> str:
    """What a table's saved progress must have been played under to be continued."""
    return f"{settings.key()} players={players}"


def _play_piece(rules: Rules, specs: list[str], schedule: Schedule, ids: list[int]
                ) -> tuple[Records, Clock]:
    """One piece in this process: the agents built here, one torch thread."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - heuristics only
        pass
    built, labels = build_agents(specs)
    clock = Clock.zeros(len(built))
    return play_chunks(rules, built, schedule, ids, 4096, None, labels, clock=clock), clock


def play_table(settings: Settings, players: int, progress: Path, resume: bool, jobs: int,
               say: Callable[[str], None], base: Path | None = None) -> TournamentResult:
    """Play one table (continuing a saved one with ``resume``), saving after each piece.
    With added agents, the games of the table of the record ``base`` (played under
    ``base``'s settings) are taken as they are, and only the seatings new to this one
    are played."""
    specs = [agents for p, agents, _ in settings.tables() if p == players][0]
    deals = settings.deals_2p if players == 2 else settings.deals_4p
    rules = Rules.preset(settings.preset, num_players=players)
    schedule = schedule_of(players, specs, deals, settings.seed, len(settings.added))
    key = progress_key(settings, players)
    _, labels = build_agents(specs)
    check_progress(progress, key, resume)
    saved = _unpack(progress, key) if resume and progress.exists() else None
    if saved is None and base is not None:
        saved = recorded_games(base, players, len(specs))
    parts, clock, done = ([saved[0]], saved[1], saved[2]) if saved else (
        [], Clock.zeros(len(specs)), set())
    todo = [left for ids in pieces(schedule) if (left := [i for i in ids if i not in done])]
    say(f"{players} players: {len(specs)} agents, {len(schedule.seatings)} seatings x "
        f"{deals} deals = {schedule.games:,} games; {len(todo)} of "
        f"{len(pieces(schedule))} pieces to play")
    start = time.perf_counter()
    def save(ids: list[int], future: Future) -> None:
        records, used = future.result()
        parts.append(records)
        clock.add(used)
        done.update(ids)
        write_atomic(progress, _pack(Records.concat(parts), clock, sorted(done), key))
        say(f"  {len(done)} of {len(schedule.chunks())} seatings played "
            f"({time.perf_counter() - start:.0f} s)")

    with executor(jobs) as pool:     # at most `jobs` pieces in flight, saved in order
        flight: deque[tuple[list[int], Future]] = deque()
        for ids in todo:
            flight.append((ids, pool.submit(_play_piece, rules, specs, schedule, ids)))
            if len(flight) >= jobs:
                save(*flight.popleft())
        while flight:
            save(*flight.popleft())
    return TournamentResult(rules, settings.preset, labels, schedule, Records.concat(parts),
                            time.perf_counter() - start, clock, settings.rating_rounds)


def recorded_games(record: Path, players: int, entries: int) -> tuple[Records, Clock, set[int]]:
    """The games of the ``players`` table kept beside ``record`` (:func:`games_file`), the
    clock grown to ``entries`` agents, and the seatings they cover; ``ValueError`` naming
    the file when it is missing or of other settings than the record's."""
    path = games_file(record, players)
    if not path.is_file():
        raise ValueError(f"--add: no games of the {players}-player table beside {str(record)!r} "
                         f"({str(path)!r}): a leaderboard run writes them (make leaderboard)")
    settings = Settings.of_record(json.loads(record.read_text()))
    records, clock, done = _unpack(path, progress_key(settings, players))
    grown = Clock.zeros(entries)
    n = min(entries, clock.seconds.size)
    grown.seconds[:n], grown.decisions[:n] = clock.seconds[:n], clock.decisions[:n]
    return records, grown, done


def add(base: Path, specs: Sequence[str], out_md: Path, out_json: Path, command: str,
        resume: bool = False, jobs: int = 1, exploit: Sequence[Path] = (),
        say: Callable[[str], None] = print, models: Sequence[dict[str, Any]] = ()
        ) -> dict[str, Any]:
    """The leaderboard of the record ``base`` with the agents ``specs`` added to both
    tables: they play the seatings they sit in on the record's deals, the recorded games
    stay as they were (module doc); writes the page and record like :func:`run`."""
    if not specs:
        raise ValueError("--add names no agent")
    try:
        record = json.loads(Path(base).read_text())
        settings = Settings.of_record(record)
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise ValueError(f"--add: {str(base)!r} is not a leaderboard record ({type(e).__name__}: "
                         f"{' '.join(str(e).split())[:80]})") from None
    for players, _, _ in settings.tables():    # both tables' games there, before any game
        recorded_games(Path(base), players, 0)
    extended = replace(settings, added=(*settings.added, *specs))
    return run(extended, out_md, out_json, command, resume, jobs, exploit, say, base=Path(base),
               models=models)


# --- the record -------------------------------------------------------------------------------


def exploitability(*paths: Path, preset: str = PRESET) -> dict[str, dict[str, Any]]:
    """Exploiter win rates from ``experiments/exploit.py`` records of ``preset``'s rules
    (one per table size, e.g. heads-up and 4 players; a folder stands for its ``*.json``
    records), keyed by :func:`exploit_key`. A PPO exploiter and a search best response of
    the same target join one entry; of several PPO exploiters the one trained longest is
    kept, and of several search best responses the one with the largest budget. A missing
    record adds nothing, a damaged or malformed one is a ``ValueError`` naming it."""
    return _exploits_by_preset(paths).get(preset, {})


def _exploits_by_preset(paths: Sequence[Path]) -> dict[str, dict[str, dict[str, Any]]]:
    """:func:`exploitability` of every preset the records probed, each file read once."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    files = [f for path in paths
             for f in (sorted(path.glob("*.json")) if path.is_dir() else [path])]
    for path in files:
        if not path.exists():
            continue
        try:
            preset, rows = _exploit_rows(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as e:
            raise ValueError(f"exploit record {str(path)!r} is damaged or malformed "
                             f"({type(e).__name__}: {' '.join(str(e).split())[:100]})"
                             ) from None
        merged = found.setdefault(preset, {})
        for key, entry in rows.items():
            old = merged.get(key, {})
            # the newer record first: of two exploiters trained as long, it is kept
            ppo = max((p for p in (_ppo_part(entry), _ppo_part(old)) if p),
                      key=lambda p: p.get("timesteps") or 0, default={})
            search = max((s for s in (old.get("search"), entry.get("search")) if s),
                         key=lambda s: (s.get("budget") or 0, s.get("games", 0)), default=None)
            merged[key] = {**ppo, "search": search}
    return found


def _ppo_part(entry: dict[str, Any]) -> dict[str, Any]:
    """An exploitability entry without its search best response: the PPO exploiter."""
    return {k: v for k, v in entry.items() if k != "search"}


def exploit_key(players: int, target: str, target_sha256: str | None) -> str:
    """How an exploit row is joined to an agent: a model by its file's SHA-256 (a row
    measured on another version of the file never matches), an agent without a file
    (a heuristic) by its spec: ``"2:sha256:<hash>"`` or ``"2:tuned"``."""
    return f"{players}:sha256:{target_sha256}" if target_sha256 else f"{players}:{target}"


def file_hashes(agents: Sequence[Any], labels: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of the model file of each agent that plays from one (its
    ``model_file`` attribute), by label."""
    return {label: sha256(agent.model_file) for agent, label in zip(agents, labels, strict=True)
            if getattr(agent, "model_file", None) is not None}


def _exploit_rows(record: Any) -> tuple[str, dict[str, dict[str, Any]]]:
    """The preset one exploit record probed and its rows, keyed by :func:`exploit_key`;
    ``TypeError`` saying what is malformed."""
    if not isinstance(record, dict) or not isinstance(record.get("rows", []), list):
        raise TypeError("it is not a JSON object with a list of rows")
    players, preset = record.get("players", 2), record.get("preset", PRESET)
    if type(players) is not int:
        raise TypeError(f"its players {players!r} is not an integer")
    if not isinstance(preset, str):
        raise TypeError(f"its preset {preset!r} is not a name")
    found: dict[str, dict[str, Any]] = {}
    for row in record.get("rows", []):
        if not isinstance(row, dict) or not isinstance(row.get("exploiter", {}), dict) \
                or not isinstance(row.get("search") or {}, dict) \
                or not isinstance(row.get("target", ""), str) \
                or not isinstance(row.get("target_sha256") or "", str):
            raise TypeError(f"a row {str(row)[:40]} is not a target with its exploiter")
        if "target" not in row or not ("exploiter" in row or row.get("search")):
            continue
        entry: dict[str, Any] = {}
        if "exploiter" in row:
            entry = {**row["exploiter"], "command": record.get("command"),
                     "timesteps": record.get("timesteps"), "gain": row.get("gain")}
        if row.get("search"):
            entry["search"] = {**row["search"], "budget": record.get("search_budget"),
                               "command": record.get("command")}
        found[exploit_key(players, row["target"], row.get("target_sha256"))] = entry
    return preset, found


#: The goal for a shipped network: no exploiter gains more than this over its start...
GAIN_GOAL = 0.03
#: ...where its PPO exploiter trained for at least this many decisions.
GOAL_DECISIONS = 50_000_000


def model_exploitability(models: Sequence[dict[str, Any]], *paths: Path
                         ) -> list[dict[str, Any]]:
    """Every shipped model (the rows of ``uno-env models --json``: spec, kind, sha256)
    with what the exploit records ``paths`` measured of that very file, under every
    preset and table size it was probed at, joined by its SHA-256 and never by its name
    (a probe of an earlier version of the file is not its row). A model never probed
    has one row without an exploiter."""
    by_preset = _exploits_by_preset(paths)
    rows = []
    for model in models:
        base = {"spec": model["spec"], "kind": model["kind"], "sha256": model["sha256"]}
        found = [{**base, "preset": preset, "players": players, "exploiter": entry}
                 for preset, exploits in by_preset.items()
                 for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)
                 if (entry := exploits.get(exploit_key(players, model["spec"],
                                                       model["sha256"]))) is not None]
        rows += found or [base]
    return rows


def gain_goal(entry: dict[str, Any] | None) -> str:
    """Whether an exploitability entry meets the goal: *missed* when the interval of the
    PPO exploiter's or the search best response's gain lies above :data:`GAIN_GOAL`;
    *met* when both were measured, the exploiter trained for :data:`GOAL_DECISIONS` or
    more, and every interval lies at or below it; *open* (saying what is missing) or
    *undecided* otherwise."""
    entry = entry or {}
    gains = [g for g in (entry.get("gain"), (entry.get("search") or {}).get("gain")) if g]
    if not gains:
        return "not measured"
    if any(g["low"] > GAIN_GOAL for g in gains):
        return "missed"
    if not entry.get("gain"):
        return "open: no PPO exploiter"
    if (entry.get("timesteps") or 0) < GOAL_DECISIONS:
        return (f"open: exploiter of {(entry.get('timesteps') or 0) / 1e6:g}M decisions, "
                f"not {GOAL_DECISIONS / 1e6:g}M")
    if not entry.get("search"):
        return "open: no search best response"
    return "met" if all(g["high"] <= GAIN_GOAL for g in gains) else "undecided"


def join_exploits(table: dict[str, Any], exploits: dict[str, dict[str, Any]]) -> None:
    """Put each row's exploitability (:func:`exploitability`) beside it, joined by
    :func:`exploit_key` (a model by the ``sha256`` of its row), replacing what was
    there."""
    for row in table["rows"]:
        row.pop("exploiter", None)
        key = exploit_key(table["players"], row["agent"], row.get("sha256"))
        if key in exploits:
            row["exploiter"] = exploits[key]


def rejoin(out_md: Path, out_json: Path, command: str, exploit: Sequence[Path] = (),
           models: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Read the exploit records again into the leaderboard record ``out_json`` and write
    it and its page ``out_md``, playing nothing: exploit probes are made after the
    tables, from the same shipped files. A model row without the SHA-256 of its file
    gets that of today's file, which the replay tests of the published games hold to be
    the file that played them. The record names the command that joined them.
    ``models``: the shipped models (``uno-env models --json``), whose exploitability
    table is joined again too (``None`` keeps the record's)."""
    check_output(out_md, "--out")
    try:
        record = json.loads(out_json.read_text())
        tables = record["tables"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"leaderboard record {str(out_json)!r} cannot be read "
                         f"({type(e).__name__}: {e})") from None
    exploits = exploitability(*exploit)
    for table in tables:
        hashes = file_hashes(*build_agents([row["agent"] for row in table["rows"]]))
        for row in table["rows"]:
            if row["agent"] in hashes:
                row.setdefault("sha256", hashes[row["agent"]])
        join_exploits(table, exploits)
    if models is not None:
        record["models"] = model_exploitability(models, *exploit)
    record["exploits_joined_by"] = command
    write_atomic(out_json, json.dumps(record, indent=1) + "\n")
    write_atomic(out_md, markdown(record))
    return record


def table_record(res: TournamentResult, exploits: dict[str, dict[str, Any]],
                 hashes: dict[str, str] | None = None) -> dict[str, Any]:
    """One table's rows: rating, pairings with the reference, speed, exploitability
    (joined by :func:`exploit_key`, models by the ``hashes`` of their files)."""
    hashes = hashes or {}
    p = res.rules.num_players
    ratings = res.ratings()
    low, high = ratings.interval()
    stats = res.agent_stats()
    speed = res.decisions_per_second()
    ref = res.labels.index(REFERENCE) if REFERENCE in res.labels else None
    per_deal = res.deal_win_rates()
    versus = res.head_to_head_rates() if p == 2 else None
    rows = []
    for i, label in enumerate(res.labels):
        row: dict[str, Any] = {
            "agent": label, "rating": float(ratings.value[i]), "low": float(low[i]),
            "high": float(high[i]), "win_rate": stats[i].win_rate, "win_low": stats[i].win_low,
            "win_high": stats[i].win_high, "games": stats[i].games,
            "decisions_per_second": None if math.isnan(speed[i]) else float(speed[i])}
        if ref is not None and i != ref:
            row["rating_vs_reference"] = ratings.difference(i, ref)
            row["win_rate_vs_reference"] = mean_interval(per_deal[:, i] - per_deal[:, ref])
            if versus is not None:
                row["head_to_head_vs_reference"] = {
                    "win_rate": float(versus[0][i, ref]), "low": float(versus[1][i, ref]),
                    "high": float(versus[2][i, ref])}
        if label in hashes:
            row["sha256"] = hashes[label]
        rows.append(row)
    rows.sort(key=lambda r: -r["rating"])
    table = {"players": p, "preset": res.preset, "rating": ratings.kind,
            "rating_rounds": res.rating_rounds, "deals": res.deals,
            "seatings": len(res.schedule.seatings), "games": res.games,
            "truncated": res.truncated, "seconds": round(res.seconds, 1),
            "reference": REFERENCE if ref is not None else None, "rows": rows,
            "tournament": res.to_dict(with_ratings=False)}
    join_exploits(table, exploits)
    return table


def _pct(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _points(d: dict[str, float], digits: int, pct: bool = False) -> str:
    f = (lambda x: f"{100 * x:+.1f}") if pct else (lambda x: f"{x:+.{digits}f}")
    if math.isnan(d["low"]):
        return f(d["mean"])
    return f"{f(d['mean'])} [{f(d['low'])}, {f(d['high'])}]"


def _exploiter_cells(entry: dict[str, Any]) -> list[str]:
    """The PPO exploiter's win rate and its gain (with its learner decisions)."""
    return [f"{_pct(entry['win_rate'])} [{_pct(entry['low'])}, {_pct(entry['high'])}]"
            if "win_rate" in entry else "-",
            _points(entry["gain"], 1, pct=True)
            + (f" ({entry['timesteps']:,} decisions)" if entry.get("timesteps") else "")
            if entry.get("gain") else "-"]


def _search_cell(entry: dict[str, Any]) -> str:
    """The search best response's gain (with its budget of playouts a decision)."""
    search = entry.get("search")
    return (_points(search["gain"], 1, pct=True)
            + (f" (budget {search['budget']})" if search.get("budget") else "")
            if search else "-")


def _models_section(rows: list[dict[str, Any]]) -> list[str]:
    """The exploitability table of every shipped model (:func:`model_exploitability`)."""
    if not rows:
        return []
    lines = [
        "## Exploitability of every shipped model", "",
        "Every model file shipped in agents/models/ (`uno-env models`), joined to the "
        "exploit records of that very file by its SHA-256, under the rules it was probed "
        "on: its PPO exploiter (the longest trained) and its search best response, as "
        "above. The goal for a shipped network is that no exploiter gains more than "
        f"{100 * GAIN_GOAL:.0f} points over its start: *missed* when the interval of a "
        f"gain lies above {100 * GAIN_GOAL:.0f} points; *met* when the PPO exploiter "
        f"trained for at least {GOAL_DECISIONS:,} decisions, a search best response was "
        "measured too, and the interval of each gain lies at or below the goal; *open* "
        "(saying what is missing) or *undecided* otherwise.", "",
        "| model | kind | SHA-256 | rules | exploiter's win rate [95%] | exploiter's gain "
        "over its start, points [95%] | search best response's gain, points [95%] | "
        f"goal: at most +{100 * GAIN_GOAL:.0f} points |",
        "|---|---|---|---|---:|---:|---:|---|"]
    for row in rows:
        entry = row.get("exploiter") or {}
        rules = f"`{row['preset']}`, {row['players']} players" if "preset" in row else "-"
        lines.append("| " + " | ".join([
            f"`{row['spec']}`", row["kind"], f"`{row['sha256'][:12]}`", rules,
            *_exploiter_cells(entry), _search_cell(entry), gain_goal(entry)]) + " |")
    return [*lines, ""]


def _added_note(record: dict[str, Any]) -> list[str]:
    """The paragraph saying which agents were added to which record's games."""
    if "added" not in record:
        return []
    names = ", ".join(f"`{a}`" for a in record["added"]["agents"])
    return [f"Added to the games of `{record['added']['to']}`: {names}, each playing the "
            f"seatings it sits in on the same deals; the other games are those of that "
            f"record, not played again.", ""]


def markdown(record: dict[str, Any]) -> str:
    """The leaderboard page."""
    smoke = (["**A smoke run of a few agents and deals: its numbers mean nothing.**", ""]
             if record["settings"].get("smoke") else [])
    lines = [
        "# Leaderboard", "", *smoke,
        "Every shipped agent on one fixed, published deal set: `official` rules, "
        "heads-up and at 4 players. Each table is a round robin in which every group "
        "of agents is seated in every rotation of the seats on every deal (duplicate "
        "deals), so the luck of the cards cancels out. Ratings are Bradley-Terry on the "
        "Elo scale heads-up (mean 0) and openskill's mu at 4 players (the mean over the "
        "bootstrap resamples: one pass of openskill's online update depends on the order "
        "of the games); every interval is "
        "95%: bootstrap over deals for ratings and their differences, normal over deals "
        "for win rates. The differences to `tuned` are paired by deal; an agent "
        "\"beats\" `tuned` when the interval lies above 0. Decisions/s is each agent's own "
        "thinking time only, measured while the tables were played (so it shares the "
        "machine with everything else running). Every game is kept beside the record, so "
        "`uno-env leaderboard --add SPEC` puts an agent of your own on these tables without "
        "playing the others' games again ([Write your own agent](own_agent.md)).", "",
        f"Made by `{record['command']}` in {record['seconds'] / 60:.1f} minutes on "
        f"{record['machine']['cpu']} ({record['machine']['cores']} cores, load average "
        f"{record['machine']['load_before']} before and {record['machine']['load_after']} "
        f"after), {record['machine']['backend']}, {record['date']}; deal seed "
        f"{record['settings']['seed']}"
        + (f", code at commit {record['revision']}" if record.get("revision") else "")
        + f". Every number: [{record['json']}]({record['json']}).",
        "", *_added_note(record)]
    for table in record["tables"]:
        p = table["players"]
        elo = table["rating"] == "elo"
        head = ("rating (Elo)" if elo else "rating (openskill mu)") + " [95%]"
        digits = 0 if elo else 2
        lines += [f"## {'Heads-up' if p == 2 else f'{p} players'}", "",
                  f"{len(table['rows'])} agents, {table['seatings']} seatings x "
                  f"{table['deals']} deals = {table['games']:,} games "
                  f"({table['truncated']} cut at the turn limit), {table['rating_rounds']} "
                  f"bootstrap resamples; a fair share is {100 / p:.0f}% of the wins.", ""]
        cols = ["#", "agent", head, "minus tuned's rating [95%]",
                "minus tuned's win rate, points [95%]"]
        if p == 2:
            cols.append("against tuned heads-up [95%]")
        cols += ["win rate [95%]", "decisions/s"]
        has_exploit = any("win_rate" in (r.get("exploiter") or {}) for r in table["rows"])
        has_search = any((r.get("exploiter") or {}).get("search") for r in table["rows"])
        if has_exploit:
            cols.append("exploiter's win rate [95%]")
            cols.append("exploiter's gain over its start, points [95%]")
        if has_search:
            cols.append("search best response's gain, points [95%]")
        lines += ["| " + " | ".join(cols) + " |", "|" + "|".join(
            ["---:"] * 1 + ["---"] + ["---:"] * (len(cols) - 2)) + "|"]
        for n, r in enumerate(table["rows"], 1):
            rating = (f"{r['rating']:.{digits}f} [{r['low']:.{digits}f}, "
                      f"{r['high']:.{digits}f}]")
            cells = [str(n), f"`{r['agent']}`", rating,
                     _points(r["rating_vs_reference"], digits) if "rating_vs_reference" in r
                     else "-",
                     _points(r["win_rate_vs_reference"], 1, pct=True)
                     if "win_rate_vs_reference" in r else "-"]
            if p == 2:
                h = r.get("head_to_head_vs_reference")
                cells.append(f"{_pct(h['win_rate'])} [{_pct(h['low'])}, {_pct(h['high'])}]"
                             if h else "-")
            cells += [f"{_pct(r['win_rate'])} [{_pct(r['win_low'])}, {_pct(r['win_high'])}]",
                      "n/a" if r["decisions_per_second"] is None
                      else f"{r['decisions_per_second']:,.0f}"]
            e = r.get("exploiter") or {}
            if has_exploit:
                cells += _exploiter_cells(e)
            if has_search:
                cells.append(_search_cell(e))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if any("exploiter" in r for t in record["tables"] for r in t["rows"]):
        lines += ["Exploiters (`experiments/exploit.py`, its records under docs/results/): a "
                  "PPO best response trained against the agent alone from a fixed start "
                  "network (of several, the longest trained: its learner decisions stand "
                  "beside its gain), and where measured a search best response (`ismcts` "
                  "with the agent itself as its model of the opponents and as its prior; "
                  "the largest budget of playouts a decision that was measured, `exploit.py "
                  "--timesteps 0` records under docs/results/exploit-search/); each gain "
                  "is over its start on the same deals, paired by deal. A model's row is "
                  "joined by the SHA-256 of its file, so a probe of an earlier version of "
                  "a model never shows beside it.", ""]
    else:
        lines += ["Exploitability: no probe recorded yet (`experiments/exploit.py` writes "
                  "`docs/results/exploit.json`, which this page then reads).", ""]
    return "\n".join([*lines, *_models_section(record.get("models", []))])


def run(settings: Settings, out_md: Path, out_json: Path, command: str, resume: bool = False,
        jobs: int = 1, exploit: Sequence[Path] = (), say: Callable[[str], None] = print,
        base: Path | None = None, models: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Play both tables and write the page and its record (atomically; progress beside
    the record, removed at the end; every game kept beside it, :func:`games_file`).
    ``base``: the record whose games the added agents of ``settings`` join (:func:`add`;
    without it every game is played, in the same seatings). ``models``: the shipped
    models (``uno-env models --json``), listed with their exploitability
    (:func:`model_exploitability`)."""
    for path, option in ((out_md, "--out"), (out_json, "--json")):
        check_output(path, option)
    hashes: dict[str, str] = {}
    for players, specs, _ in settings.tables():
        hashes.update(file_hashes(*build_agents(specs)))  # every spec checked first
        table_seatings(settings.shipped(players), len(settings.added), players)
        check_progress(progress_file(out_json, players), progress_key(settings, players),
                       resume)                    # and every saved table
    exploits = exploitability(*exploit)
    load_before = load_average()
    start = time.perf_counter()
    results = []
    for players, _, _ in settings.tables():
        progress = progress_file(out_json, players)
        results.append((progress, play_table(settings, players, progress, resume, jobs, say,
                                             base)))
    record = {"command": command, "date": datetime.date.today().isoformat(),
              "json": Path(os.path.relpath(out_json, out_md.parent)).as_posix(),
              "seconds": round(time.perf_counter() - start, 1),
              "revision": revision(),
              "machine": {"cpu": cpu_model(), "cores": cores(), "backend": backend_version(),
                          "load_before": load_before, "load_after": load_average()},
              "settings": asdict(settings),
              "tables": [table_record(res, exploits, hashes) for _, res in results]}
    if models:
        record["models"] = model_exploitability(models, *exploit)
    if settings.added:
        record["added"] = {"agents": list(settings.added), "to": str(base)}
    for (_, res), (players, _, _) in zip(results, settings.tables(), strict=True):
        done = list(range(len(res.schedule.chunks())))
        clock = res.clock if res.clock is not None else Clock.zeros(len(res.labels))
        write_atomic(games_file(out_json, players),
                     _pack(res.records, clock, done, progress_key(settings, players)))
    write_atomic(out_json, json.dumps(record, indent=1) + "\n")
    write_atomic(out_md, markdown(record))
    for progress, _ in results:
        progress.unlink(missing_ok=True)
    return record


def settings_from(tiny: bool, deals_2p: int | None, deals_4p: int | None,
                  rating_rounds: int | None, seed: int | None = None) -> Settings:
    """The published settings (or the tiny smoke run's), with any count or the seed (a
    stream of evaluation deals, as a tournament's) overridden."""
    base = TINY if tiny else Settings()
    given: dict[str, Any] = {"deals_2p": deals_2p, "deals_4p": deals_4p,
                             "rating_rounds": rating_rounds, "seed": seed}
    return replace(base, **{k: v for k, v in given.items() if v is not None})


__all__ = ["AGENTS", "REFERENCE", "SEED", "Settings", "TINY", "TournamentError", "add",
           "games_file", "join_exploits", "markdown", "play_table", "rejoin", "run",
           "settings_from", "table_seatings"]
