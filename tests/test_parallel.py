"""``--jobs N`` pools (uno_env.tooling.parallel): an interrupted run starts no new piece."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from uno_env.tooling.parallel import InProcess, executor


def _mark_and_wait(folder: str, index: int) -> int:
    (Path(folder) / f"started-{index}").touch()
    time.sleep(0.5)
    return index


def test_a_clean_exit_runs_every_piece(tmp_path: Path) -> None:
    with executor(2) as pool:
        futures = [pool.submit(_mark_and_wait, str(tmp_path), i) for i in range(4)]
    assert [f.result() for f in futures] == [0, 1, 2, 3]
    assert len(list(tmp_path.iterdir())) == 4


def test_leaving_the_pool_by_an_exception_starts_no_further_piece(tmp_path: Path) -> None:
    """Ctrl-C in the waiting process: the pieces already handed to a worker but not
    started are skipped, not run to the end (at most one piece per worker ran)."""
    with pytest.raises(KeyboardInterrupt), executor(2) as pool:
        for i in range(6):
            pool.submit(_mark_and_wait, str(tmp_path), i)
        time.sleep(0.2)
        raise KeyboardInterrupt
    assert len(list(tmp_path.iterdir())) <= 2


def test_one_job_runs_in_this_process() -> None:
    assert isinstance(executor(1), InProcess)
    with pytest.raises(ValueError, match="--jobs must be at least 1, got 0"):
        executor(0)
