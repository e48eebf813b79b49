"""The notebooks run from top to bottom, and are committed with the outputs of a full run.

Each notebook reads ``UNO_NOTEBOOK_BUDGET``: ``small`` here, a smoke run that says so;
unset (or ``full``), as in Jupyter, the budget whose numbers the committed outputs show.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
#: Seconds a cell may take in the small run before the test fails.
CELL_TIMEOUT = 300
#: What a notebook prints first in a small run.
SMOKE = "SMOKE RUN"


def _outputs(notebook) -> list:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]


def _text(outputs: list) -> str:
    return "".join(out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
                   for out in outputs)


def _figures(outputs: list) -> int:
    return sum("image/png" in out.get("data", {}) for out in outputs)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_with_full_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count is not None for cell in code), (
        f"{path.name}: commit it executed (jupyter-execute --inplace, see notebooks/README.md)")
    counts = [cell.execution_count for cell in code]
    assert counts == sorted(counts), f"{path.name}: cells executed out of order"
    outputs = _outputs(notebook)
    assert not [out for out in outputs if out.output_type == "error"], path.name
    assert SMOKE not in _text(outputs), f"{path.name}: the committed outputs are a smoke run"
    assert _figures(outputs) >= 1, f"{path.name}: no figure in the committed outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch, tmp_path):
    monkeypatch.setenv("UNO_NOTEBOOK_BUDGET", "small")
    monkeypatch.delenv("MPLBACKEND", raising=False)   # the kernel's inline backend keeps figures
    notebook = nbformat.read(path, as_version=4)
    committed = _figures(_outputs(notebook))
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = _outputs(notebook)
    assert SMOKE in _text(outputs), f"{path.name}: a small run must say it is a smoke run"
    assert _figures(outputs) == committed, (
        f"{path.name}: {_figures(outputs)} figures in the output, {committed} committed")
