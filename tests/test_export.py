"""Exports: XLSX PAR sheet, game-server JSON with checksum, diff between two games (mathkit.export)."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest

from mathkit.checks import run_checks
from mathkit.cli.export import cli
from mathkit.exact.components import component_rtp
from mathkit.export import (
    ChecksumError,
    diff_games,
    diff_to_dict,
    diff_to_text,
    game_from_server_json,
    game_to_server_dict,
    game_to_server_json,
    load_any_game,
    write_par_xlsx,
)
from mathkit.export.sheet import write_par
from mathkit.gamefile.io import load_game, loads_game
from mathkit.report.par import build_par

GAMES = sorted(Path("data/games").rglob("*.toml"))
BENCH = "data/games/benchmark_5x3.toml"
CLASSIC = "data/games/classic_3reel.toml"
SHEETS = ["summary", "reels", "paytable", "features", "distribution", "base spin", "checks"]

# A small free-spin game: 3 reels × 4 stops, one line; 3 scatters award 5 free spins at ×2 on 'free'
# (which shows a scatter on reel 2 only, so there is no retrigger), a fair gamble and a cap.
MINI_FS = """
name = "mini free spins"
paylines = [[0, 0, 0]]
cap = 500
description = "A test game; the max win of a play is capped at 500 x bet."
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 1
strips = ["A B S B", "A B S B", "A B S B"]
[reels.free]
rows = 1
strips = ["A B B B", "A S B B", "A B B B"]
[paytable]
A = { 3 = 10 }
B = { 3 = 1 }
[scatter_pays]
S = { 3 = 2 }
[free_spins]
trigger = "S"
awards = { 3 = 5 }
retriggers = { 3 = 5 }
reels = "free"
multiplier = 2
[gamble]
max_gambles = 5
limit = 100
options = [{ name = "colour", multiplier = 2, p = "1/2" }]
"""


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_server_json_round_trip(path: Path) -> None:
    game = load_game(path)
    text = game_to_server_json(game)
    assert game_from_server_json(text) == game
    # the checksum covers the content, not the layout
    compact = json.dumps(json.loads(text), separators=(",", ":"))
    assert game_from_server_json(compact) == game
    doc = json.loads(text)
    assert set(doc) == {"format", "game", "checksum"}
    assert len(doc["checksum"]["value"]) == 64
    for key in ("reels", "paytable", "bet", "symbols", "total_bet") + (("paylines",) if game.pay_mode == "lines" else ()):
        assert key in doc["game"]  # a ways game (data/games/classic/ways_rules_243.toml) has no paylines


def test_server_json_keeps_weights_features_and_fractions() -> None:
    game = dataclasses.replace(load_game(CLASSIC), declared_rtp=Fraction(7783, 10000))
    doc = game_to_server_dict(game)
    assert doc["game"]["declared_rtp"] == "7783/10000"
    assert doc["game"]["reels"]["base"]["weights"][0][:3] == [1, 3, 2]
    assert doc["game"]["bet"]["coin_value"] == "1/4"
    assert game_from_server_json(doc) == game
    fs = loads_game(MINI_FS)
    back = game_from_server_json(game_to_server_json(fs))
    assert back == fs and [f.kind for f in back.features] == ["cap", "free_spins", "gamble"]
    assert back.feature("cap").table() == {"multiple": 500}


@pytest.mark.parametrize("edit", ["strip", "pay", "rtp", "checksum"])
def test_tampered_server_json_is_refused(edit: str) -> None:
    doc = game_to_server_dict(load_game(BENCH))
    if edit == "strip":
        doc["game"]["reels"]["base"]["strips"][0][0] = "H1"
    elif edit == "pay":
        doc["game"]["paytable"]["H1"]["5"] = 25000
    elif edit == "rtp":
        doc["game"]["declared_rtp"] = "99/100"
    else:
        doc["checksum"]["value"] = "0" * 64
    with pytest.raises(ChecksumError, match="checksum mismatch"):
        game_from_server_json(json.dumps(doc))


def test_server_json_cli_round_trip_and_tamper(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert cli([BENCH, "--server-json", str(out)]) == 0
    assert load_any_game(out) == load_game(BENCH)
    toml = tmp_path / "back.toml"
    assert cli([str(out), "--toml", str(toml)]) == 0
    assert load_game(toml) == load_game(BENCH)
    assert cli([BENCH, "--server-json", str(out)]) == 2  # exists
    assert "--force" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    doc["game"]["scatter_pays"]["SCATTER"]["3"] = 2
    out.write_text(json.dumps(doc))
    assert cli([str(out), "--toml", str(tmp_path / "x.toml")]) == 2
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and "Traceback" not in err
    assert not (tmp_path / "x.toml").exists()
    (tmp_path / "junk.json").write_text('{"format": "other"}')
    assert cli([str(tmp_path / "junk.json"), "--toml", str(tmp_path / "y.toml")]) == 2
    assert "not a game-server file" in capsys.readouterr().err


def _rows(ws: object) -> list[list[object]]:
    return [list(r) for r in ws.iter_rows(values_only=True)]  # type: ignore[attr-defined]


def test_xlsx_has_the_sheets_and_the_figures(tmp_path: Path) -> None:
    game = load_game(CLASSIC)
    par = build_par(game, coins=3)
    path = write_par(par, tmp_path / "classic.xlsx")  # report.write_par dispatches .xlsx here
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == SHEETS
    summary = {r[0]: r for r in _rows(wb["summary"]) if r and r[0]}
    assert summary["RTP"][1] == pytest.approx(par.rtp.value)
    assert Fraction(str(summary["RTP"][2])) == component_rtp(game, coins=3).rtp()
    assert summary["cycle"][1] == par.cycle
    assert summary["σ per total bet"][1] == pytest.approx(par.sd.value)
    assert summary["hit frequency per spin (plays that pay / plays)"][1] == pytest.approx(par.hit_frequency.value)
    per_line = summary["hit frequency per line (E[lines paid] / E[lines played], base spin)"]
    assert par.hit_frequency_per_line is not None and Fraction(str(per_line[2])) == par.hit_frequency_per_line.exact
    pay = _rows(wb["paytable"])
    assert pay[0][:5] == ["component", "combination", "count", "pay (credits)", "hits"]
    body = pay[1:-1]
    assert len(body) == len(par.entries)
    for row, e in zip(body, par.entries, strict=True):
        assert (row[1], row[2], row[3], row[4]) == (e.entry, e.count, e.pay, e.hits)
        # a 1-line game: the probability per line is the hits per spin (the hits over the cycle)
        assert row[5] == row[6] == pytest.approx(e.hits / par.cycle) and row[7] == "spin"
        assert Fraction(str(row[10])) == e.rtp.exact
    assert Fraction(str(pay[-1][10])) == par.rtp.exact  # contributions sum to the RTP
    wild = next(r for r in body if r[1] == "WILD")
    assert wild[3] == 5000  # the max-coin top award
    dist = _rows(wb["distribution"])
    assert len(dist) - 1 == len(par.distribution.values)
    assert sum(int(r[4]) for r in dist[1:]) == par.cycle  # type: ignore[arg-type]
    assert dist[1][3] == pytest.approx(1.0)
    checks = _rows(wb["checks"])[1:]
    assert [r[0] for r in checks] == [c.name for c in run_checks(game)]
    reels = _rows(wb["reels"])
    assert reels[1][:3] == ["stop", "reel 1", "weight 1"]
    assert reels[2][1:3] == ["WILD", 1]


def test_xlsx_features_sheet_and_atomic_replace(tmp_path: Path) -> None:
    game = loads_game(MINI_FS)
    par = build_par(game)
    path = tmp_path / "mini.xlsx"
    path.write_bytes(b"old")
    write_par_xlsx(par, path, profile="anz")
    assert [p.name for p in tmp_path.iterdir()] == ["mini.xlsx"]  # no temporary file left
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == SHEETS
    feats = _rows(wb["features"])
    names = {r[0] for r in feats[1:] if r and r[0]}
    assert {s.name for s in par.features} <= names
    assert any(r[0] == "cap (× bet)" for r in _rows(wb["summary"]))
    assert {r[3] for r in _rows(wb["checks"])[1:]} == {"anz"}
    assert cli([str(tmp_path / "nothing.toml"), "--xlsx", str(tmp_path / "n.xlsx")]) == 2


def test_diff_on_a_one_stop_change(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a = load_game(BENCH)
    rs = a.reel_set()
    strips = list(rs.strips)
    old = strips[2][17]
    assert old == "L3"
    strips[2] = (*strips[2][:17], "H1", *strips[2][18:])
    b = dataclasses.replace(a, reel_sets=(dataclasses.replace(rs, strips=tuple(strips)),))
    d = diff_games(a, b)
    assert {c.section for c in d.changes} == {"counts", "positions"}
    assert [(c.where, c.before, c.after) for c in d.section("positions")] == [("base reel 3 stop 17", "L3", "H1")]
    assert sorted((c.where, c.before, c.after) for c in d.section("counts")) == [
        ("base reel 3 H1", "2", "3"), ("base reel 3 L3", "8", "7")]
    assert d.delta_rtp == component_rtp(b).rtp() - component_rtp(a).rtp()
    assert d.figures["rtp"][2] == pytest.approx(float(d.delta_rtp))
    assert d.figures["sd"][2] > 0  # one more top symbol: more volatile
    text = diff_to_text(d)
    assert "base reel 3 stop 17: L3 → H1" in text and "Δ" in text
    assert diff_to_dict(d)["delta_rtp_exact"] == f"{d.delta_rtp.numerator}/{d.delta_rtp.denominator}"
    same = diff_games(a, a, figures=False)
    assert same.changes == () and "no change" in diff_to_text(same)
    # through the command line, against a game-server export of b
    other = tmp_path / "b.json"
    other.write_text(game_to_server_json(b))
    assert cli([BENCH, "--diff", str(other), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert {c["section"] for c in got["changes"]} == {"counts", "positions"}


def test_diff_of_pays_lengths_and_features() -> None:
    a = loads_game(MINI_FS)
    b = loads_game(MINI_FS.replace("A = { 3 = 10 }", "A = { 3 = 12 }").replace("multiplier = 2", "multiplier = 3")
                   .replace('"A B S B", "A B S B", "A B S B"', '"A B S B B", "A B S B", "A B S B"'))
    d = diff_games(a, b, figures=False)
    where = {(c.section, c.where): (c.before, c.after) for c in d.changes}
    assert where[("pays", "3 × A")] == ("10", "12")
    assert where[("features", "free_spins.multiplier")] == ("2", "3")
    assert where[("reels", "base reel 1 length")] == ("4", "5")
    assert where[("counts", "base reel 1 B")] == ("2", "3")
    assert any(c.section == "positions" and "insert" in c.where for c in d.changes)
