"""The workbench's callbacks, driven in plain pytest: set a widget's value, read what it shows.

Shown figures are compared with the engine (``component_rtp``, ``build_par``) on
games built independently of the workbench, and with values known by hand on a
tiny game (see ``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import ipywidgets as widgets
import pytest

from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.report.par import build_par
from mathkit.workbench import Workbench, build_workbench, views
from mathkit.workbench.messages import path_to
from mathkit.workbench.scheduler import SYNC_LIMIT


def pct6(x: Fraction | float) -> str:
    return f"{float(x) * 100:.6f}%"


def with_strip(game: Game, reel: int, strip: tuple[str, ...], reels: str = "base") -> Game:
    """The game with one strip replaced, built without the workbench's code."""
    sets = tuple(dataclasses.replace(rs, strips=tuple(strip if r == reel else s for r, s in enumerate(rs.strips)))
                 if rs.name == reels else rs for rs in game.reel_sets)
    return dataclasses.replace(game, reel_sets=sets)


@pytest.fixture
def bench(games_dir: Path, tmp_path: Path) -> Workbench:
    return build_workbench("benchmark_5x3.toml", games_dir, mode="sync", export_dir=tmp_path / "exports")


@pytest.fixture
def tiny(games_dir: Path, tmp_path: Path) -> Workbench:
    return build_workbench("tiny.toml", games_dir, mode="sync", export_dir=tmp_path / "exports")


# --------------------------------------------------------------------------- known by hand
def test_tiny_game_by_hand(tiny: Workbench) -> None:
    # strips "A B" ×3: RTP = 8 · (1/2)³ = 1, σ² = 64/8 − 1 = 7, hit frequency 1/8
    assert tiny.rtp_label.value == "RTP 100.000000%"
    assert tiny.rtp_exact.value == "exact 1/1"
    assert tiny.sd_label.value == f"σ {7 ** 0.5:.4f} × bet [exact]"
    assert tiny.hit_label.value.startswith("hit frequency 12.5000% (1 in 8.00)")
    # reel 1 "A B B B": P(A A A) = 1/4 · 1/2 · 1/2 = 1/16, RTP = 8/16
    tiny.strips[0].value = "A B B B"
    assert tiny.rtp_label.value == "RTP 50.000000%"
    assert tiny.rtp_exact.value == "exact 1/2"
    assert tiny.delta_rtp.value == "Δ RTP vs saved -50.0000 pp"
    # σ² = 64/16 − 1/4 = 15/4
    assert tiny.sd_label.value == f"σ {3.75 ** 0.5:.4f} × bet [exact]"
    # the grid shows counts and positions: B sits on stops 1–3 of reel 1
    assert "<b>3</b> <small style='color:#666'>1–3</small>" in tiny.count_grid.value
    # a pay edit: 3 × A pays 10 → RTP 10/16
    tiny.pay_inputs[("A", 3, 0)].value = 10
    assert tiny.rtp_exact.value == "exact 5/8"


# --------------------------------------------------------------------------- against the engine
def test_initial_figures_equal_the_engine(bench: Workbench) -> None:
    game = load_game("data/games/benchmark_5x3.toml")
    comp = component_rtp(game)
    par = build_par(game)
    assert bench.rtp_label.value == f"RTP {pct6(comp.rtp())}"
    assert bench.rtp_exact.value == f"exact {comp.rtp().numerator}/{comp.rtp().denominator}"
    assert bench.sd_label.value == f"σ {par.sd.value:.4f} × bet [exact]"
    fig = bench.figures["components"]
    assert list(fig.data[0].x) == list(comp.breakdown())
    assert list(fig.data[0].y) == pytest.approx([float(v) for v in comp.breakdown().values()], rel=1e-15)
    sym = bench.figures["symbols"]
    assert sum(sum(t.y) for t in sym.data) == pytest.approx(float(comp.rtp()), rel=1e-12)
    # the exceedance curve: P(win ≥ x) at exact win values, summed here from the engine's counts
    curve = bench.figures["distribution"].data[-1]  # after the 99% band's two edges (empty: exact)
    values, counts = par.distribution.values, par.distribution.weights
    for x, y in zip(curve.x, curve.y, strict=True):
        assert y == pytest.approx(counts[values >= round(x * par.distribution.unit)].sum() / counts.sum(), rel=1e-12)
    assert curve.x[-1] == par.max_win.value and len(curve.x) <= 200
    # the count table: each symbol's count per reel
    rs = game.reel_set()
    for name in game.symbol_names:
        for strip in rs.strips:
            assert f"<b>{Counter(strip)[name]}</b>" in bench.count_grid.value
    rtp_line = bench.figures["range"].data[-1]
    assert list(rtp_line.y) == pytest.approx([float(comp.rtp())] * len(rtp_line.y))
    assert "feature frequency: no free spins" in bench.feature_label.value


def test_strip_edit_updates_everything(bench: Workbench) -> None:
    before = load_game("data/games/benchmark_5x3.toml")
    strip = list(before.reel_set().strips[0])
    strip[0], strip[5] = "H1", "H1"
    bench.strips[0].value = " ".join(strip)
    expected = with_strip(before, 0, tuple(strip))
    comp = component_rtp(expected)
    par = build_par(expected)
    assert bench.game == expected
    assert bench.rtp_label.value == f"RTP {pct6(comp.rtp())}"
    assert bench.sd_label.value == f"σ {par.sd.value:.4f} × bet [exact]"
    assert bench.hit_label.value.startswith(f"hit frequency {par.hit_frequency.value * 100:.4f}%")
    assert list(bench.figures["components"].data[0].y) == pytest.approx([f.value for f in par.components.values()])
    assert bench.figures["distribution"].data[-1].y[-1] == pytest.approx(par.distribution.probs[-1])  # P(max win)
    d_rtp = (float(comp.rtp()) - float(component_rtp(before).rtp())) * 100
    assert bench.delta_rtp.value == f"Δ RTP vs saved {d_rtp:+.4f} pp"
    assert bench.delta_sd.value == f"Δ σ vs saved {par.sd.value - build_par(before).sd.value:+.4f}"
    assert bench.timings["rtp"] < bench.timings["full"]


def test_paytable_and_scatter_edits(bench: Workbench) -> None:
    bench.pay_inputs[("H1", 5, 0)].value = 5000
    bench.scatter_inputs[("SCATTER", 5)].value = 500
    game = load_game("data/games/benchmark_5x3.toml")
    pays = tuple(dataclasses.replace(e, pays=tuple((k, (5000,) if k == 5 else v) for k, v in e.pays))
                 if e.name == "H1" else e for e in game.line_pays)
    scat = (dataclasses.replace(game.scatter_pays[0], pays=tuple((k, 500 if k == 5 else v)
                                                                 for k, v in game.scatter_pays[0].pays)),)
    expected = dataclasses.replace(game, line_pays=pays, scatter_pays=scat)
    assert bench.rtp_label.value == f"RTP {pct6(component_rtp(expected).rtp())}"


def test_reel_set_and_game_pickers(games_dir: Path) -> None:
    wb = build_workbench("sizzling_hot.toml", games_dir, mode="sync")
    game = load_game(games_dir / "sizzling_hot.toml")
    assert wb.reels_picker.value == "rtp95"
    wb.reels_picker.value = "rtp99"
    assert wb.rtp_label.value == f"RTP {pct6(component_rtp(game, 'rtp99').rtp())}"
    assert wb.strips[0].value.split() == list(game.reel_set("rtp99").strips[0])
    wb.game_picker.value = "classic_3reel.toml"
    classic = load_game(games_dir / "classic_3reel.toml")
    assert len(wb.strips) == 3
    assert wb.rtp_label.value == f"RTP {pct6(component_rtp(classic).rtp())}"
    assert wb.strips[0].value.split()[1] == "BLANK*3"  # weighted stops are written NAME*weight
    assert wb.history == []
    # a weighted strip edit keeps the other reels' weights
    wb.strips[0].value = "WILD*2 BLANK*30 CHERRY"
    rs = wb.game.reel_set()
    assert rs.weights is not None
    assert rs.weights[0] == (2, 30, 1)
    assert rs.weights[1] == classic.reel_set().weights[1]  # type: ignore[index]


def test_the_game_picker_lists_subfolders(games_dir: Path, tmp_path: Path) -> None:
    (games_dir / "classic").mkdir(exist_ok=True)
    (games_dir / "classic" / "sevens.toml").write_bytes((games_dir / "classic_3reel.toml").read_bytes())
    wb = build_workbench("classic/sevens.toml", games_dir, mode="sync", export_dir=tmp_path / "exports")
    options = list(wb.game_picker.options)
    assert "classic/sevens.toml" in options and "benchmark_5x3.toml" in options
    assert options.index("benchmark_5x3.toml") < options.index("classic/sevens.toml")  # the top-level games first
    assert wb.game_picker.value == "classic/sevens.toml"  # the file being edited, by its path under the folder
    wb.game_picker.value = "benchmark_5x3.toml"
    wb.game_picker.value = "classic/sevens.toml"  # picked from the list: opened from the subfolder
    assert wb.path == games_dir / "classic" / "sevens.toml" and len(wb.strips) == 3


# --------------------------------------------------------------------------- invalid edits and undo
def test_invalid_edit_keeps_last_valid_game(bench: Workbench) -> None:
    game, label = bench.game, bench.rtp_label.value
    bench.strips[2].value = bench.strips[2].value + " NOPE"
    assert bench.game is game
    assert bench.rtp_label.value == label
    assert "unknown symbol &#x27;NOPE&#x27; on reel 3" in bench.error.value
    assert_message_below(bench, bench.strips[2])
    assert "reels.base.strips[2][48]" in bench.error.value
    assert "mk-invalid" in bench.strips[2]._dom_classes
    bench.strips[2].value = "H1 WILD*0"
    assert "cannot read &#x27;WILD*0&#x27;" in bench.error.value
    bench.pay_inputs[("L5", 3, 0)].value = -1
    assert "negative pay" in bench.error.value
    assert "mk-invalid" in bench.pay_inputs[("L5", 3, 0)]._dom_classes
    assert_message_below(bench, bench.pay_inputs[("L5", 3, 0)])  # on the paytable tab, below the pay's row
    assert bench.game is game
    assert bench.history == []
    # a valid edit clears the message, and takes it back to the top
    bench.strips[2].value = " ".join(game.reel_set().strips[2][::-1])
    assert bench.error.value == ""
    assert "mk-invalid" not in bench.strips[2]._dom_classes
    assert bench.error_slot.children == (bench.error,) and path_to(bench.editor_tabs, bench.error) is None


def assert_message_below(wb: Workbench, control: widgets.Widget) -> None:
    """The message sits in the editors, in a vertical box, right after the child that holds ``control``
    (the control's row); not in the slot at the top."""
    assert wb.error not in wb.error_slot.children, "not in the slot at the top"
    where = path_to(wb.editor_tabs, wb.error)
    assert where is not None, "the message is among the editors"
    box = where[-2]
    kids = list(box.children)
    row = kids[kids.index(wb.error) - 1]
    assert path_to(row, control) is not None, "right after the edited control's row"


def test_undo_restores(bench: Workbench) -> None:
    original, label, text = bench.game, bench.rtp_label.value, bench.strips[1].value
    bench.strips[1].value = text.replace("WILD WILD WILD", "H1 H1 H1")
    bench.pay_inputs[("M1", 4, 0)].value = 999
    assert bench.rtp_label.value != label
    bench.undo()
    assert bench.pay_inputs[("M1", 4, 0)].value == 200
    assert bench.strips[1].value != text
    bench.undo()
    assert bench.game == original
    assert bench.strips[1].value == text
    assert bench.rtp_label.value == label
    assert bench.undo_button.disabled
    bench.undo()
    assert bench.status.value == "nothing to undo"


# --------------------------------------------------------------------------- save as, exports
def test_save_as_is_atomic_and_refuses_to_overwrite(bench: Workbench, games_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    bench.pay_inputs[("H1", 5, 0)].value = 3000
    target = games_dir / "benchmark_5x3.toml"
    before = target.read_bytes()
    bench.save_name.value = "benchmark_5x3.toml"
    bench.save_button.click()
    assert target.read_bytes() == before
    assert "exists: not saved" in bench.status.value
    assert bench.save_as("../escape.toml") is None
    assert not (games_dir.parent / "escape.toml").exists()
    # a failure half-way leaves nothing behind
    def boom(_fd: int) -> None:
        msg = "disk full"
        raise OSError(msg)

    monkeypatch.setattr("mathkit.gamefile.io.os.fsync", boom)
    assert bench.save_as("variant") is None
    assert "disk full" in bench.status.value
    assert not (games_dir / "variant.toml").exists()
    assert not [p for p in games_dir.iterdir() if p.name.startswith(".")]
    monkeypatch.undo()
    out = bench.save_as("variant")
    assert out == games_dir / "variant.toml"
    assert load_game(out) == bench.game
    assert "variant.toml" in bench.game_picker.options
    assert bench.game_picker.value == "variant.toml"
    assert bench.delta_rtp.value == "Δ RTP vs saved +0.0000 pp"
    # overwriting needs the checkbox, which clears itself after the save
    bench.pay_inputs[("H1", 5, 0)].value = 3500
    bench.save_name.value = "variant"
    bench.overwrite.value = True
    bench.save_button.click()
    assert load_game(out).line_pays[0].pays[-1] == (5, (3500,))
    assert bench.overwrite.value is False
    assert target.read_bytes() == before


def test_exports_write_files(bench: Workbench, tmp_path: Path) -> None:
    bench.strips[4].value = bench.strips[4].value.replace("SCATTER", "H1")
    for button in ("json", "csv", "paytable"):
        bench.export_buttons[button].click()
        assert bench.status.value.startswith("wrote ")
    folder = tmp_path / "exports"
    data = json.loads((folder / "benchmark_5x3_base_par.json").read_text())
    assert Fraction(data["rtp_exact"]) == component_rtp(bench.game).rtp()
    assert (folder / "benchmark_5x3_base_par.csv").read_text().startswith("section,figure,value")
    paytable = (folder / "benchmark_5x3_paytable.csv").read_text().splitlines()
    assert paytable[0].startswith("component,entry,symbols,count,pay_1_coins")
    assert "lines,H1,H1,5,2500,credits per line" in paytable
    import importlib.util

    has_xlsx = importlib.util.find_spec("mathkit.export") is not None
    assert bench.export_buttons["xlsx"].disabled is not has_xlsx
    if has_xlsx:
        bench.export_buttons["xlsx"].click()
        assert (folder / "benchmark_5x3_base_par.xlsx").stat().st_size > 0


# --------------------------------------------------------------------------- responsiveness
def test_slow_figures_run_in_a_thread_with_progress(games_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wb = build_workbench("tiny.toml", games_dir, mode="thread")
    wb.wait()
    from mathkit.workbench import worker

    real = worker.sheet

    def slow(game: Game, reels: str) -> object:
        time.sleep(1.3)
        return real(game, reels)

    monkeypatch.setattr("mathkit.workbench.worker.sheet", slow)
    ticks: list[str] = []
    wb.progress.observe(lambda ch: ticks.append(ch["new"]), "value")
    t0 = time.perf_counter()
    wb.strips[0].value = "A B B B"
    assert time.perf_counter() - t0 < 0.5  # the edit returns before the slow figures
    assert wb.rtp_exact.value == "exact 1/2"
    assert "mk-stale" in wb.hit_label._dom_classes
    wb.wait()
    # σ first (from the moments), then the distribution; progress lines ticked in between
    assert wb.sd_label.value == f"σ {3.75 ** 0.5:.4f} × bet [exact]"
    assert "mk-stale" not in wb.hit_label._dom_classes
    live = [t for t in ticks if "computing the win distribution" in t]
    assert len(live) >= 2, ticks
    assert "distribution in" in wb.progress.value
    # two quick edits: only the last one's figures are shown
    wb.strips[0].value = "A B"
    wb.strips[0].value = "A A B B B B B B"
    wb.wait()
    time.sleep(1.2)
    assert wb.par is not None and wb.par.game == wb.game
    assert wb.rtp_exact.value == "exact 1/2"


def test_process_mode_keeps_the_kernel_free(games_dir: Path) -> None:
    wb = build_workbench("dynasty.toml", games_dir, mode="process")
    try:
        wb.wait()
        game = load_game(games_dir / "dynasty.toml")
        par = build_par(game)
        assert wb.par is not None and wb.par.sd.value == pytest.approx(par.sd.value, rel=1e-12)
        runner = wb.scheduler._runner
        assert runner is not None and runner.ready.wait(120)  # from here on every edit is computed by the worker
        strip = list(game.reel_set().strips[1])
        strip[3] = "NINE" if strip[3] != "NINE" else "TEN"
        t0 = time.perf_counter()
        wb.strips[1].value = " ".join(strip)
        wb.strips[1].value = " ".join(game.reel_set().strips[1])  # and back at once: the first computation is dropped
        assert time.perf_counter() - t0 < 1.0
        wb.wait()
        assert wb.game == game
        # the worker's PAR sheet reached the widgets (it once could not be pickled: "while computing par")
        assert "⚠" not in wb.progress.value, wb.progress.value
        assert wb._par_generation == wb.scheduler.generation and wb.par is not None
        assert wb.sd_label.value == f"σ {par.sd.value:.4f} × bet [exact]"
        assert wb.hit_label.value == views.hit_text(par) and "mk-stale" not in wb.hit_label._dom_classes
        shown, exact = wb.par.distribution, par.distribution
        assert (shown.values == exact.values).all() and (shown.weights == exact.weights).all()
    finally:
        wb.close()


def test_worker_results_are_shown_on_the_loop_thread(games_dir: Path) -> None:
    """Inside a kernel (a running asyncio loop) every widget update happens on the loop's thread."""
    import asyncio
    import threading

    threads: set[int] = set()

    async def session() -> Workbench:
        wb = build_workbench("tiny.toml", games_dir, mode="thread")
        home = threading.get_ident()
        for w in (wb.sd_label, wb.hit_label, wb.progress):
            w.observe(lambda _ch: threads.add(threading.get_ident()), "value")
        for text in ("A B B B", "A A B B B B B B"):
            wb.strips[0].value = text
            while wb.scheduler.busy:  # the loop runs: the results are handed to it
                await asyncio.sleep(0.01)
        assert threads == {home}
        return wb

    wb = asyncio.run(session())
    assert wb.sd_label.value == f"σ {3.75 ** 0.5:.4f} × bet [exact]"
    assert "mk-stale" not in wb.hit_label._dom_classes


def test_dynasty_free_spin_parameters(games_dir: Path) -> None:
    from mathkit.round import rtp_breakdown

    wb = build_workbench("dynasty.toml", games_dir, mode="thread")
    game = load_game(games_dir / "dynasty.toml")
    multiplier = wb.feature_inputs[("free_spins", ("multiplier",))]
    assert ("free_spins", ("multiply_scatter",)) in wb.feature_inputs
    assert ("gamble", ("max_gambles",)) in wb.feature_inputs
    assert wb.rtp_label.value == f"RTP {pct6(sum(rtp_breakdown(game).values()))}"
    # P(≥ 3 EMPEROR in the window): EMPEROR shows at most once per reel window here
    rs = game.reel_set()
    p_reel = []
    for strip in rs.strips:
        n = len(strip)
        hits = sum(any(strip[(i + k) % n] == "EMPEROR" for k in range(rs.rows[0])) for i in range(n))
        p_reel.append(Fraction(hits, n))
    dist = [Fraction(1)]
    for p in p_reel:
        dist = [a * (1 - p) + (dist[i - 1] * p if i else 0) for i, a in enumerate([*dist, Fraction(0)])]
    p3 = sum(dist[3:])
    assert wb.feature_label.value == f"feature frequency {float(p3) * 100:.4f}% (1 in {1 / float(p3):,.2f})"
    multiplier.value = 3
    fs = game.feature("free_spins")
    parts = rtp_breakdown(game.with_features(dataclasses.replace(fs, multiplier=3)))
    assert wb.rtp_label.value == f"RTP {pct6(sum(parts.values()))}"
    assert list(wb.figures["components"].data[0].x) == list(parts)
    multiplier.value = 0
    assert "free_spins.multiplier" in wb.error.value
    assert "mk-invalid" in multiplier._dom_classes
    assert_message_below(wb, multiplier)
    wb.undo()
    assert multiplier.value == fs.table()["multiplier"]
    assert "mk-invalid" not in multiplier._dom_classes
    wb.wait()


def test_auto_mode_waits_briefly_for_a_fast_par_sheet(games_dir: Path) -> None:
    wb = build_workbench("tiny.toml", games_dir)  # mode "auto": a worker process
    try:
        wb.wait()
        wb.strips[0].value = "A B B B"  # a fast PAR sheet: shown before the edit returns (or just after)
        wb.wait()
        assert wb.sd_label.value == f"σ {3.75 ** 0.5:.4f} × bet [exact]"
        assert wb.timings["rtp"] < SYNC_LIMIT
    finally:
        wb.close()


@pytest.mark.notebooks
@pytest.mark.timeout(300)
def test_workbench_notebook_executes_headless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook runs top to bottom in a kernel (nbclient) and leaves the workbench as its output."""
    import os

    import nbformat
    from nbclient import NotebookClient

    from mathkit.dev.labsetup import notebooks_from_sources

    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    (tmp_path / "workbench.py").write_text((root / "notebooks" / "workbench.py").read_text(encoding="utf-8"))
    (path,) = notebooks_from_sources(tmp_path)
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    params.source = 'GAME = "benchmark_5x3.toml"\nDATA_DIR = "data/games"\nMODE = "sync"\nCOMPARE = ("classic_3reel.toml", 0.85)\n'
    NotebookClient(nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = next(c for c in nb.cells if c.cell_type == "code" and "build_workbench(" in c.source)
    last = shown.outputs
    assert [o["output_type"] for o in last] == ["display_data", "execute_result"]
    assert "application/vnd.jupyter.widget-view+json" in last[1]["data"]
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    labels = [m["state"].get("value") for m in state.values() if "mk-rtp" in m["state"].get("_dom_classes", [])]
    expected = component_rtp(load_game(root / "data" / "games" / "benchmark_5x3.toml")).rtp()
    assert labels == [f"RTP {pct6(expected)}"]
    # the first cell shows its progress from the start: the display it updates says the workbench is ready
    assert "workbench ready" in last[0]["data"]["text/html"]
    # the comparison section: the tuned variant's figures and its changes
    compare = next(c for c in nb.cells if c.cell_type == "code" and "comparison_html" in c.source)
    page = next(o["data"]["text/html"] for o in compare.outputs if "text/html" in o.get("data", {}))
    assert "mk-compare-figures" in page and "tuned to 85.00%" in page and "<td>declared_rtp</td>" in page


def test_labsetup(tmp_path: Path) -> None:
    import json
    import os

    from mathkit.dev.labsetup import LAB_SETTINGS, ensure_kernelspec, notebooks_from_sources, write_lab_settings

    root = Path(__file__).resolve().parents[1]
    src = tmp_path / "workbench.py"
    src.write_text((root / "notebooks" / "workbench.py").read_text(encoding="utf-8"))
    (tmp_path / "helper.py").write_text("x = 1\n")  # not a jupytext notebook: left alone
    assert notebooks_from_sources(tmp_path) == [tmp_path / "workbench.ipynb"]
    nb = json.loads((tmp_path / "workbench.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert notebooks_from_sources(tmp_path) == []  # up to date
    os.utime(src, (time.time() + 5, time.time() + 5))
    assert notebooks_from_sources(tmp_path) == [tmp_path / "workbench.ipynb"]  # the source is newer
    path, changed = write_lab_settings(tmp_path / "prefix")
    assert changed and json.loads(path.read_text()) == LAB_SETTINGS
    assert path.parent.name == "overrides.d" and path.parents[1].name == "settings"
    assert write_lab_settings(tmp_path / "prefix") == (path, False)
    spec, written = ensure_kernelspec(tmp_path / "prefix", python="/x/python")
    assert written and json.loads(spec.read_text())["argv"][0] == "/x/python"
    assert ensure_kernelspec(tmp_path / "prefix") == (spec, False)


def test_figure_class_is_in_the_state_its_browser_model_is_made_from(monkeypatch: pytest.MonkeyPatch) -> None:
    """The figure's CSS class travels in the comm's first message (the state the page's model is made from).

    A class added by a later message can be lost: a page drops the figure's messages that arrive before its module
    has initialized when anywidget's deadline is missed (CI drew the figure without ``mk-figures``).
    """
    import ipywidgets

    from mathkit.workbench.figures import FigureSet

    opened: list[tuple[str, object]] = []
    real_open = ipywidgets.Widget.open

    def spy(self: ipywidgets.Widget) -> None:
        opened.append((type(self).__name__, self.get_state().get("_dom_classes")))
        real_open(self)

    monkeypatch.setattr(ipywidgets.Widget, "open", spy)
    figures = FigureSet()
    figures.reset()  # another game: a new figure widget
    assert [classes for name, classes in opened if name == "LiveFigure"] == [("mk-figures",), ("mk-figures",)]
