"""Every result record says what made it: its command, the code's commit, the date and
the machine. The records listed in ``MEASURED_BEFORE_PROVENANCE`` were written before
their scripts recorded all of that; they are kept as measured, and one leaves the list
when it is measured again (the test fails while a listed record has its provenance, so
the list only shrinks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"

MEASURED_BEFORE_PROVENANCE = frozenset({
    "bench-learn-packed-128x128.json", "clone-finetune-2p-seed3.json",
    "cross_preset-previous.json", "cross_preset-vs-tuned.json", "dmc-2p.json",
    "exit-4p.json",
    "expert-iteration-2p.json", "exploit-4p-previous.json",
    "exploit-search-previous/official-2p-budget128.json",
    "exploit-search-previous/official-2p-budget32.json",
    "exploit.json", "heuristic_2p_stage1.json",
    "heuristic_4p_stage1.json", "heuristic_4p_stage2.json", "heuristic_4p_stage3.json",
    "heuristic_start.json", "improved-4p.json", "net-2p-distilled-vs-random-play.json",
    "net-2p-distilled.json", "net-2p-vs-random-play.json", "net-2p.json", "net-4p-previous.json",
    "net-4p-search.json", "net-4p.json", "ppo-ablation.json", "search-4p.json",
})


def has_provenance(record: object) -> bool:
    """A JSON object with its command, date, machine and commit (the leaderboard names
    the commit ``revision``)."""
    return (isinstance(record, dict) and all(record.get(k) for k in ("command", "date", "machine"))
            and bool(record.get("commit") or record.get("revision")))


RECORDS = sorted(path.relative_to(RESULTS).as_posix() for path in RESULTS.rglob("*.json"))


@pytest.mark.parametrize("name", RECORDS)
def test_a_result_record_says_what_made_it_unless_measured_before_that(name: str) -> None:
    record = json.loads((RESULTS / name).read_text())
    if name in MEASURED_BEFORE_PROVENANCE:
        assert not has_provenance(record), f"{name} has its provenance: take it off the list"
    else:
        assert has_provenance(record), f"{name} lacks its command, commit, date or machine"


def test_the_list_names_only_records_that_exist() -> None:
    assert set(RECORDS) >= MEASURED_BEFORE_PROVENANCE


def test_the_commit_of_a_record_says_when_any_code_differs_from_it(tmp_path, monkeypatch) -> None:
    """``+changes`` follows a change to a Python file anywhere in the checkout (an agent or
    an experiment as much as the library), not to a result record."""
    import shutil
    import subprocess

    from uno_env.tooling import machine

    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "repo"
    (repo / "uno_env" / "tooling").mkdir(parents=True)
    (repo / "agents").mkdir()
    fake = repo / "uno_env" / "tooling" / "machine.py"
    for path in (fake, repo / "agents" / "net.py", repo / "result.json"):
        path.write_text("x = 1\n")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "start", "--allow-empty")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "files")
    monkeypatch.setattr(machine, "__file__", str(fake))
    clean = machine.revision()
    assert clean and not clean.endswith("+changes")
    (repo / "result.json").write_text("{}\n")
    assert machine.revision() == clean
    (repo / "agents" / "net.py").write_text("x = 2\n")
    assert machine.revision() == clean + "+changes"
