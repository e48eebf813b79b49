"""The ``uno-env`` command: random-play simulation, tournaments, presets and rule tables.

A thin layer over :mod:`uno_env.evaluation.simulate`, :mod:`uno_env.evaluation.tournament` and
:class:`uno_env.Rules`; it only parses arguments and formats output. Tables and
the progress bar use ``rich`` (the ``cli`` extra); without it the same numbers
are printed as plain text.
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import math
import os
import pickle
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import checks
from .agent_registry import agent_specs, load_entry_point, make_agent
from .engine.core import default_backend
from .evaluation.simulate import SimulationResult, simulate
from .evaluation.tournament import SEED_MAX
from .records import Recorder, save_records
from .rules import PRESET_SOURCES, PRESETS, Rules

#: Where game records are saved and served from, unless told otherwise.
RECORDS = "runs/records"
#: The terminal game of ``uno-env play``, named by an entry point so that the
#: environment never imports the agents package (see :mod:`uno_env.agent_registry`).
PLAY_IN_TERMINAL = "uno_agents.human:play_in_terminal"

try:  # the cli extra
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table
except ImportError:  # pragma: no cover - exercised only without the extra
    Console = None  # type: ignore[assignment,misc]


Rows = list[tuple[str, str]]


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.2f}%"


def _interval(lo: float, hi: float) -> str:
    return "n/a" if math.isnan(lo) else f"[{100 * lo:.2f}%, {100 * hi:.2f}%]"


def summary_rows(res: SimulationResult) -> Rows:
    """The overall statistics of a simulation as (metric, value) rows."""
    lo, hi = res.first_player_win_interval()
    return [
        ("games", f"{res.games:,} ({res.terminated:,} won, "
                  f"{res.games - res.terminated:,} truncated)"),
        ("batch, seed", f"{res.batch}, {res.seed}"),
        ("wall time", f"{res.seconds:.2f} s"),
        ("games/s", f"{res.games_per_second:,.0f}"),
        ("decisions/s", f"{res.decisions_per_second:,.0f}"),
        ("decisions per game (mean)", f"{res.mean_decisions:.1f}"),
        ("decisions per game (p95)", f"{res.p95_decisions:.0f}"),
        ("first-player win rate [95% CI]",
         f"{_pct(res.first_player_win_rate())} {_interval(lo, hi)}"),
        ("truncated games (max_turns)", _pct(res.truncated_share)),
    ]


def seat_rows(res: SimulationResult) -> list[tuple[str, str, str, str]]:
    """One (seat, win rate, 95% interval, mean round points) row per seat."""
    rates = res.seat_win_rates()
    points = res.mean_round_points()
    return [(str(seat), _pct(float(rates[seat])), _interval(*ci), f"{points[seat]:.1f}")
            for seat, ci in enumerate(res.seat_win_intervals())]


def _print_result(res: SimulationResult, title: str) -> None:
    seat_header = ("seat", "win rate", "95% interval", "mean round points")
    if Console is None:
        print(title)
        for name, value in summary_rows(res):
            print(f"  {name:<32} {value}")
        print("  " + " | ".join(seat_header))
        for row in seat_rows(res):
            print("  " + " | ".join(row))
        print("  win rates over games with a winner; round points over the same games")
        return
    console = Console()
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for metric in summary_rows(res):
        table.add_row(*metric)
    console.print(table)
    seats = Table(title="per seat (over games with a winner)")
    for i, name in enumerate(seat_header):
        seats.add_column(name, justify="left" if i == 0 else "right")
    for row in seat_rows(res):
        seats.add_row(*row)
    console.print(seats)


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar over finished games, yielding the callback that advances it."""
    if not enabled or Console is None:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns) as bar:
        task = bar.add_task("games", total=total)
        yield lambda n: bar.advance(task, n)


#: Exceptions that mean the command's input cannot be used (a bad value, a missing,
#: unreadable or truncated file, a missing extra, sizes beyond the memory): printed as
#: one line, no traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, TypeError, LookupError, ArithmeticError, OSError, EOFError, ImportError,
    RecursionError, MemoryError, pickle.UnpicklingError)


def one_line(err: BaseException) -> str:
    """``err`` as one line: its message (its type first when that is not a ValueError or
    TypeError, whose messages say what is wrong on their own)."""
    text = " ".join(str(err).split()) or repr(err)
    return text if isinstance(err, (ValueError, TypeError)) else f"{type(err).__name__}: {text}"


@contextmanager
def user_errors(prefix: str = "uno-env") -> Iterator[None]:
    """Turn the :data:`USER_ERRORS` raised inside the block into a one-line message and
    exit status 1."""
    try:
        yield
    except USER_ERRORS as err:
        raise SystemExit(f"{prefix}: {one_line(err)}") from None


class _Redelivery:
    """Raises a dropped Ctrl-C again where it can stop the command, until closed.

    Python cannot propagate an exception out of a callback called from C (llvmlite's
    object-cache notification while numba loads kernels, a finalizer): it reports
    ``Exception ignored ...`` and drops it. A ``KeyboardInterrupt`` dropped there was a
    Ctrl-C lost, and the command ran on. :meth:`hook`, the ``sys.unraisablehook`` of a
    running command, interrupts the main thread again (``_thread.interrupt_main``), so
    the ``KeyboardInterrupt`` is raised at its next line of Python (again if that too is
    in a callback), and prints nothing. It does so from another thread, once the hook has
    returned: interrupting from the hook itself would raise inside the hook, where Python
    drops it again. Every other unraisable exception goes to the previous hook.

    :meth:`close` ends redelivery for good, under the lock that each redelivery holds, so
    no interrupt arrives once the command has stopped (one that arrived as it stopped
    raised a second ``KeyboardInterrupt`` while the first was being handled, and the
    process died of SIGINT after printing its message)."""

    def __init__(self, previous: Callable[[Any], None]) -> None:
        self.previous = previous
        self.lock = threading.Lock()
        self.open = True

    def hook(self, unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and self.open:
            _thread.start_new_thread(self._interrupt_soon, ())
            return
        self.previous(unraisable)

    def _interrupt_soon(self) -> None:
        """Interrupt the main thread a moment from now, if the command still runs."""
        time.sleep(0.05)
        with self.lock:
            if self.open:
                _thread.interrupt_main()

    def close(self) -> None:
        with self.lock:
            self.open = False


def _ignore_signal(signum: int, frame: Any) -> None:
    """A SIGINT handler that does nothing: while a command's interrupt handling is put
    away, an interrupt already on its way is absorbed rather than raised."""


def _let_pending_signals_run() -> None:
    """Nothing, as a Python call: entering it runs the handlers of signals that are
    pending (Python runs them between its own instructions, not inside C calls)."""


#: Seconds a child process has to stop after a forwarded Ctrl-C (to save a checkpoint)
#: before it is killed with everything it started.
CHILD_GRACE_S = 10.0


class _Children:
    """The processes :func:`run_process` started and that are still running, from any
    thread: a Ctrl-C is forwarded to each at once (even while the main thread waits for
    threads that wait for them), and each is killed after :data:`CHILD_GRACE_S`."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[subprocess.Popen[Any], bool] = {}   # -> interrupted already

    def add(self, proc: subprocess.Popen[Any]) -> None:
        with self.lock:
            self.running[proc] = False

    def discard(self, proc: subprocess.Popen[Any]) -> None:
        with self.lock:
            self.running.pop(proc, None)

    def interrupt(self, only: subprocess.Popen[Any] | None = None) -> None:
        """SIGINT to the process group of each child (of ``only``), once, and SIGKILL to
        it when it is still there :data:`CHILD_GRACE_S` seconds later (from a thread of
        its own, so that it happens whatever this process waits for meanwhile)."""
        with self.lock:
            procs = [p for p, done in self.running.items()
                     if not done and (only is None or p is only)]
            for proc in procs:
                self.running[proc] = True
        for proc in procs:
            _signal_group(proc, signal.SIGINT)
            _thread.start_new_thread(_kill_after_grace, (proc,))

    def stop(self, only: subprocess.Popen[Any] | None = None) -> None:
        """Interrupt each child (``only``), and wait until it has ended (killed after
        the grace period), so that nothing it started outlives it."""
        self.interrupt(only)
        with self.lock:
            procs = [p for p in self.running if only is None or p is only]
        for proc in procs:
            with contextlib.suppress(BaseException):   # a second Ctrl-C stops waiting
                proc.wait(timeout=2 * CHILD_GRACE_S)
            self.discard(proc)


def _kill_after_grace(proc: subprocess.Popen[Any]) -> None:
    """Kill ``proc``'s process group (what it started too) once it has ended or the
    grace period is over."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=CHILD_GRACE_S)
    _signal_group(proc, signal.SIGKILL)


def _signal_group(proc: subprocess.Popen[Any], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


_children = _Children()


def _on_ctrl_c(signum: int, frame: Any) -> None:
    """The SIGINT handler of a command: forward the Ctrl-C to the running children, then
    raise ``KeyboardInterrupt`` as Python's own handler does."""
    _children.interrupt()
    raise KeyboardInterrupt


@contextmanager
def _interrupts() -> Iterator[None]:
    """Within the block, a Ctrl-C reaches the command even where Python would drop it
    (:class:`_Redelivery`), and reaches its child processes (:func:`_on_ctrl_c`); both
    hooks are put back after it (blocks may nest). Leaving the block, an interrupt that
    is already on its way (a redelivery, a second Ctrl-C) is absorbed, so the command's
    own handling of the first one runs to its end."""
    redelivery = _Redelivery(sys.unraisablehook)
    sys.unraisablehook = redelivery.hook
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _on_ctrl_c) if main_thread else None
    try:
        yield
    finally:
        while True:   # an interrupt raised midway is absorbed, and the steps run again
            try:
                if main_thread:
                    signal.signal(signal.SIGINT, _ignore_signal)
                redelivery.close()
                _let_pending_signals_run()
                sys.unraisablehook = redelivery.previous
                if main_thread:
                    signal.signal(signal.SIGINT, previous)
                break
            except KeyboardInterrupt:
                continue


def run_command(main: Callable[[], int | None], name: str) -> int:
    """Run a command's ``main``; Ctrl-C ends it, and every process it started with
    :func:`run_process`, with a one-line message on stderr and exit status 130 (no
    traceback), also where Python would drop the interrupt (:func:`_interrupts`). Output
    piped into a reader that stops early (``| head``) ends it quietly with status 141,
    as a shell reports a command ended by SIGPIPE. Returns the exit status (``main``'s
    result, 0 for None)."""
    try:
        with _interrupts():
            result = main()
    except KeyboardInterrupt:
        _children.stop()
        print(f"\n{name}: interrupted", file=sys.stderr)
        return 130
    except subprocess.CalledProcessError as err:   # a step of run_process: it said why
        step = Path(str(err.cmd[1])).name if len(err.cmd) > 1 else "a step"
        print(f"{name}: {step} failed (exit status {err.returncode})", file=sys.stderr)
        return 1
    except BrokenPipeError:      # the reader of the output left early (``| head``)
        _children.stop()
        _quiet_stdout()
        return 141
    return int(result or 0)


def _quiet_stdout() -> None:
    """Point stdout at the null device, so that Python's flush at exit, into a pipe
    nobody reads any more, raises nothing."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _dies_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to send the child SIGTERM when its parent ends,
    however the parent ends (a kill included); None elsewhere. The C library is looked
    up here, in the parent, so that the child only calls it."""
    if sys.platform != "linux":
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, signal.SIGTERM)   # 1: PR_SET_PDEATHSIG


def run_process(command: Sequence[str], *, stdout: Any = None) -> None:
    """Run ``command`` (an experiment's step in its own process) to its end, from any
    thread, raising ``subprocess.CalledProcessError`` if it fails; a Ctrl-C or any
    exception in this process ends it and every process it started.

    The child runs in a process group of its own, so a Ctrl-C at the terminal reaches
    this process alone, which forwards it to the group (a training saves its
    checkpoint), waits up to :data:`CHILD_GRACE_S` seconds, then kills the group. On
    Linux the child also gets SIGTERM when this process ends in any other way."""
    proc = subprocess.Popen(list(command), stdout=stdout, start_new_session=True,
                            preexec_fn=_dies_with_parent())
    _children.add(proc)
    try:
        code = proc.wait()
    except BaseException:
        _children.stop(proc)
        raise
    finally:
        _children.discard(proc)
    if code:
        raise subprocess.CalledProcessError(code, list(command))


def _rules(preset: str, players: int) -> Rules:
    try:
        return Rules.preset(preset, num_players=players)
    except ValueError as err:
        raise SystemExit(f"uno-env: {err}") from None


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play random legal games and print their statistics."""
    rules = _rules(args.preset, args.players)
    with _progress(args.games, not args.no_progress) as advance, user_errors():
        res = simulate(rules, args.games, batch=args.batch, seed=args.seed, on_progress=advance)
    _print_result(res, f"Random legal play: {args.preset}, {args.players} players "
                       f"({default_backend()} engine)")
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    """Play the agents against each other on one or more presets; print and save results."""
    from .evaluation import report
    from .evaluation.tournament import build_agents, seatings, tournament

    specs = agent_specs(args.agents)
    presets = [p.strip() for p in (args.presets or args.preset).split(",") if p.strip()]
    players = args.players if args.players is not None else len(specs)
    with user_errors():  # every input checked before the first game
        if not presets:
            raise ValueError(f"--presets {args.presets!r} names no preset")
        unknown = [p for p in presets if p not in PRESETS]
        if unknown:
            raise ValueError(f"unknown preset {unknown[0]!r}; presets: {', '.join(PRESETS)}")
        try:
            build_agents(specs)
        except (TypeError, ValueError) as err:
            raise ValueError(f"--agents: {err}") from None
        rules = []
        for preset in presets:
            try:
                rules.append(Rules.preset(preset, num_players=players))
            except ValueError as err:   # name the preset and the flag that set the count
                flag = ("--players" if args.players is not None
                        else f"--agents (one seat per agent: {len(specs)}; --players sets it)")
                raise ValueError(f"--presets {preset} with {flag}: {err}") from None
        try:
            table = seatings(len(specs), players)
        except ValueError as err:
            raise ValueError(f"--agents and --players: {err}") from None
        report.check_outputs(args.json, args.csv, args.plot)
        if args.ray:
            from .evaluation.ray import connect

            connect(None if args.ray is True else str(args.ray))
        if args.save_games and args.ray:
            raise ValueError("--save-games records games played here: drop --ray")
        if args.save_games:   # the folder is made before the games, not after them
            Path(args.records).mkdir(parents=True, exist_ok=True)
    per_preset = -(-args.games // len(table)) * len(table)
    results = []
    saved: list[Path] = []
    with _progress(per_preset * len(rules), not args.no_progress) as advance, user_errors():
        for name, r in zip(presets, rules, strict=True):
            recorder = (Recorder(range(args.save_games), "uno-env tournament")
                        if args.save_games else None)
            results.append(tournament(specs, r, args.games, seed=args.seed, batch=args.batch,
                                      chunk=args.chunk, preset=name, on_progress=advance,
                                      ray=args.ray, recorder=recorder))
            if recorder is not None:
                saved += save_records(recorder.records(r, name), args.records,
                                      f"tournament-{name}-{players}p-seed{args.seed}")
    report.print_results(results)
    with user_errors():
        report.save(results, args.json, args.csv, args.plot,
                    shlex.join(["uno-env", "tournament", *args.argv]))
    if saved:
        print(f"saved {len(saved)} game records in {args.records}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """Play the canonical leaderboard (:mod:`uno_env.evaluation.leaderboard`) and write its
    page and record; ``--tiny`` is a smoke run written elsewhere; ``--add`` plays agents of
    one's own into a record's tables, written elsewhere too."""
    from pathlib import Path

    from .evaluation import leaderboard

    specs = agent_specs(args.add or [])
    folder = Path(leaderboard.TINY_OUT if args.tiny else "docs")
    base = Path(args.base or (folder if args.tiny else folder / "results") / "leaderboard.json")
    if specs:
        folder = Path(leaderboard.ADD_OUT)
    out = Path(args.out or folder / "leaderboard.md")
    record = Path(args.json or (folder if args.tiny or specs else folder / "results") /
                  "leaderboard.json")
    shown = [a for a in (args.argv or []) if a != "--resume"]
    command = shlex.join(["uno-env", "leaderboard", *shown])
    with user_errors():
        from .evaluation.report import check_distinct

        fixed = [f for f, v in (("--deals-2p", args.deals_2p), ("--deals-4p", args.deals_4p),
                                ("--seed", args.seed), ("--rating-rounds", args.rating_rounds))
                 if v is not None]
        if specs and fixed:
            raise ValueError(f"--add plays on the deals and settings of {str(base)!r}: "
                             f"{fixed[0]} cannot change them")
        if args.add is not None and not specs:
            raise ValueError("--add names no agent")
        if args.base and not specs:
            raise ValueError("--base is the record --add plays into: give --add too")
        if args.rejoin and (specs or fixed or args.tiny or args.resume):
            raise ValueError("--rejoin plays nothing: it takes only --out, --json and "
                             "--exploit")
        check_distinct({"--out": out, "--json": record, "--base": base} if specs
                       else {"--out": out, "--json": record})
        if args.tiny or specs:
            folder.mkdir(parents=True, exist_ok=True)
        exploit = [Path(p) for p in (args.exploit.split(",") if args.exploit is not None
                                     else leaderboard.EXPLOIT_RECORDS) if p]
        models = load_entry_point(MODELS_ENTRY_POINT)()
        def say(text: str) -> None:
            print(text, flush=True)

        if args.rejoin:
            leaderboard.rejoin(out, record, command, exploit, models)
        elif specs:
            leaderboard.add(base, specs, out, record, command, resume=args.resume,
                            jobs=args.jobs, exploit=exploit, say=say, models=models)
        else:
            settings = leaderboard.settings_from(args.tiny, args.deals_2p, args.deals_4p,
                                                 args.rating_rounds, args.seed)
            leaderboard.run(settings, out, record, command, resume=args.resume,
                            jobs=args.jobs, exploit=exploit, say=say, models=models)
    print(f"wrote {out} and {record}")
    return 0


def preset_rows() -> list[tuple[str, str, str]]:
    """(name, source, options differing from official) for every preset."""
    rows = []
    for name in PRESETS:
        diff = Rules.preset(name).differences()
        rows.append((name, PRESET_SOURCES[name],
                     ", ".join(f"{k}={v!r}" for k, v in diff.items()) or "-"))
    return rows


def cmd_presets(args: argparse.Namespace) -> int:
    """List the presets, where they come from, and how they differ from official."""
    rows = preset_rows()
    if Console is None:
        for name, source, diff in rows:
            print(f"{name:<14} {source}: {diff}")
        return 0
    table = Table(title="Rule presets")
    for col in ("preset", "source", "differs from official by"):
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    return 0


#: The function listing the shipped models, in the agents package (imported on use).
MODELS_ENTRY_POINT = "uno_agents.catalogue:shipped_models"


def cmd_models(args: argparse.Namespace) -> int:
    """List every shipped model with its file's hash and its card's headline."""
    from .agent_registry import load_entry_point

    models = load_entry_point(MODELS_ENTRY_POINT)()
    if args.json:
        import json

        print(json.dumps(models, indent=1))
        return 0
    rows = [[m["spec"] if i == 0 else "", m["kind"] if i == 0 else "",
             m["sha256"][:12] if i == 0 else "", line]
            for m in models
            for i, line in enumerate(m["headline"] or ["no headline measured on this file"])]
    from .evaluation.report import print_table

    print_table("Shipped models (headlines: docs/results/headlines.json)",
                ["spec", "kind", "sha256", "headline [95%]"], rows)
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    """Print every option of a preset, marking those that differ from official."""
    print(_rules(args.preset, args.players).describe())
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play one game in the terminal against agents."""
    play_in_terminal = load_entry_point(PLAY_IN_TERMINAL)
    rules = _rules(args.preset, args.players)
    specs = [s for s in args.opponents.split(",") if s.strip()]
    if len(specs) == 1:
        specs *= args.players - 1
    with user_errors("uno-env play"):   # each flag checked, and named, before the deal
        if not 0 <= args.seat < args.players:
            raise ValueError(f"--seat {args.seat} is not a seat 0-{args.players - 1}")
        if len(specs) != args.players - 1:
            raise ValueError(f"--opponents: {args.players} players need {args.players - 1} "
                             f"opponents, got {len(specs)} (or give one for every seat)")
        try:
            opponents = [make_agent(s) for s in specs]
        except (TypeError, ValueError) as err:
            raise ValueError(f"--opponents: {err}") from None
        play_in_terminal(rules, opponents, seat=args.seat, seed=args.seed,
                         color=not args.no_color)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the web page: play against agents and replay game records."""
    from .web.server import serve

    with user_errors("uno-env serve"):
        serve(args.records, args.port)
    return 0


def integer_from(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for integers in ``[low, high]``: anything else is a usage error."""
    def parse(text: str) -> int:
        try:
            return checks.integer(int(text), "value", low, high)
        except ValueError as err:
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer {bounds}") from err
    parse.__name__ = "integer"
    return parse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uno-env`` (exposed for tests and documentation)."""
    parser = argparse.ArgumentParser(
        prog="uno-env", description="Fast, rule-faithful UNO environment: tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play uniformly random legal games in batch")
    sim.add_argument("--preset", default="official", choices=list(PRESETS))
    sim.add_argument("--players", type=int, default=4, help="number of players (2-10)")
    sim.add_argument("--games", type=integer_from(1), default=10_000, help="games to play")
    sim.add_argument("--batch", type=integer_from(1), default=4096,
                     help="games stepped at once")
    sim.add_argument("--seed", type=integer_from(0, checks.SEED_LIMIT - 1), default=0,
                     help="seed of the first game (0 to 2**63-1)")
    sim.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    sim.set_defaults(func=cmd_simulate)

    tou = sub.add_parser("tournament", help="agents against each other, seats rotated, "
                                            "deals duplicated")
    tou.add_argument("--agents", nargs="+", default=["greedy,random"],
                     help="agent specs, comma-separated (e.g. greedy,random_play,"
                          "ismcts:budget=64); repeat one to fill seats")
    tou.add_argument("--preset", default="official", help="rule preset")
    tou.add_argument("--presets", help="several presets, comma-separated (one table each)")
    tou.add_argument("--players", type=integer_from(2, 10),
                     help="seats at the table, 2-10 (default: one per agent)")
    tou.add_argument("--games", type=integer_from(1), default=1000,
                     help="games per preset (rounded up to whole deals x seatings)")
    tou.add_argument("--batch", type=integer_from(1), default=4096,
                     help="games stepped at once")
    tou.add_argument("--chunk", type=integer_from(1), default=1024,
                     help="deals sharing an agent random stream (results depend on it)")
    tou.add_argument("--seed", type=integer_from(0, SEED_MAX), default=0,
                     help=f"the stream of evaluation deals played (0 to {SEED_MAX:,}); the "
                          "same seed and deal count give the same deals as evaluate.py and "
                          "the leaderboard (default: %(default)s)")
    tou.add_argument("--json", help="write the results as JSON to this file")
    tou.add_argument("--csv", help="write the per-agent results as CSV to this file")
    tou.add_argument("--plot", help="write a figure (heatmap heads-up, ratings otherwise)")
    tou.add_argument("--ray", nargs="?", const=True, metavar="ADDRESS",
                     help="play the games as Ray tasks (local Ray, or the cluster at ADDRESS)")
    tou.add_argument("--save-games", type=integer_from(0), default=0, metavar="N",
                     help="save the first N games of each preset as game records, to "
                          "replay in `uno-env serve` or a notebook (default: none)")
    tou.add_argument("--records", default=RECORDS, metavar="DIR",
                     help="folder of the game records (default: %(default)s)")
    tou.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    tou.set_defaults(func=cmd_tournament)

    led = sub.add_parser("leaderboard", help="every shipped agent on the published deals, "
                                             "heads-up and at 4 players: docs/leaderboard.md")
    led.add_argument("--tiny", action="store_true",
                     help="a smoke run of a few agents and deals, written to "
                          "runs/leaderboard-tiny/ (its numbers mean nothing)")
    led.add_argument("--resume", action="store_true",
                     help="continue a stopped run of the same settings where it stopped")
    led.add_argument("--jobs", type=integer_from(1), default=1,
                     help="processes to play in (the results do not depend on it; "
                          "default 1)")
    led.add_argument("--deals-2p", type=integer_from(1),
                     help="deals of the heads-up table (default 240; --tiny: 2)")
    led.add_argument("--deals-4p", type=integer_from(1),
                     help="deals of the 4-player table (default 32; --tiny: 1)")
    led.add_argument("--seed", type=integer_from(0, SEED_MAX),
                     help="the stream of evaluation deals played, as in a tournament "
                          "(default 2026, the published deals)")
    led.add_argument("--rating-rounds", type=integer_from(0),
                     help="bootstrap resamples of the ratings (default 200; --tiny: 20)")
    led.add_argument("--out", help="the page (default docs/leaderboard.md)")
    led.add_argument("--json", help="the record (default docs/results/leaderboard.json)")
    led.add_argument("--add", action="append", metavar="SPEC",
                     help="agent specs of one's own (comma-separated or repeated, e.g. "
                          "my_agents.py:Hoarder:depth=2) added to the tables of --base: they "
                          "play the seatings they sit in on its deals, its recorded games "
                          "are not played again; written to runs/leaderboard-add/ unless "
                          "--out/--json say otherwise")
    led.add_argument("--base", help="the record --add plays into (default "
                                    "docs/results/leaderboard.json, the published one; "
                                    "--tiny: the smoke run's)")
    led.add_argument("--exploit",
                     help="experiments/exploit.py records to read exploitability from, "
                          "comma-separated, a folder for its *.json (default: the heads-up "
                          "and the 4-player probe, the later PPO exploiters and the search "
                          "best responses: leaderboard.EXPLOIT_RECORDS)")
    led.add_argument("--rejoin", action="store_true",
                     help="play nothing: read the --exploit records again into the record "
                          "--json and rewrite its page --out (exploit probes come after "
                          "the tables)")
    led.set_defaults(func=cmd_leaderboard)

    pre = sub.add_parser("presets", help="list the rule presets")
    pre.set_defaults(func=cmd_presets)

    mod = sub.add_parser("models", help="list the shipped models with their headlines")
    mod.add_argument("--json", action="store_true", help="print them as JSON")
    mod.set_defaults(func=cmd_models)

    rul = sub.add_parser("rules", help="print every rule option of a preset")
    rul.add_argument("--preset", default="official", choices=list(PRESETS))
    rul.add_argument("--players", type=int, default=4)
    rul.set_defaults(func=cmd_rules)

    play = sub.add_parser("play", help="play a game in the terminal against agents")
    play.add_argument("--preset", default="official", choices=list(PRESETS))
    play.add_argument("--players", type=int, default=4)
    play.add_argument("--opponents", default="greedy",
                      help="agent specs, one per other seat or one for all (e.g. "
                           "greedy,ismcts:budget=32,random_play)")
    play.add_argument("--seat", type=int, default=0, help="your seat")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--no-color", action="store_true", help="plain text")
    play.set_defaults(func=cmd_play)

    web = sub.add_parser("serve", help="a local web page: play against agents, replay "
                                       "game records (the web extra)")
    web.add_argument("--port", type=integer_from(0, 65535), default=8765,
                     help="port on 127.0.0.1 (0: any free one; default: %(default)s)")
    web.add_argument("--records", default=RECORDS, metavar="DIR",
                     help="folder of the game records the page opens and saves "
                          "(default: %(default)s)")
    web.set_defaults(func=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``uno-env`` command."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    return run_command(lambda: args.func(args), "uno-env")


if __name__ == "__main__":
    sys.exit(main())
