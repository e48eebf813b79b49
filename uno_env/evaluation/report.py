"""Tournament results for people: rich tables, JSON and CSV files, matplotlib figures.

Files are written whole or not at all (to a temporary name, then renamed), so
a failed run never leaves a half-written report behind.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..deals import deal_seed, describe
from ..files import check_output, write_atomic
from ..tooling.machine import provenance
from .tournament import TournamentResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f}%"


def _ci(lo: float, hi: float, pct: bool = True) -> str:
    if math.isnan(lo):
        return "n/a"
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]" if pct else f"[{lo:.1f}, {hi:.1f}]"


def caption(res: TournamentResult) -> str:
    """What was played: preset, players, games, deals, seatings."""
    return (f"{res.preset}, {res.rules.num_players} players: {res.games:,} games = "
            f"{res.deals:,} deals x {len(res.schedule.seatings)} seatings "
            f"(seed {res.schedule.seed}, {res.truncated:,} truncated, "
            f"{res.decisions / max(res.seconds, 1e-9):,.0f} decisions/s)")


#: How each kind of rating is headed in tables and figures.
RATING_NAMES = {"elo": "rating (Elo, Bradley-Terry)", "openskill": "rating (openskill mu)"}


def rating_text(value: float, low: float, high: float, kind: str) -> tuple[str, str]:
    """A rating and its interval as table cells (Elo points whole, openskill to 0.01)."""
    digits = 0 if kind == "elo" else 2
    interval = "n/a" if math.isnan(low) else f"[{low:.{digits}f}, {high:.{digits}f}]"
    return f"{value:.{digits}f}", interval


def results_rows(res: TournamentResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-agent table with ratings, best rated first."""
    stats = res.agent_stats()
    ratings = res.ratings()
    low, high = ratings.interval()
    header = ["agent", "games", "win rate", "95% CI", "mean points", "95% CI",
              RATING_NAMES[ratings.kind], "95% CI"]
    rows = [[s.label, f"{s.games:,}", _pct(s.win_rate), _ci(s.win_low, s.win_high),
             f"{s.points:.1f}", _ci(s.points_low, s.points_high, pct=False),
             *rating_text(ratings.value[i], low[i], high[i], ratings.kind)]
            for i, s in enumerate(stats)]
    order = sorted(range(len(stats)), key=lambda i: -ratings.value[i])
    return header, [rows[i] for i in order]


def matrix_rows(res: TournamentResult) -> tuple[list[str], list[list[str]]]:
    """Head-to-head win rates (row agent against column agent), 95% intervals over deals."""
    rate, low, high = res.head_to_head_rates()
    header = ["row beats column"] + res.labels
    rows = []
    for i, label in enumerate(res.labels):
        cells = [label]
        for j in range(len(res.labels)):
            cells.append("-" if math.isnan(rate[i, j]) else
                         f"{_pct(rate[i, j])} {_ci(low[i, j], high[i, j])}")
        rows.append(cells)
    return header, rows


def summary_rows(results: Sequence[TournamentResult]) -> tuple[list[str], list[list[str]]]:
    """Agent x preset win rates of tournaments over several presets."""
    header = ["agent"] + [r.preset for r in results]
    stats = [{s.label: s for s in r.agent_stats()} for r in results]
    rows = [[label] + [f"{_pct(st[label].win_rate)} {_ci(st[label].win_low, st[label].win_high)}"
                       for st in stats] for label in results[0].labels]
    return header, rows


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A rich table (plain text without the ``cli`` extra)."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - exercised only without the extra
        print(title)
        for row in [header, *rows]:
            print("  " + " | ".join(row))
        return
    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    # wide enough for every cell in full: a table cut to the terminal would cut names
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    Console(width=max(120, sum(widths) + 3 * len(widths) + 4)).print(table)


class PrintedTables:
    """Tables printed as :func:`print_table` prints them and kept, so that a benchmark's
    record holds every figure it showed: :meth:`write` saves them with the command, the
    commit, the date and the machine (:func:`uno_env.tooling.machine.provenance`)."""

    def __init__(self) -> None:
        self.tables: list[dict[str, object]] = []

    def print(self, title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """Print one table and keep it."""
        print_table(title, list(header), [list(r) for r in rows])
        self.tables.append({"title": title, "header": list(header),
                            "rows": [list(r) for r in rows]})

    @staticmethod
    def check(path: Path, program: str) -> None:
        """Refuse, in one line naming ``program``, a record ``path`` that cannot be
        written, before anything is measured."""
        try:
            check_output(path, "--record")
        except ValueError as e:
            raise SystemExit(f"{program}: {e}") from None

    def write(self, path: Path, command: str) -> None:
        """The record at ``path`` (atomically): provenance (its machine's load average
        is the end's; a benchmark's first table has the start's) and every table kept."""
        record = {**provenance(command), "tables": self.tables}
        write_atomic(path, json.dumps(record, indent=1) + "\n")


def print_results(results: Sequence[TournamentResult]) -> None:
    """Every tournament's table (and matrix heads-up), then the summary over presets."""
    for res in results:
        print_table(caption(res), *results_rows(res))
        if res.rules.num_players == 2 and len(res.labels) > 2:
            print_table(f"head to head, {res.preset}", *matrix_rows(res))
    if len(results) > 1:
        print_table("win rate by preset [95% CI]", *summary_rows(results))


def plot_format(path: str | os.PathLike) -> str:
    """The image format of a figure file, from its suffix (``png`` without one); raises
    ``ValueError`` for a suffix matplotlib cannot write, ``ImportError`` without it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backend_bases import FigureCanvasBase

    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    formats = FigureCanvasBase.get_supported_filetypes()
    if fmt not in formats:
        raise ValueError(f"--plot {str(path)!r}: cannot write a {fmt!r} figure; formats: "
                         f"{', '.join(sorted(formats))}")
    return fmt


def check_distinct(outputs: Mapping[str, str | os.PathLike | None]) -> None:
    """Raise ``ValueError`` naming two options (``{option: path}``) that name the same
    file: one output would overwrite the other."""
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = Path(path).resolve()
        if key in seen:
            raise ValueError(f"{seen[key]} and {option} name the same file {str(path)!r}: "
                             f"each output needs a file of its own")
        seen[key] = option


def check_outputs(json_path: str | None = None, csv_path: str | None = None,
                  plot_path: str | None = None) -> None:
    """Check the report files before anything is played (:func:`check_output`; the
    figure's format too; no two the same file): a bad path must not cost the results."""
    outputs = {"--json": json_path, "--csv": csv_path, "--plot": plot_path}
    check_distinct(outputs)
    for option, path in outputs.items():
        if path:
            check_output(path, option)
    if plot_path:
        plot_format(plot_path)


def to_json(results: Sequence[TournamentResult], command: str) -> str:
    """The record of a tournament command: its provenance (the exact ``command``, the
    commit, date, machine and the deals every preset played) and one entry per preset
    under ``tournaments``."""
    first = results[0].schedule
    deals = (describe(deal_seed(first.purpose, first.seed), first.deals)
             if first.seeds is None else None)
    record = {**provenance(command, deals), "tournaments": [r.to_dict() for r in results]}
    return json.dumps(record, indent=1)


def tournaments_of(record: list[dict[str, Any]] | dict[str, Any]) -> list[dict[str, Any]]:
    """The per-preset entries of a record :func:`to_json` wrote (records written before
    it carried provenance are the bare list of entries)."""
    return record if isinstance(record, list) else record["tournaments"]


def to_csv(results: Sequence[TournamentResult]) -> str:
    """One row per agent and preset: win rate, mean points and rating."""
    buf = io.StringIO()
    out = csv.writer(buf)
    out.writerow(["preset", "players", "agent", "games", "deals", "wins", "win_rate", "win_low",
                  "win_high", "points", "points_low", "points_high", "rating_kind", "rating",
                  "rating_low", "rating_high"])
    for res in results:
        ratings = res.ratings()
        low, high = ratings.interval()
        for i, s in enumerate(res.agent_stats()):
            out.writerow([res.preset, res.rules.num_players, s.label, s.games, res.deals,
                          s.wins, s.win_rate, s.win_low, s.win_high, s.points, s.points_low,
                          s.points_high, ratings.kind, ratings.value[i], low[i], high[i]])
    return buf.getvalue()


def figure(results: Sequence[TournamentResult]) -> Figure:
    """A matplotlib figure, one panel per tournament: the head-to-head heatmap heads-up,
    rating bars with 95% intervals at 3+ players."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(results)
    fig, axes = plt.subplots(1, n, figsize=(5.5 * n, 4.5), squeeze=False)
    for ax, res in zip(axes[0], results, strict=True):
        if res.rules.num_players == 2:
            _heatmap(ax, res)
        else:
            _rating_bars(ax, res)
        ax.set_title(f"{res.preset}, {res.rules.num_players} players, {res.games:,} games",
                     fontsize=10)
    fig.tight_layout()
    return fig


def _heatmap(ax: Axes, res: TournamentResult) -> None:
    rate, low, high = res.head_to_head_rates()
    ax.imshow(rate, vmin=0, vmax=1, cmap="RdBu")
    k = len(res.labels)
    for i in range(k):
        for j in range(k):
            if not math.isnan(rate[i, j]):
                ax.text(j, i, f"{100 * rate[i, j]:.1f}%\n±{50 * (high[i, j] - low[i, j]):.1f}",
                        ha="center", va="center", fontsize=8)
    ax.set_xticks(range(k), res.labels, rotation=30, ha="right")
    ax.set_yticks(range(k), res.labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("win rate of")


def _rating_bars(ax: Axes, res: TournamentResult) -> None:
    ratings = res.ratings()
    low, high = ratings.interval()
    err = np.array([ratings.value - low, high - ratings.value])
    ax.barh(range(len(ratings.value)), ratings.value, xerr=err, capsize=3, color="tab:blue")
    ax.set_yticks(range(len(ratings.value)), res.labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"{RATING_NAMES[ratings.kind]}, 95% bootstrap interval over deals")


def save(results: Sequence[TournamentResult], json_path: str | None = None,
         csv_path: str | None = None, plot_path: str | None = None,
         command: str = "uno-env tournament") -> None:
    """Write the requested reports; everything is computed before anything is written.
    ``command``: what made the results, for the JSON record's provenance."""
    texts: list[tuple[str, str | bytes]] = []
    if json_path:
        texts.append((json_path, to_json(results, command)))
    if csv_path:
        texts.append((csv_path, to_csv(results)))
    if plot_path:
        fig = figure(results)
        buf = io.BytesIO()
        fig.savefig(buf, format=plot_format(plot_path), dpi=120)
        texts.append((plot_path, buf.getvalue()))
    for path, text in texts:
        write_atomic(path, text)
