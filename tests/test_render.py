"""``make render``: offline HTML from a notebook — plotly.js, widget state, MathJax inlined, nothing from the network.

The notebooks rendered here are tiny ones written into ``tmp_path``; the project's
own notebooks are executed by ``tests/test_notebooks.py``.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import re
from pathlib import Path

import nbformat.v4 as v4
import pytest

from mathkit.cli import main as mathkit_main
from mathkit.cli.render import cli as render_cli
from mathkit.dev import render

RICH = '''# %% [markdown]
# # A small notebook
# The mean solves $(I - Q)\\,v = \\bar r$.

# %%
import plotly.graph_objects as go

go.Figure(go.Bar(x=["lines", "scatter"], y=[0.9, 0.05]))

# %%
import ipywidgets as w

w.VBox([w.IntSlider(value=7, description="spins"), w.Label("RTP 95.00%")])
'''

PLAIN = '''# %% [markdown]
# # Plain
# No TeX here, costs 5 $ at most.

# %%
print("hello")
'''

BROKEN = '''# %%
raise RuntimeError("this notebook fails on purpose")
'''


def _script_srcs(page: str) -> list[str]:
    return re.findall(r"<script\b[^>]*\bsrc\s*=\s*[\"']?([^\"'\s>]+)", page, re.IGNORECASE)


def _link_hrefs(page: str) -> list[str]:
    return re.findall(r"<link\b[^>]*\bhref\s*=\s*[\"']?([^\"'\s>]+)", page, re.IGNORECASE)


@pytest.mark.notebooks
def test_render_writes_self_contained_html(tmp_path: Path) -> None:
    src = tmp_path / "nb"
    src.mkdir()
    (src / "small.py").write_text(RICH, encoding="utf-8")
    out = tmp_path / "out"
    assert mathkit_main(["render", str(src), str(out), "--fast", "--timeout", "120"]) == 0
    page = (out / "small.html").read_text(encoding="utf-8")
    # plotly: the library inlined once (the "notebook" renderer) and the figure drawn by it
    assert page.count("* plotly.js v") == 1
    assert "Plotly.newPlot(" in page
    # widgets: the saved state and the inlined HTML manager that renders it
    state = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">\s*(.*?)\s*</script>', page, re.DOTALL)
    assert state is not None
    models = json.loads(state.group(1))["state"]
    assert any(m["state"].get("value") == 7 for m in models.values())
    assert 'define("@jupyter-widgets/html-manager"' in page
    assert "application/vnd.jupyter.widget-view+json" in page
    # MathJax 3 inlined, with the MathJax 2 shim the widgets call
    assert "MathJax.Hub" in page and "typesetPromise" in page
    # nothing from the network: no script src, no remote stylesheet
    assert _script_srcs(page) == []
    assert [h for h in _link_hrefs(page) if re.match(r"(https?:)?//", h)] == []
    assert render.network_references(page) == []
    assert "cdnjs.cloudflare.com" not in page and "unpkg.com" not in page
    # the reviewer's page has no code cells; the version with the code has them
    assert '<span class="kn">import</span>' not in page
    coded = (out / "code" / "small.html").read_text(encoding="utf-8")
    assert '<span class="kn">import</span>' in coded and render.network_references(coded) == []
    # the index lists the page and its version with the code
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="small.html"' in index and "A small notebook" in index and 'href="code/small.html"' in index


@pytest.mark.notebooks
def test_plain_notebook_gets_no_mathjax_or_widget_manager(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    done = render.render_notebook(tmp_path / "plain.py", tmp_path / "out", fast=True, timeout=120)
    page = done.html.read_text(encoding="utf-8")
    assert "hello" in page and done.title == "Plain"
    assert "@jupyter-widgets/html-manager" not in page
    assert "MathJax.Hub =" not in page
    assert "requirejs" in page  # require.js is always inlined, for outputs that use it
    assert _script_srcs(page) == [] and render.network_references(page) == []
    assert done.bytes < 1_500_000


@pytest.mark.notebooks
def test_failing_notebook_fails_the_render_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    out = tmp_path / "out"
    assert render_cli([str(tmp_path), str(out), "--timeout", "60"]) == 1
    assert "this notebook fails on purpose" in capsys.readouterr().err
    assert not (out / "broken.html").exists()


def test_vendored_assets_match_their_manifest() -> None:
    manifest = json.loads((render.ASSETS / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest) == set(render.PACKAGES) == {"requirejs", "widgets", "mathjax"}
    total = 0
    for name, entry in manifest.items():
        package, version, inner = render.PACKAGES[name]
        assert (entry["package"], entry["version"], entry["path"]) == (package, version, inner)
        packed = (render.ASSETS / entry["file"]).read_bytes()
        total += len(packed)
        assert hashlib.sha256(lzma.decompress(packed)).hexdigest() == entry["sha256"]
        text = render.asset(name)
        assert "</script" not in text
        assert not re.search(r"^//# sourceMappingURL=", text, re.MULTILINE)
    assert total < 1_500_000  # committed, compressed


def test_uses_math_and_network_references() -> None:
    nb = v4.new_notebook(cells=[v4.new_markdown_cell("σ = 6.1 and 5 $ a line")])
    assert not render.uses_math(nb)
    nb.cells.append(v4.new_markdown_cell(r"$$\sigma^2 = E[X^2] - \mu^2$$"))
    assert render.uses_math(nb)
    page = ('<script src="https://cdn.example/a.js"></script><link rel="stylesheet" href="//fonts.example/b.css">'
            '<script>var u = "https://not.a.reference/";</script><link href="local.css">')
    assert render.network_references(page) == ["https://cdn.example/a.js", "//fonts.example/b.css"]


def test_notebook_sources_and_titles(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "helper.py").write_text("X = 1\n", encoding="utf-8")
    assert [p.name for p in render.notebook_sources(tmp_path)] == ["a.py"]
    assert render.read_notebook(tmp_path / "a.py").metadata["title"] == "Plain"


def test_table_shows_as_html_and_text() -> None:
    t = render.Table(("figure", "value"), (("RTP", "95.00%"), ("<σ>", "6.10")), "Key figures", ("a note",))
    page = t._repr_html_()
    assert "<caption" in page and "&lt;σ&gt;" in page and "text-align:right" in page and "a note" in page
    assert str(t).splitlines() == ["Key figures", "figure   value", "RTP     95.00%", "<σ>       6.10", "a note"]


def test_par_tables(games_dir: Path) -> None:
    from mathkit.gamefile.io import load_game
    from mathkit.report.par import build_par

    game = load_game(games_dir / "tiny.toml")
    par = build_par(game)
    rows = dict((r[0], r[1]) for r in render.summary_table(par).rows)
    assert rows["RTP"] == "100.000000%" and rows["σ per total bet"] == f"{7 ** 0.5:.4f}"
    # 1 hit in a cycle of 8 on the one line: 0.125 per spin and per line alike
    assert render.paytable_table(par).rows == (("lines", "3 × A", "8", "1", "0.125", "0.125 per spin", "1 in 8.00",
                                                "100.0000%"),)
    assert render.feature_tables(par) == []
    assert render.readings_table(game).rows[0][0] == "—"


class _FakeSim:
    """What :func:`mathkit.dev.render.cross_check` reads from a ``SimResult``, with a made-up disagreement on lines."""

    spins = 1000
    seconds = 0.25

    def __init__(self) -> None:
        self.asked: dict[str, object] = {}

    def figures(self) -> dict[str, float]:
        return {"rtp": 1.0, "lines": 1.0, "hit_frequency": 0.125, "hit_frequency_bet": 0.125, "sd": 2.6}

    def checks(self, exact: dict[str, float], sd: float, level: float) -> dict[str, dict[str, float | bool]]:
        self.asked = {"exact": dict(exact), "sd": sd, "level": level}
        return {k: {"sim": v, "exact": v, "tolerance": 0.01, "agrees": k != "lines"} for k, v in exact.items()}


def test_cross_check_compares_the_par_sheet_with_the_simulation(games_dir: Path) -> None:
    from mathkit.gamefile.io import load_game
    from mathkit.report.par import build_par

    par = build_par(load_game(games_dir / "tiny.toml"))
    sim = _FakeSim()
    check = render.cross_check(sim, par)
    assert sim.asked == {"exact": {"rtp": 1.0, "lines": 1.0, "hit_frequency": 0.125, "hit_frequency_bet": 0.125},
                         "sd": pytest.approx(7 ** 0.5), "level": 0.99}
    assert not check.agrees
    assert check.verdict == "1 of 4 figures lie outside their 99% intervals (RTP: lines)"
    labels = [r[0] for r in check.table().rows]
    assert labels == ["RTP", "RTP: lines", "hit frequency (any win)", "hit frequency (win ≥ bet)"]
    assert "1,000 simulated plays" in check._repr_html_()


FIGURE_WIDGET = """# %%
import plotly.graph_objects as go

go.FigureWidget(go.Bar(y=[1, 2]))
"""


@pytest.mark.notebooks
def test_a_widget_that_would_be_broken_offline_fails_the_render(tmp_path: Path) -> None:
    (tmp_path / "live.py").write_text(FIGURE_WIDGET, encoding="utf-8")
    with pytest.raises(ValueError, match="'anywidget' are not in the offline HTML manager"):
        render.render_notebook(tmp_path / "live.py", tmp_path / "out", fast=True, timeout=120)
    assert not (tmp_path / "out" / "live.html").exists()
