"""mathkit import-lut (a lookup table as a distribution) and reel strips as CSV (export --reels-csv, import-reels)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.cli.importlut import lut_analysis
from mathkit.exact.base import rtp as base_rtp
from mathkit.export.lut import read_lut
from mathkit.export.reelcsv import reel_csv_text, strips_from_csv
from mathkit.gamefile.io import load_game
from mathkit.round.compose import analyse
from mathkit.sessions.law import play_law
from mathkit.sessions.table import solve

CLASSIC = "data/games/classic_3reel.toml"


def test_a_table_by_hand(tmp_path: Path) -> None:
    # weights 6, 2, 1, 1 of 10; payouts 0, 1×, 2.5×, 10×: RTP (2 + 2.5 + 10) / 10 = 1.45,
    # E[X²] = (2 + 6.25 + 100) / 10 = 10.825, σ² = 10.825 − 1.45² = 8.7225
    p = tmp_path / "t.csv"
    p.write_text("1,6,0\n2,1,100\n3,1,100\n4,1,250\n5,1,1000\n")
    t = read_lut(p)
    assert t.rtp == Fraction(29, 20) and t.variance == Fraction(87225, 10_000)
    assert t.law.values.tolist() == [0, 100, 250, 1000] and t.law.counts is not None
    assert t.law.counts.tolist() == [6, 2, 1, 1]
    assert read_lut(p, cost=100).rtp == Fraction(29, 2000)  # a mode costing 100 base bets


@pytest.mark.parametrize("path", [CLASSIC, "data/games/classic/line_bet_scatters.toml"])
def test_round_trip_exact(tmp_path: Path, path: str, capsys: pytest.CaptureFixture[str]) -> None:
    # export → import-lut gives back the exact RTP: the wins off the 0.1× grid (line_bet_scatters) are split
    # keeping their mean, so the rounding bound is 0 here
    assert main(["export", path, "--stake", str(tmp_path), "--witnesses", "1"]) == 0
    capsys.readouterr()
    g = load_game(path)
    a = analyse(g, sections=False)
    assert main(["import-lut", str(tmp_path / "lookUpTable_base_0.csv"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    num, den = (int(x) for x in out["rtp_exact"].split("/"))
    assert Fraction(num, den) == a.rtp()
    assert a.law is not None
    if path == CLASSIC:  # every win on the grid: σ is the game's too
        assert out["sd"] == pytest.approx(a.law.sd_per_bet(), rel=1e-12)


def test_round_trip_dynasty_within_the_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "data/games/dynasty.toml", "--stake", str(tmp_path)]) == 1  # books not witnessed yet
    assert "hold no concrete round" in capsys.readouterr().err
    g = load_game("data/games/dynasty.toml")
    exact = analyse(g, sections=False).rtp()
    t = read_lut(tmp_path / "lookUpTable_base_0.csv")
    assert abs(float(t.rtp - Fraction(exact))) < 1e-6


def test_sessions_from_a_table_are_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", CLASSIC, "--stake", str(tmp_path)]) == 0
    a = lut_analysis(tmp_path / "lookUpTable_base_0.csv", spins=200, bankrolls=(50,))
    g = load_game(CLASSIC)
    direct = solve(play_law(g), "50x", 200)
    s = a.sessions[0]
    assert s.p_bust == pytest.approx(direct.p_bust, abs=1e-9)
    assert s.expected_spins == pytest.approx(direct.expected_spins, rel=1e-9)
    assert sum(float(b.probability) for b in a.bands) == pytest.approx(1.0)
    _, ps = zip(*a.exceedance, strict=True)
    assert list(ps) == sorted(ps, reverse=True) and ps[0] == pytest.approx(float(a.lut.law.hit_frequency()))


@pytest.mark.parametrize(("text", "needle"), [("id,weight,payoutMultiplier\n1,1,0\n", "line 1"),
                                              ("1,1,0\n2,-1,10\n", "line 2"), ("1,1,0.5\n", "line 1"),
                                              ("1,0,0\n", "every weight is 0")])
def test_bad_tables(tmp_path: Path, text: str, needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(text)
    assert main(["import-lut", str(p)]) == 2
    err = capsys.readouterr().err
    assert needle in err and str(p) in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["--cost", "0"], ["--cost", "x"], ["--spins", "0"], ["--table", "0x"]])
def test_bad_flags(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.csv"
    p.write_text("1,1,0\n2,1,10\n3,1,20\n")
    with pytest.raises(SystemExit) as e:  # refused by argparse at parse time
        main(["import-lut", str(p), *argv])
    assert e.value.code == 2
    assert "error: argument" in capsys.readouterr().err


# ----------------------------------------------------------------------------- reel strips as CSV
def test_reels_csv_export_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", CLASSIC, "--reels-csv", str(tmp_path / "csv")]) == 0
    g = load_game(CLASSIC)
    text = (tmp_path / "csv" / "base.csv").read_text()
    assert text.splitlines()[0] == "reel1,reel2,reel3" and text.splitlines()[1] == "WILD*1,WILD*1,WILD*1"
    strips, weights = strips_from_csv(text)
    assert strips == g.reel_set("base").strips and weights == g.reel_set("base").weights
    # unchanged strips: the file is written back byte for byte
    copy = tmp_path / "g.toml"
    shutil.copy(CLASSIC, copy)
    assert main(["import-reels", str(tmp_path / "csv" / "base.csv"), "--into", str(copy), "--reel-set", "base"]) == 0
    assert copy.read_text() == Path(CLASSIC).read_text()


def test_import_reels_changes_only_the_strips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "d.toml"
    shutil.copy("data/games/dynasty.toml", copy)
    g = load_game(copy)
    free = g.reel_set("free")
    csv = tmp_path / "free.csv"
    csv.write_text(reel_csv_text(free))
    assert main(["import-reels", str(csv), "--into", str(copy), "--reel-set", "base"]) == 0
    assert "base-spin RTP" in capsys.readouterr().out
    old, new = Path("data/games/dynasty.toml").read_text().splitlines(), copy.read_text().splitlines()
    assert len(old) == len(new)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    # the five strip lines of [reels.base], nothing else: the comments and the layout survive
    assert len(changed) == 5 and all(old[i].startswith('  "EMPEROR') for i in changed)
    assert all(line in new for line in old if line.startswith("#"))
    edited = load_game(copy)
    assert edited.reel_set("base").strips == free.strips
    assert dataclasses.replace(edited, reel_sets=g.reel_sets, source=g.source) == g
    assert base_rtp(edited, "base") == base_rtp(dataclasses.replace(
        g, reel_sets=tuple(dataclasses.replace(free, name="base") if r.name == "base" else r for r in g.reel_sets)),
        "base")


def test_import_reels_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "c.toml"
    shutil.copy(CLASSIC, copy)
    g = load_game(copy)
    lines = reel_csv_text(g.reel_set("base")).splitlines()
    lines[2] = lines[2].replace("BLANK*3,", "BLANK*4,", 1)  # reel 1, stop 1: weight 3 → 4
    csv = tmp_path / "w.csv"
    csv.write_text("\n".join(lines) + "\n")
    assert main(["import-reels", str(csv), "--into", str(copy), "--reel-set", "base"]) == 0
    edited = load_game(copy)
    assert edited.reel_set("base").weights[0][1] == 4 and edited.reel_set("base").strips == g.reel_set("base").strips
    old, new = Path(CLASSIC).read_text().splitlines(), copy.read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == [
        next(i for i, line in enumerate(old) if line.startswith("  [1, 3, 2, 3, 3, 3, 5"))]


@pytest.mark.parametrize(("cell", "needle"), [("ZZZ", "unknown symbol"), ("A B", "is not a symbol"),
                                              ("WILD*0", "weight 0")])
def test_import_reels_bad_cells(tmp_path: Path, cell: str, needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "c.toml"
    shutil.copy(CLASSIC, copy)
    before = copy.read_text()
    lines = reel_csv_text(load_game(copy).reel_set("base")).splitlines()
    lines[1] = f'"{cell}",' + lines[1].split(",", 1)[1] if " " in cell else f"{cell}," + lines[1].split(",", 1)[1]
    csv = tmp_path / "bad.csv"
    csv.write_text("\n".join(lines) + "\n")
    assert main(["import-reels", str(csv), "--into", str(copy), "--reel-set", "base"]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert copy.read_text() == before


def test_import_reels_unknown_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "c.toml"
    shutil.copy(CLASSIC, copy)
    csv = tmp_path / "r.csv"
    csv.write_text(reel_csv_text(load_game(copy).reel_set("base")))
    assert main(["import-reels", str(csv), "--into", str(copy), "--reel-set", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_cli_subprocess_help() -> None:
    out = subprocess.run([sys.executable, "-m", "mathkit", "--help"], capture_output=True, text=True, check=True)
    assert "import-lut" in out.stdout and "import-reels" in out.stdout
