"""Outputs: two options never name one file, files are written whole by any number of
writers, exploit.md is written atomically, and exploit.py plays on its ``--threads``."""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from uno_env.cli import main
from uno_env.files import write_atomic

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("flags", [["--json", "{d}/out.txt", "--csv", "{d}/out.txt"],
                                   ["--csv", "{d}/out.txt", "--plot", "{d}/./out.txt"]])
def test_a_tournament_refuses_two_outputs_in_one_file(tmp_path: Path, flags: list[str]
                                                      ) -> None:
    x = str(tmp_path / "out.txt")
    args = [f.format(d=tmp_path) for f in flags]
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "--agents", "greedy,random", "--games", "2", "--no-progress",
              *args])
    assert "name the same file" in str(exc.value)
    assert not Path(x).exists()


def test_the_leaderboard_refuses_its_page_and_record_in_one_file(tmp_path: Path) -> None:
    x = tmp_path / "board.md"
    x.write_text("kept")
    with pytest.raises(SystemExit) as exc:
        main(["leaderboard", "--tiny", "--out", str(x), "--json", str(x)])
    assert "--out and --json name the same file" in str(exc.value)
    assert x.read_text() == "kept"


def test_writers_of_one_file_never_collide(tmp_path: Path) -> None:
    target = tmp_path / "shared.json"
    errors: list[BaseException] = []

    def write(k: int) -> None:
        try:
            for _ in range(200):
                write_atomic(target, str(k) * 1000)
        except BaseException as err:  # reported below
            errors.append(err)
    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    text = target.read_text()
    assert len(set(text)) == 1 and len(text) == 1000
    assert [p.name for p in tmp_path.iterdir()] == ["shared.json"]


def test_write_atomic_gives_the_permissions_of_a_plain_write(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    write_atomic(tmp_path / "atomic", "x")
    assert os.stat(tmp_path / "atomic").st_mode == os.stat(tmp_path / "plain").st_mode


NET = REPO / "agents" / "models" / "official-2p.safetensors"


def load_exploit() -> object:
    """``experiments/exploit.py`` as a module, to run its ``main`` in this process."""
    pytest.importorskip("safetensors")
    spec = importlib.util.spec_from_file_location("exploit_probe",
                                                  REPO / "experiments" / "exploit.py")
    exploit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exploit)   # type: ignore[union-attr]
    return exploit


def test_exploit_plays_its_evaluation_on_its_threads(tmp_path: Path, monkeypatch) -> None:
    """``--threads`` holds for the games exploit.py plays itself, not only for training:
    a loaded machine slows games on more threads than it has free cores."""
    exploit = load_exploit()   # skips first where the training extra is missing
    import torch

    monkeypatch.setattr(exploit, "train_exploiter", lambda target, args: NET)
    threads: list[int] = []

    def deal_wins(*args: object, **kwargs: object) -> np.ndarray:
        threads.append(torch.get_num_threads())
        return np.array([1.0, 0.0])

    monkeypatch.setattr(exploit, "deal_wins", deal_wins)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        exploit.main(["--targets", "greedy", "--init-net", str(NET), "--deals", "1",
                      "--threads", "1", "--out", str(tmp_path / "probe")])
    finally:
        torch.set_num_threads(before)
    assert threads == [1, 1]


def test_exploit_md_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    exploit = load_exploit()
    monkeypatch.setattr(exploit, "train_exploiter", lambda target, args: NET)
    monkeypatch.setattr(exploit, "deal_wins",
                        lambda *a, **k: np.array([1.0, 0.0, 1.0, 0.5]))
    out = tmp_path / "probe"
    out.mkdir()
    (out / "exploit.md").write_text("the table of the last run\n")
    real_open = Path.open

    def filling_disk(self: Path, mode: str = "r", *args: object, **kwargs: object) -> object:
        """``Path.open`` on a disk that fills half-way through writing the table."""
        handle = real_open(self, mode, *args, **kwargs)   # type: ignore[call-overload]
        if set(mode) & set("wxa") and "exploit.md" in self.name:
            write = handle.write

            def half(data: object) -> int:
                write(data[: len(data) // 2])   # type: ignore[index,arg-type]
                raise OSError(28, "No space left on device")
            handle.write = half
        return handle

    monkeypatch.setattr(Path, "open", filling_disk)
    with pytest.raises(OSError, match="No space left"):
        exploit.main(["--targets", "greedy", "--init-net", str(NET), "--deals", "4",
                      "--out", str(out)])
    monkeypatch.undo()
    assert (out / "exploit.md").read_text() == "the table of the last run\n"
    assert sorted(p.name for p in out.iterdir()) == ["exploit.json", "exploit.md"]
