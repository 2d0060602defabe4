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
    from mathkit.dev.render import summary_table  # the reviewer notebooks' sheet

    rows = {r[0]: r[1] for r in summary_table(par).rows}
    assert rows["base spin alone: hit frequency"] == "12.5000%" and rows["base spin alone: σ per total bet"] == "3.3072"
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


# ----------------------------------------------------------------------------- B. never nothing
WIDE_FREE_SPINS = """
# The smallest free-spin game whose free-spin win distribution does not fit: 100 free spins each paying 0, 1 or
# 1,000,000 credits spread the feature's win over 10⁸ credits, more than the 2²⁵ points its FFT takes.
name = "wide free spins"
pay_mode = "lines"
default_reels = "base"
paylines = [[0]]

[bet]
lines = 1
coins = [1]

[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]

[reels.base]
rows = 1
strips = ["S A A B"]

[reels.free]
rows = 1
strips = ["A A A B"]

[paytable]
A = { 1 = 1 }
B = { 1 = 1000000 }

[free_spins]
trigger = "S"
awards = { 1 = 100 }
reels = "free"
"""


def test_a_free_spin_distribution_too_wide_leaves_out_its_figures_not_the_sheet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Base spin B: S (1/4) pays 0 and starts 100 free spins, A (1/2) pays 1, B (1/4) pays 10⁶.  A free spin X
    # pays 1 (3/4) or 10⁶ (1/4).  The play W = B + 1{S}·F, F the sum of 100 free spins:
    # E[W] = 1/2 + 250,000 + 25·E[X] = 26,000,077/4; E[W²] = 1/2 + 10¹²/4 + E[F²]/4, E[F²] = 100·Var X + (100·E[X])².
    path = tmp_path / "wide.toml"
    path.write_text(WIDE_FREE_SPINS)
    ex = Fraction(3, 4) + Fraction(10**6, 4)
    var_x = Fraction(3, 4) + Fraction(10**12, 4) - ex * ex
    ew = Fraction(1, 2) + 250_000 + Fraction(1, 4) * 100 * ex
    ew2 = Fraction(1, 2) + Fraction(10**12, 4) + Fraction(1, 4) * (100 * var_x + (100 * ex) ** 2)
    assert main(["par", str(path), "--json", "--no-cache"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert Fraction(d["rtp_exact"]) == ew == Fraction(26_000_077, 4)
    assert d["breakdown_exact"] == {"lines": "500001/2",
                                    "free spins": str(Fraction(1, 4) * 100 * ex)}
    assert d["sd"] == pytest.approx(math.sqrt(ew2 - ew * ew), rel=1e-12) and d["provenance"]["sd"] == "exact"
    assert d["level"] == "moments" and d["hit_frequency"] is None and d["max_win"] is None
    why = d["hit_frequency_reason"]
    assert "free_spins" in why and "66,430,125 points" in why and "mathkit simulate" in why
    assert set(d["not_computed"]) >= {"hit_frequency", "max_win", "p_win_ge", "win_distribution"}
    assert d["base_spin"]["exact"]["hit_frequency"] == "3/4"  # the base spin's own law still fits
    assert main(["par", str(path), "--json", "--no-cache", "--sessions"]) == 0  # a session needs the distribution
    assert "66,430,125 points" in json.loads(capsys.readouterr().out)["not_computed"]["sessions"]
    assert main(["par", str(path), "--no-cache"]) == 0
    text = capsys.readouterr().out
    assert "total                    650001925.000000%   [exact]  = 26000077/4" in text
    assert "not computed: hit frequency, hit frequency win ge bet, max win" in text


def test_a_memory_limit_on_the_free_spin_distribution_keeps_sigma(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # dynasty_small's enumeration takes well under 256 KB; its free-spin distribution (18 retrigger mixes on
    # 6,750 points) is estimated at 474.8 KB: under MATHKIT_MAX_MEMORY=256K the sheet keeps RTP and σ, exact
    game = ROOT / "data" / "games" / "dynasty_small.toml"
    monkeypatch.setenv("MATHKIT_MAX_MEMORY", "256K")
    assert main(["par", str(game), "--json", "--no-cache"]) == 0
    d = json.loads(capsys.readouterr().out)
    monkeypatch.delenv("MATHKIT_MAX_MEMORY")
    full = build_par(load_game(game))
    assert d["level"] == "moments" and Fraction(d["rtp_exact"]) == full.rtp.exact
    assert d["sd"] == pytest.approx(full.sd.value, rel=1e-12)
    assert d["hit_frequency"] is None and "MATHKIT_MAX_MEMORY" in d["hit_frequency_reason"]
    assert d["base_spin"]["exact"]["hit_frequency"] == full.base_spin.hit_frequency.exact_str()  # type: ignore[union-attr]


def test_an_enumeration_refused_keeps_the_rtp_and_the_paytable() -> None:
    # under MATHKIT_MAX_MEMORY=64K even dynasty_small's base enumeration (77.6 KB) is refused; its RTP by
    # component and its paytable come from per-reel counts, no enumeration: the sheet of the round's means
    # (in a fresh process: an engine in this one may keep the enumeration from an earlier test)
    import os
    import subprocess
    import sys

    game = ROOT / "data" / "games" / "dynasty_small.toml"
    env = {**os.environ, "MATHKIT_MAX_MEMORY": "64K", "MATHKIT_CACHE": "0"}
    out = subprocess.run([sys.executable, "-m", "mathkit", "par", str(game), "--json"], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    full = build_par(load_game(game))
    assert d["level"] == "mean" and Fraction(d["rtp_exact"]) == full.rtp.exact
    assert d["breakdown_exact"] == {k: f.exact_str() for k, f in full.components.items()}
    assert [(e["entry"], e["count"], e["hits"]) for e in d["paytable"]] == [(e.entry, e.count, e.hits)
                                                                            for e in full.entries]
    assert d["sd"] is None and "full-cycle enumeration" in d["sd_reason"] and "MATHKIT_MAX_MEMORY=..." in d["sd_reason"]
    assert d["base_spin"]["sd"] is None and "full-cycle enumeration" in d["base_spin"]["not_computed"]["sd"]


# ----------------------------------------------------------------------------- D. estimates against peaks
PEAK = r"""
import dataclasses, json, sys
from mathkit.gamefile.io import load_game
from mathkit.laws.stage import SpinModel
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables
from mathkit.exact.cycle import lines, plan

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024

game = load_game(sys.argv[1])
rs = game.reel_set()
lines.joint_counts(pay_tables(game), stop_tables(game, SpinModel(rs.name)))  # the kernels loaded, on the game itself
times = int(sys.argv[2])
if times > 1:  # every strip repeated: the cycle × times⁵, the symbols' odds the same
    rs = dataclasses.replace(rs, strips=tuple(s * times for s in rs.strips), weights=None)
    game = dataclasses.replace(game, reel_sets=(rs,))
t, st = pay_tables(game), stop_tables(game, SpinModel(rs.name))
plan.clear()
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size starts again from here
lines.joint_counts(t, st)
used = status("VmHWM") - before
plan.clear()
print(json.dumps({"used": used, "estimate": lines.enumeration_memory(t, st)}))
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/self/clear_refs")
@pytest.mark.parametrize(("game", "times"), [("benchmark_5x3", 8), ("three_scatter_5x3", 1), ("heights_3to7", 1)])
def test_the_enumeration_estimate_is_within_2x_of_its_peak(game: str, times: int) -> None:
    # the benchmark strips ×8 (2.6·10¹² stops; refused before at an estimate of 5.5 GB), the three-scatter game
    # (its dense (win, code) table the largest part), the heights game (the tallest window): peak resident
    # memory of the enumeration alone, measured in a fresh process
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", PEAK, str(ROOT / "data" / "games" / f"{game}.toml"), str(times)],
                         capture_output=True, text=True, check=True, timeout=300)
    m = json.loads(out.stdout)
    assert m["used"] > 4 << 20  # large enough to measure
    assert m["used"] / 2 <= m["estimate"] <= 2 * m["used"], m
