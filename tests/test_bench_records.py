"""The benchmarks keep every table they print in a record beside its command, commit,
date and machine, so the figures of docs/benchmarks.md have a source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inline import run_inline


@pytest.mark.parametrize("script, flags, titles", [
    ("bench.py", ["--rounds", "1", "--seconds", "0.02", "--warmup", "0.01"],
     ["Machine", "The engine's decisions/s / RLCard env.run's"]),
    ("bench_tournament.py", ["--games", "64", "--repeat", "1", "--batches", "32"],
     ["machine", "tournaments, official, 4 players"]),
])
def test_a_benchmark_records_every_table_it_prints(tmp_path: Path, script: str,
                                                   flags: list[str], titles: list[str]) -> None:
    record = tmp_path / "bench.json"
    done = run_inline(script, *flags, "--record", str(record))
    assert done.returncode == 0, done.stderr
    saved = json.loads(record.read_text())
    assert saved["command"] == " ".join(["python", f"experiments/{script}", *flags,
                                         "--record", str(record)])
    assert saved["machine"]["cores"] >= 1 and saved["date"] and saved["machine"]["load"]
    assert [t["title"][:len(want)] for t, want in zip(saved["tables"], titles,
                                                      strict=True)] == titles
    for table in saved["tables"]:
        assert table["rows"] and all(len(r) == len(table["header"]) for r in table["rows"])
        for cell in table["rows"][-1]:
            assert cell in done.stdout


@pytest.mark.parametrize("script", ["bench.py", "bench_tournament.py", "cold_start.py"])
def test_a_record_path_that_cannot_be_written_is_refused_before_measuring(tmp_path: Path,
                                                                         script: str) -> None:
    (tmp_path / "file").write_text("")
    done = run_inline(script, "--record", str(tmp_path / "file" / "b.json"))
    assert done.returncode != 0 and "--record" in done.stderr
    assert "Traceback" not in done.stderr and not done.stdout.strip()
