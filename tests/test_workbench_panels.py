"""The workbench's panels in plain pytest: the strip grid, targets and tuning, live tables, comparison, and the bugs of issue 16.

Expected figures come from the engine on games built here with
``dataclasses.replace`` (not through the workbench), or by hand on the tiny game.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.report.par import build_par
from mathkit.report.sensitivity import symbol_sensitivity
from mathkit.workbench import Workbench, build_workbench


def pct6(x: Fraction | float) -> str:
    return f"{float(x) * 100:.6f}%"


def with_strip(game: Game, reel: int, strip: list[str], reels: str = "base") -> Game:
    sets = tuple(dataclasses.replace(rs, strips=tuple(tuple(strip) if r == reel else s for r, s in enumerate(rs.strips)))
                 if rs.name == reels else rs for rs in game.reel_sets)
    return dataclasses.replace(game, reel_sets=sets)


@pytest.fixture
def bench(games_dir: Path, tmp_path: Path) -> Workbench:
    return build_workbench("benchmark_5x3.toml", games_dir, mode="sync", export_dir=tmp_path / "exports")


# --------------------------------------------------------------------------- the strip grid
def test_grid_shows_stop_numbers_and_stacks(games_dir: Path) -> None:
    wb = build_workbench("dynasty.toml", games_dir, mode="sync")
    col = wb.grid[1]
    labels = [label for label, _ in col.options]
    strip = load_game(games_dir / "dynasty.toml").reel_set().strips[1]
    assert len(labels) == len(strip)
    assert [lab.split()[0] for lab in labels] == [str(i) for i in range(len(strip))]
    assert labels[17:20] == ["17 ┌ SEAL", "18 │ SEAL", "19 └ SEAL"]  # the stack of three
    assert wb.grid[0].rows == 22  # long strips scroll, they are not cut off


def test_grid_cell_pick_insert_delete_move(bench: Workbench) -> None:
    game = load_game(bench.path)  # type: ignore[arg-type]
    strip = list(game.reel_set().strips[0])
    sp = bench.strip_panel
    # pick stop 4 of reel 1 and give it another symbol
    bench.grid[0].value = (4,)
    assert sp.symbol.value == strip[4]
    sp.symbol.value = "H1"
    strip[4] = "H1"
    assert bench.game == with_strip(game, 0, strip)
    assert bench.rtp_label.value == f"RTP {pct6(component_rtp(with_strip(game, 0, strip)).rtp())}"
    # insert below the selected stop (the picker's symbol), delete it again
    sp.buttons["insert-below"].click()
    assert bench.game.reel_set().strips[0] == (*strip[:5], "H1", *strip[5:])
    assert bench.grid[0].value == (5,)
    sp.buttons["delete"].click()
    assert bench.game.reel_set().strips[0] == tuple(strip)
    # move a block of two stops up by one
    bench.grid[0].value = (6, 7)
    sp.buttons["up"].click()
    moved = [*strip[:5], strip[6], strip[7], strip[5], *strip[8:]]
    assert bench.game.reel_set().strips[0] == tuple(moved)
    assert bench.grid[0].value == (5, 6)
    assert bench.undo_button.tooltip == "undo: move stops on reel 1"
    for _ in range(4):
        bench.undo()
    assert bench.game == game


def test_paste_columns_from_a_spreadsheet(bench: Workbench) -> None:
    game = load_game(bench.path)  # type: ignore[arg-type]
    r2, r3 = list(game.reel_set().strips[1]), list(game.reel_set().strips[2])
    r2[0], r3[1] = "H1", "H2"
    rows = [f"{a}\t{b}" for a, b in zip(r2, r3, strict=False)] + [f"\t{b}" for b in r3[len(r2):]]
    bench.strip_panel.paste.value = "reel 2\treel 3\n" + "\n".join(rows) + "\n"
    bench.strip_panel.paste_reel.value = 1
    assert bench.strip_panel.apply_paste()
    expected = with_strip(with_strip(game, 1, r2), 2, r3)
    assert bench.game == expected
    assert bench.rtp_label.value == f"RTP {pct6(component_rtp(expected).rtp())}"
    bench.undo()  # one paste, one undo step
    assert bench.game == game
    bad = list(r3)
    bad[0] = "NOPE"  # full-length columns: the unknown symbol is the only thing wrong
    bench.strip_panel.paste.value = "\n".join(f"{a}\t{b}" for a, b in zip(r2, bad, strict=False))
    assert not bench.strip_panel.apply_paste()
    assert "unknown symbol &#x27;NOPE&#x27;" in bench.error.value
    assert bench.game == game


def test_editing_the_free_spin_set_plays_through_the_feature(games_dir: Path) -> None:
    from mathkit.round import rtp_breakdown

    wb = build_workbench("dynasty.toml", games_dir, mode="sync")
    wb.reels_picker.value = "free"
    game = load_game(games_dir / "dynasty.toml")
    assert [lab.split()[-1] for lab, _ in wb.grid[0].options] == list(game.reel_set("free").strips[0])
    wb.grid[0].value = (1,)
    wb.strip_panel.symbol.value = "DRAGON"
    free = list(game.reel_set("free").strips[0])
    free[1] = "DRAGON"
    expected = with_strip(game, 0, free, "free")
    assert wb.rtp_label.value == f"RTP {pct6(sum(rtp_breakdown(expected).values()))}"
    assert "analysed on <code>base</code>" in wb.title.value and "free" in wb.title.value


# --------------------------------------------------------------------------- targets
def test_targets_show_delta_in_colour_and_warn(bench: Workbench) -> None:
    status = bench.targets.status.value
    assert "96.2900% ± 0.005 pp" in status and "#2ca02c" in status  # within the tolerance: green
    assert bench.targets.warnings.value == ""
    # a top award that makes the RTP pass 100%: a warning, the RTP row in red
    bench.pay_inputs[("H1", 5, 0)].value = 60_000
    game = load_game(bench.path)  # type: ignore[arg-type]
    pays = tuple(dataclasses.replace(e, pays=tuple((k, (60_000,) if k == 5 else v) for k, v in e.pays))
                 if e.name == "H1" else e for e in game.line_pays)
    rtp = component_rtp(dataclasses.replace(game, line_pays=pays)).rtp()
    assert rtp > 1
    assert f"RTP {float(rtp) * 100:.4f}% is above 100%" in bench.targets.warnings.value
    assert "#d62728" in bench.targets.status.value
    # the σ band is in the file: σ outside it is flagged once σ is known
    assert "σ" in bench.targets.warnings.value and "outside its target [3.0000, 4.0000]" in bench.targets.warnings.value


def test_target_fields_are_game_edits(bench: Workbench, games_dir: Path) -> None:
    bench.targets.bands[("sd", 0)].value = "3.5"
    assert bench.game.targets.sd == (3.5, 4.0)
    bench.targets.rtp_box.value = "95.5"
    assert bench.game.target_rtp() == Fraction(955, 1000)
    bench.targets.bands[("sd", 1)].value = "x"
    assert "targets.sd" in bench.error.value
    assert bench.game.targets.sd == (3.5, 4.0)
    out = bench.save_as("with_targets")
    assert out is not None and load_game(out).targets == bench.game.targets


def test_classic_game_flags_the_max_coin_rtp(games_dir: Path) -> None:
    from mathkit.model.edits import at_bet

    wb = build_workbench("classic_3reel.toml", games_dir, mode="sync")
    game = load_game(games_dir / "classic_3reel.toml")
    at3 = component_rtp(at_bet(game, None, 3)).rtp()
    assert at3 != game.declared_rtp
    assert "declared RTP 86.2800% differs from the RTP at other coin options" in wb.targets.warnings.value
    assert f"{float(at3) * 100:.4f}% at 3 coins" in wb.targets.warnings.value


def test_tune_to_target_shows_a_diff_and_applies_on_request(games_dir: Path) -> None:
    wb = build_workbench("classic_3reel.toml", games_dir, mode="sync")
    game = wb.game
    wb.targets.rtp_box.value = "85"
    wb.targets.start_tune(wait=True)
    p = wb.targets.proposal
    assert p is not None and p.reached and abs(p.rtp - Fraction(85, 100)) <= Fraction(5, 100_000)
    assert "reached" in wb.targets.tune_out.value and "mk-proposal" in wb.targets.tune_out.value
    assert wb.game.reel_set() == game.reel_set()  # nothing changed yet
    assert wb.targets.apply()
    assert component_rtp(wb.game).rtp() == p.rtp
    assert wb.rtp_label.value == f"RTP {pct6(p.rtp)}"
    wb.undo()
    assert wb.game.reel_set() == game.reel_set()


# --------------------------------------------------------------------------- live tables
def test_hit_table_and_sensitivity_follow_the_edit(bench: Workbench) -> None:
    tables = bench._panel(__import__("mathkit.workbench.tables", fromlist=["TablesPanel"]).TablesPanel)
    game = load_game(bench.path)  # type: ignore[arg-type]
    comp = component_rtp(game)
    h1 = next(e for e in comp.entries if e.entry == "H1" and e.count == 5)
    assert f"<td>5 × H1</td><td>lines</td><td>2,500</td><td>{h1.hits:,}</td>" in tables.hits.value
    s = symbol_sensitivity(game)
    d = s.delta[0][s.symbols.index("H1")]
    assert d is not None and f"{100 * float(d):+.4f}" in tables.sensitivity.value
    bands = tables.bands.value
    assert "(1000, ∞)" in bands and "(100, 1000]" in bands
    # an edit: the changed rows are marked with their Δ against the saved file
    strip = list(game.reel_set().strips[0])
    strip[1] = "H1"
    bench.strips[0].value = " ".join(strip)
    new = next(e for e in component_rtp(with_strip(game, 0, strip)).entries if e.entry == "H1" and e.count == 5)
    delta = Fraction(new.credits - h1.credits, comp.cycle * comp.total_bet)
    assert f"{100 * float(delta):+.4f} pp" in tables.hits.value


def test_compare_two_versions(bench: Workbench, games_dir: Path) -> None:
    from mathkit.workbench.compare import EDITED, SAVED, ComparePanel

    panel = bench._panel(ComparePanel)
    game = load_game(games_dir / "benchmark_5x3.toml")
    bench.pay_inputs[("M1", 4, 0)].value = 250
    panel.a.value, panel.b.value = SAVED, EDITED
    panel.run(wait=True)
    out = panel.out.value
    edited = dataclasses.replace(game, line_pays=tuple(
        dataclasses.replace(e, pays=tuple((k, (250,) if k == 4 else v) for k, v in e.pays)) if e.name == "M1" else e
        for e in game.line_pays))
    d = component_rtp(edited).rtp() - component_rtp(game).rtp()
    assert f"exact {d}" in out
    assert f"{build_par(edited).sd.value - build_par(game).sd.value:+.4f}" in out
    assert "<td>pays</td><td>4 × M1</td><td>200</td><td>250</td>" in out
    panel.b.value = "file classic_3reel.toml"
    panel.run(wait=True)
    assert "Classic" in out or "mk-compare-figures" in panel.out.value


# --------------------------------------------------------------------------- the bugs of issue 16, each with a test
def test_switching_game_opens_the_strip_tab_with_the_strips(games_dir: Path) -> None:
    wb = build_workbench("dynasty.toml", games_dir, mode="sync")
    wb.editor_tabs.selected_index = 2  # the features tab
    wb.reels_picker.value = "free"
    wb.game_picker.value = "benchmark_5x3.toml"
    assert wb.editor_tabs.selected_index == 0
    assert wb.reels == "base" and len(wb.grid) == 5 and len(wb.grid[0].options) == 32
    assert wb.editor_tabs.children[0] is wb.strip_panel.widget


def test_after_saving_the_title_names_the_new_file_and_old_status_goes(bench: Workbench) -> None:
    bench.pay_inputs[("H1", 5, 0)].value = 3000
    assert "<i>edited</i>" in bench.title.value
    bench.save_as("renamed")
    assert "renamed.toml" in bench.title.value and "<i>edited</i>" not in bench.title.value
    assert bench.status.value.startswith("saved ")
    bench.pay_inputs[("H1", 5, 0)].value = 3100
    assert bench.status.value == ""


def test_delta_before_any_save_says_so(games_dir: Path) -> None:
    game = load_game(games_dir / "tiny.toml")
    wb = build_workbench(game, games_dir, mode="sync")  # a game given in code: no saved file
    assert wb.delta_rtp.value == "Δ RTP: — (not saved yet)"
    wb.strips[0].value = "A B B B"
    assert wb.delta_rtp.value == "Δ RTP: — (not saved yet)"


def test_scatter_pay_boxes_fit_their_numbers(games_dir: Path) -> None:
    wb = build_workbench("dynasty.toml", games_dir, mode="sync")
    box = wb.scatter_inputs[("EMPEROR", 5)]
    assert box.value == 100
    width = int(box.layout.width.removesuffix("px"))
    # the description "5 ×" and at least five digits at 8 px each, plus the spin buttons
    assert width >= 8 * 5 + 8 * 3 + 28


def test_paytable_header_says_what_the_boxes_hold(games_dir: Path) -> None:
    wb = build_workbench("dynasty.toml", games_dir, mode="sync")
    from mathkit.workbench.editors import pay_header

    assert pay_header(wb.game) == "credits per line at 1 coin; at 2, 5, 10 coins every pay × coins"
    assert all(i == 0 for (_e, _k, i) in wb.pay_inputs)  # one box per pay, not one per coin option


def test_saved_files_follow_the_umask_and_keep_the_layout(bench: Workbench, games_dir: Path) -> None:
    old = os.umask(0o022)
    try:
        out = bench.save_as("fresh")
    finally:
        os.umask(old)
    assert out is not None and out.stat().st_mode & 0o777 == 0o644  # not 0600
    src = (games_dir / "benchmark_5x3.toml").read_text()
    assert out.read_text() == src  # unedited: the very same text
    bench.pay_inputs[("L5", 3, 0)].value = 7
    bench.save_as("fresh", overwrite=True)
    diff = [d for d in difflib.unified_diff(src.splitlines(), out.read_text().splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("---", "+++"))]
    assert diff == ["-L5 = { 3 = 6, 4 = 25, 5 = 100 }", "+L5 = { 3 = 7, 4 = 25, 5 = 100 }"]


def test_the_picker_echoed_after_a_save_does_not_reopen_the_game(bench: Workbench) -> None:
    bench.pay_inputs[("H1", 5, 0)].value = 3000
    out = bench.save_as("echo")
    assert out is not None
    figure = bench.figures.widget
    bench.game_picker.value = "benchmark_5x3.toml"  # another file: opened
    bench.game_picker.value = "echo.toml"
    assert bench.history == [] and bench.figures.widget is not figure
    bench.pay_inputs[("H1", 5, 0)].value = 3100
    bench.save_as("echo", overwrite=True)
    figure, history = bench.figures.widget, list(bench.history)
    bench.game_picker.value = None
    bench.game_picker.value = "echo.toml"  # what the browser sends back after the save: the same file
    assert bench.history == history and bench.figures.widget is figure


def test_prince_heights_and_activator_values_are_edited_in_the_feature_forms(games_dir: Path) -> None:
    from mathkit.features.cash_stacks import CashStacks
    from mathkit.features.heights import VariableHeights
    from mathkit.round import rtp_breakdown

    wb = build_workbench("prince_of_riches.toml", games_dir, mode="sync")
    game = load_game(games_dir / "prince_of_riches.toml")
    assert wb.rtp_label.value == f"RTP {pct6(sum(rtp_breakdown(game).values()))}"
    fields = wb.feature_inputs
    fields[("variable_heights", ("heights", "7"))].value = 100  # was 50
    fields[("cash_stacks", ("activators", "ACT5"))].value = 4  # was 5× bet
    heights, cash = game.feature("variable_heights"), game.feature("cash_stacks")
    assert isinstance(heights, VariableHeights) and isinstance(cash, CashStacks)
    expected = game.with_features(
        dataclasses.replace(heights, heights=tuple((h, 100 if h == 7 else w) for h, w in heights.heights)),
        dataclasses.replace(cash, activators=tuple((a, Fraction(4) if a == "ACT5" else v) for a, v in cash.activators)))
    assert wb.game == expected
    assert wb.rtp_label.value == f"RTP {pct6(sum(rtp_breakdown(expected).values()))}"
