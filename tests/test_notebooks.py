"""Every notebook in ``notebooks/`` executes headless, with its small parameters (``MATHKIT_NOTEBOOK_FAST=1``).

The notebooks are committed as jupytext percent ``.py`` files; each is built in
memory and run by nbclient in a kernel on this interpreter, in ``notebooks/``, as
``make render`` runs them.  A cell that raises, or takes more than two minutes,
fails the test.  Reviewer notebooks must also tell their story: a ``parameters``
cell, a plotly figure, and a conclusion.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

import pytest

from mathkit import __version__
from mathkit.dev.render import execute, network_references, notebook_sources, read_notebook, to_html

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
#: the reviewer pages that are a game's PAR document (``mathkit.dev.pardoc``), each with its game file
DOCUMENTS = {"dynasty": "dynasty.toml", "benchmark_5x3": "benchmark_5x3.toml", "sizzling_hot": "sizzling_hot.toml",
             "classic_3reel": "classic_3reel.toml", "prince_of_riches": "prince_of_riches.toml",
             "warlords": "warlords.toml"}
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
    if source.stem in DOCUMENTS:
        assert_par_document(nb, GAMES / DOCUMENTS[source.stem])


def _cells(page: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"<td[^>]*>([^<]*)</td>", page)}


def assert_par_document(nb: object, game_file: Path) -> None:
    """The rendered page (offline, no request) carries what a lab files: the game file's SHA-256 and mathkit's
    version, every reel set's strips stop by stop (read from the TOML here, not from mathkit's model), the paytable
    and the checks."""
    page = to_html(nb, code=False)
    assert network_references(page) == [], "the page fetches nothing"
    cells = _cells(page)
    assert hashlib.sha256(game_file.read_bytes()).hexdigest() in cells, "the game file's SHA-256"
    assert __version__ in cells, "mathkit's version"
    assert "Checks (gli11)" in page and "Paytable (exact over the cycle)" in page
    assert re.search(r"<td[^>]*>rendered</td><td[^>]*>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</td>", page)
    data = tomllib.loads(game_file.read_text())
    sets = data["reels"]
    for name, rs in sets.items():
        if not isinstance(rs, dict) or "strips" not in rs:
            continue
        assert f"Reel strips: {name}" in page, f"reel set {name}"
        rows = re.search(rf"Reel strips: {re.escape(name)}.*?<tbody>(.*?)</tbody>", page, re.S)
        assert rows is not None
        shown = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in rows.group(1).split("</tr>") if "<td" in r]
        for reel, strip in enumerate(rs["strips"]):
            stops = strip.split() if isinstance(strip, str) else list(strip)
            got = [row[reel + 1].split(" ×")[0] for row in shown if len(row) > reel + 1 and row[reel + 1]]
            assert got == [str(s).split("*")[0] for s in stops], f"{name} reel {reel + 1}, stop by stop"
