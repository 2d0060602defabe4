"""The PAR sheet's reach (issue 30): the base spin's own figures beside the whole play's, paytables past
62 entries, and `mathkit par` printing what fits when an optional figure does not.

Reference values are derived by hand in the comments or by :mod:`brute` (every outcome of the base reels
visited in plain Python), never read from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from brute import brute_force

from mathkit.cli import main
from mathkit.gamefile.io import load_game, loads_game
from mathkit.report.par import build_par
from mathkit.report.text import par_to_text

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- A. the base spin alone
FREE_SPIN_TOY = """
# 3 reels x 1 row, one line.  A A A pays 10; two S on reels 1-2 start one free spin on the same strips
# (no retrigger: the free spin's S S pays nothing more).  S pays nothing itself.
name = "base spin toy"
pay_mode = "lines"
default_reels = "base"
paylines = [[0, 0, 0]]

[bet]
lines = 1
coins = [1]

[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]

[reels.base]
rows = 1
strips = ["A S", "A S", "A B"]

[paytable]
A = { 3 = 10 }

[free_spins]
trigger = "S"
awards = { 2 = 1 }
reels = "base"
"""


def test_base_spin_figures_by_hand() -> None:
    # 8 equally likely outcomes.  The base spin pays 10 on A A A (1/8), else 0: E[W] = 10/8 = 5/4,
    # E[W²] = 100/8 = 25/2, Var = 25/2 − 25/16 = 175/16, σ = √175 / 4; hit frequency 1/8, P(W ≥ 10×) = 1/8.
    # The whole play adds, on S S · (1/4), one free spin paying 10 with 1/8: P(play pays) = 1/8 + 1/4 · 1/8 = 5/32.
    par = build_par(loads_game(FREE_SPIN_TOY))
    b = par.base_spin
    assert b is not None and b.sd is not None and b.hit_frequency is not None and b.max_win is not None
    assert b.rtp.exact == Fraction(5, 4)
    assert b.sd.method == "exact" and b.sd.value == pytest.approx(math.sqrt(175) / 4, rel=1e-15)
    assert b.hit_frequency.exact == Fraction(1, 8) and b.hit_frequency.method == "exact"
    assert b.tails[10].exact == Fraction(1, 8) and b.tails[100].exact == 0
    assert b.max_win.exact == 10 and b.max_win_probability is not None and b.max_win_probability.exact == Fraction(1, 8)
    assert par.hit_frequency.value == pytest.approx(5 / 32)  # the whole play's, beside it
    assert b.distribution is not None and b.distribution.counts is not None
    assert dict(zip(b.distribution.values.tolist(), b.distribution.counts.tolist(), strict=True)) == {0: 7, 10: 1}
    text = par_to_text(par)
    assert "Base spin alone (features excluded)" in text
    assert "σ per total bet             3.3072   [exact]" in text


def test_base_spin_of_dynasty_small_equals_brute_force() -> None:
    # the base spin of a free-spin game with scatter pays and stacked wilds: every outcome of the base reels
    game = load_game(ROOT / "data" / "games" / "dynasty_small.toml")
    brute = brute_force(game)
    b = build_par(game).base_spin
    assert b is not None and b.sd is not None and b.hit_frequency is not None and b.distribution is not None
    assert b.distribution.counts is not None and b.distribution.total == brute.cycle
    assert dict(zip(b.distribution.values.tolist(), b.distribution.counts.tolist(), strict=True)) == \
        {w: n for w, n in brute.distribution.items() if n}
    bet = brute.total_bet
    assert b.rtp.exact == brute.rtp()
    assert b.sd.value == pytest.approx(math.sqrt(brute.variance()) / bet, rel=1e-14)
    paid = sum(n for w, n in brute.distribution.items() if w > 0)
    assert b.hit_frequency.exact == Fraction(paid, brute.cycle)
    assert b.hit_frequency_bet is not None
    assert b.hit_frequency_bet.exact == Fraction(sum(n for w, n in brute.distribution.items() if w >= bet), brute.cycle)


def test_base_spin_in_json_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "toy.toml"
    path.write_text(FREE_SPIN_TOY)
    assert main(["par", str(path), "--json", "--no-cache"]) == 0
    d = json.loads(capsys.readouterr().out)
    base = d["base_spin"]
    assert base["exact"]["hit_frequency"] == "1/8" and base["exact"]["rtp"] == "5/4"
    assert base["sd"] == pytest.approx(math.sqrt(175) / 4) and base["provenance"]["sd"] == "exact"
    assert d["hit_frequency"] == pytest.approx(5 / 32)
    assert main(["par", str(path), "--out", str(tmp_path / "p.csv")]) == 0
    rows = (tmp_path / "p.csv").read_text().splitlines()
    assert "base_spin,hit_frequency,0.125,1/8,exact" in rows


def test_base_spin_sheet_in_xlsx(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from mathkit.export.xlsx import write_par_xlsx

    out = write_par_xlsx(build_par(loads_game(FREE_SPIN_TOY)), tmp_path / "p.xlsx", checks=[])
    ws = load_workbook(out)["base spin"]
    rows = {r[0]: r for r in ws.iter_rows(values_only=True) if r and r[0]}
    assert rows["hit frequency per spin (spins that pay / spins)"][2] == "1/8"
    assert rows["σ per total bet"][1] == pytest.approx(math.sqrt(175) / 4)


# ----------------------------------------------------------------------------- C. past 62 pay entries
def seventy_entries() -> str:
    """A 5×3 game of 5 lines with 70 pay entries: 12 symbols and 58 mixed pairs of them, a wild (a paytable
    past the 62 entries of one word of the enumeration kernel's alive-entries bitmask)."""
    syms = [f"S{i}" for i in range(12)]
    strips = [
        "WILD S0 S5 S1 S11",
        "S3 WILD S1 S0 S7",
        "S0 S2 WILD S8 S1",
        "S4 S0 S2 WILD S1",
        "S1 S6 S0 S3 WILD",
    ]
    pays = "\n".join(f"{s} = {{ 3 = {5 + i}, 4 = {20 + 2 * i}, 5 = {100 + 10 * i} }}" for i, s in enumerate(syms))
    pairs = list(itertools.combinations(syms, 2))[:58]
    # the last pairs (entries 63-70, past one 62-entry word) pay two of a kind too
    mixed = "\n".join(f'[mixed.M{k}]\nsymbols = ["{a}", "{b}"]\n'
                      f'pays = {{ {"2 = 1, " if k >= 50 else ""}3 = {1 + k % 4}, 4 = {3 + k % 5} }}\n'
                      for k, (a, b) in enumerate(pairs))
    symbols = "\n".join(f"[symbols.{s}]" for s in syms)
    return f"""name = "seventy entries"
pay_mode = "lines"
default_reels = "base"
paylines = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2]]

[bet]
lines = 5
coins = [1]

[symbols.WILD]
kind = "wild"
substitutes = "all"
{symbols}

[reels.base]
rows = 3
strips = [{", ".join(f'"{s}"' for s in strips)}]

[paytable]
{pays}

{mixed}"""


def test_seventy_pay_entries_equal_brute_force() -> None:
    from mathkit.spin.tables import pay_tables

    game = loads_game(seventy_entries())
    assert len(pay_tables(game).entries) == 70
    brute = brute_force(game)
    par = build_par(game)
    d = par.distribution
    assert d.counts is not None and d.total == brute.cycle
    assert dict(zip(d.values.tolist(), d.counts.tolist(), strict=True)) == {w: n for w, n in brute.distribution.items()
                                                                          if n}
    assert par.rtp.exact == brute.rtp()
    assert par.sd.value == pytest.approx(math.sqrt(brute.variance()) / brute.total_bet, rel=1e-14)
    hits = {(e.component, e.entry, e.count): e.hits for e in par.entries if e.hits}
    assert hits == {k: h for k, (h, _) in brute.entries.items()}
