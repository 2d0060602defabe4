"""The `mathkit par` command line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import load_game

BENCH = "data/games/benchmark_5x3.toml"
CLASSIC = "data/games/classic_3reel.toml"


def test_par_json_keys_and_breakdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", BENCH, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("rtp", "rtp_exact", "breakdown", "sd", "hit_frequency", "volatility_index", "max_win", "cycle",
                "provenance"):
        assert key in d
    exact = component_rtp(load_game(BENCH)).rtp()
    assert Fraction(d["rtp_exact"]) == exact
    assert sum(Fraction(v) for v in d["breakdown_exact"].values()) == exact
    assert abs(sum(d["breakdown"].values()) - d["rtp"]) < 1e-12
    assert d["cycle"] == 32 * 40 * 48 * 40 * 32
    assert d["provenance"]["rtp"] == "exact"
    # VI = z·σ for the three levels
    assert d["volatility_index"]["95%"] == pytest.approx(1.960 * d["sd"])
    assert d["declared_rtp"] == 0.9629  # as written in the file
    assert abs(d["rtp"] - d["declared_rtp"]) <= 0.00005


def test_par_json_declared_rtp_per_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "data/games/sizzling_hot.toml", "--reels", "rtp99", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["declared_rtp"] == 0.99088693


def test_par_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", CLASSIC]) == 0
    out = capsys.readouterr().out
    for words in ("PAR sheet", "hit frequency", "volatility index", "RTP range after N spins", "Paytable",
                  "ANY_BAR", "Symbol counts per reel"):
        assert words in out


def test_par_out_csv_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", CLASSIC, "--out", str(tmp_path / "p.csv")]) == 0
    rows = list(csv.reader((tmp_path / "p.csv").open()))
    assert rows[0] == ["section", "figure", "value", "exact", "method"]
    assert any(r[:2] == ["summary", "rtp"] for r in rows)
    assert main(["par", CLASSIC, "--out", str(tmp_path / "p.json"), "--coins", "3"]) == 0
    d = json.loads((tmp_path / "p.json").read_text())
    assert Fraction(d["rtp_exact"]) == component_rtp(load_game(CLASSIC), coins=3).rtp()
    assert main(["par", CLASSIC, "--out", str(tmp_path / "p.doc")]) == 2
    assert "unknown output format" in capsys.readouterr().err


def test_reels_option_and_unknown_reel_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", CLASSIC, "--json", "--reels", "base"]) == 0
    capsys.readouterr()
    assert main(["par", CLASSIC, "--reels", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no reel set 'nope'" in err and "base" in err


def test_bad_game_file_exits_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\npaylines = [[0]]\n[symbols.A]\n[reels.base]\nrows = 1\nstrips = ["A B"]\n')
    proc = subprocess.run([sys.executable, "-m", "mathkit", "par", str(bad)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "reels.base.strips[0][1]" in proc.stderr and "unknown symbol 'B'" in proc.stderr


def test_par_json_with_out_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--json --out F`` keeps stdout JSON (a pipeline reads it): what was written, not a line of text."""
    out = tmp_path / "sheet.json"
    assert main(["par", "data/games/classic_3reel.toml", "--json", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == {"wrote": str(out)} and json.loads(out.read_text())["rtp"] > 0
    assert main(["par", "data/games/classic_3reel.toml", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
