"""Every notebook in ``notebooks/`` executes headless, with its small parameters (``MATHKIT_NOTEBOOK_FAST=1``).

The notebooks are committed as jupytext percent ``.py`` files; each is built in
memory and run by nbclient in a kernel on this interpreter, in ``notebooks/``, as
``make render`` runs them.  A cell that raises, or takes more than two minutes,
fails the test.  Reviewer notebooks must also tell their story: a ``parameters``
cell, a plotly figure, and a conclusion.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathkit.dev.render import execute, notebook_sources, read_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
GAMES = ROOT / "data" / "games"
#: game files a notebook needs; while one is missing (a game still being written) the notebook is skipped
NEEDS = {
    "dynasty": ("dynasty.toml",),
    "method": ("dynasty.toml", "benchmark_5x3.toml"),
    "benchmark_5x3": ("benchmark_5x3.toml",),
    "sizzling_hot": ("sizzling_hot.toml",),
    "classic_3reel": ("classic_3reel.toml",),
    "prince_of_riches": ("prince_of_riches.toml",),
    "sessions": ("dynasty.toml",),
    "warlords": ("warlords.toml",),
}
REVIEWER = set(NEEDS)
CELL_TIMEOUT = 120

pytestmark = pytest.mark.notebooks


def test_reviewer_notebooks_are_there() -> None:
    assert {p.stem for p in notebook_sources(NOTEBOOKS)} >= REVIEWER


@pytest.mark.parametrize("source", notebook_sources(NOTEBOOKS), ids=lambda p: p.stem)
def test_notebook_executes(source: Path) -> None:
    missing = [name for name in NEEDS.get(source.stem, ()) if not (GAMES / name).is_file()]
    if missing:
        pytest.skip(f"{source.name} needs data/games/{', '.join(missing)}, which is not in this checkout yet")
    nb = read_notebook(source)
    execute(nb, NOTEBOOKS, fast=True, timeout=CELL_TIMEOUT)  # raises CellExecutionError on any error
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), "every code cell ran"
    assert any("parameters" in c.metadata.get("tags", ()) for c in code), "a cell tagged 'parameters'"
    if source.stem in REVIEWER:
        html = [o["data"].get("text/html", "") for c in code for o in c.outputs if "data" in o]
        assert any("Plotly.newPlot(" in h for h in html), "at least one plotly figure"
        last = code[-1].outputs
        assert last and any("text/markdown" in o.get("data", {}) or o.get("name") == "stdout" for o in last), \
            "the last cell states the conclusion"
