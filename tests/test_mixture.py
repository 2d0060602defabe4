"""The round's law as an exact part mixed with sampled routes (mathkit/laws/mixture.py), and the route sampler.

The mixed figures are checked against values worked out by hand from hand-built parts (the Wilson
interval written out here from its formula); the sampler's conditional law of a forced overlay type
against the exact engine's per-type mean, a rejection route's acceptance rate against the exact
entry probability, and a seed reproduces the counts bit for bit.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from test_simulate_warlords import OVERLAY_TOY

from mathkit.errors import ModelError
from mathkit.gamefile.io import load_game, loads_game
from mathkit.laws.mixture import RoundPart, RouteSample, mix
from mathkit.round import analyse
from mathkit.sim.routes import sample_routes

ROOT = Path(__file__).resolve().parents[1]
Z99 = 2.5758293035489004  # the two-sided 99% normal quantile
Z995 = 2.807033768343811  # ... at 99.5% (two routes share the 1% by the union bound)


def wilson(k: int, n: int, z: float) -> tuple[float, float]:
    # (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n), with the ends 0 and 1 kept exact
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else mid - half), (1.0 if k == n else mid + half)


def sample(route: str, law: dict[int, int]) -> RouteSample:
    values = tuple(sorted(law))
    return RouteSample(route, values, tuple(law[v] for v in values), sum(law.values()), sum(law.values()), 7,
                       "hand-built")


def test_mixing_an_exact_part_with_one_sampled_route_by_hand() -> None:
    # bet 10; covered rounds: W = 0 w.p. 1/2, W = 10 w.p. 1/4; the route (P = 1/4): 60 × 0, 40 × 40 in 100 draws
    exact = RoundPart((0, 10), (0.5, 0.25), (Fraction(1, 2), Fraction(1, 4)))
    m = mix(exact, (("variant:x", Fraction(1, 4)),), {"variant:x": sample("variant:x", {0: 60, 40: 40})}, bet=10)
    assert m.method == "exact+sampled"
    hit = m.figures["hit_frequency"]
    lo, hi = wilson(40, 100, Z99)
    assert hit.value == pytest.approx(0.25 + 0.25 * 0.4)
    assert (hit.low, hit.high) == pytest.approx((0.25 + 0.25 * lo, 0.25 + 0.25 * hi))
    assert hit.exact is None and hit.method == "exact+sampled"
    ge_bet = m.figures["hit_frequency_win_ge_bet"]  # W ≥ 10: the exact 1/4 and the route's 40%
    assert ge_bet.value == pytest.approx(0.35) and ge_bet.low == pytest.approx(0.25 + 0.25 * lo)
    tail = m.figures["p_win_ge_10x"]  # W ≥ 100: never seen; the exact part adds no width
    assert tail.low == 0 and tail.high == pytest.approx(0.25 * Z99**2 / (100 + Z99**2))
    # ... so it is an upper end, never the point 0: an interval, its value the upper end, and the sheets say why
    assert tail.interval and tail.point is None and tail.value == tail.high
    assert "no sampled round of variant:x reached it" in tail.note
    assert m.describe(tail) == f"[exact+sampled: 99% interval ≤ {tail.high:.3g}, not resolved to a point value]"
    # no cap: the max win is the largest win (4× bet), P = 1/4 · 0.4 = 0.1, its half-width 1/4 · (hi − lo) / 2
    # = 0.031 (31% of 0.1: more than 10%), so it is an interval too
    assert m.max_win_kind == "largest" and m.figures["max_win"].value == 4
    top = m.figures["max_win_probability"]
    assert top.interval and (top.low, top.high) == pytest.approx((0.25 * lo, 0.25 * hi))
    assert "half-width is 31% of the point value" in top.note
    # the hit frequency is resolved (half-width 0.031 of 0.35, 9%): a point value
    assert not hit.interval and hit.point == hit.value
    bands = {b.label: b for b in m.bands}
    assert bands["0"].probability.value == pytest.approx(0.5 + 0.25 * 0.6)
    assert bands["(0, 1]"].probability.value == pytest.approx(0.25)  # W = 10 is 1× bet
    assert bands["(2, 5]"].probability.value == pytest.approx(0.1)
    # the band's RTP part: 1/4 · (0.4 · 4× bet) = 0.4; its interval from the route's sample σ
    sd = math.sqrt(0.4 * 16 - 1.6**2)
    assert bands["(2, 5]"].rtp.value == pytest.approx(0.4)
    assert bands["(2, 5]"].rtp.high == pytest.approx(0.25 * (1.6 + Z99 * sd / 10))
    xs, ps, lows, highs = m.exceedance
    assert xs == (1.0, 4.0) and ps == pytest.approx((0.35, 0.1))
    assert lows[1] == pytest.approx(0.25 * lo) and highs[1] == pytest.approx(0.25 * hi)


def test_two_routes_share_the_one_percent() -> None:
    # the union bound: each route's Wilson interval at 99.5%; the sampled-only sheet is tagged "sampled"
    s = {"feature:a": sample("feature:a", {0: 5, 20: 5}), "feature:b": sample("feature:b", {0: 1, 30: 3})}
    m = mix(RoundPart((), ()), (("feature:a", Fraction(1, 2)), ("feature:b", Fraction(1, 2))), s, bet=10)
    assert m.method == "sampled"
    a_lo, a_hi = wilson(5, 10, Z995)
    b_lo, b_hi = wilson(3, 4, Z995)
    hit = m.figures["hit_frequency"]
    assert hit.value == pytest.approx(0.5 * 0.5 + 0.5 * 0.75)
    assert (hit.low, hit.high) == pytest.approx((0.5 * (a_lo + b_lo), 0.5 * (a_hi + b_hi)))


def test_nothing_sampled_is_exact_and_the_cap_bound_wins_over_the_sample() -> None:
    exact = RoundPart((0, 10, 50), (0.5, 0.25, 0.25), (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)))
    m = mix(exact, (), {}, bet=10)
    assert m.method == "exact" and m.figures["hit_frequency"].exact == Fraction(1, 2)
    assert m.figures["hit_frequency"].low == m.figures["hit_frequency"].high == 0.5
    # a cap of 1000 credits no sample reached: the proven bound 1e-20 is tighter than the sample's upper end
    s = {"feature:f": sample("feature:f", {0: 99, 50: 1})}
    m = mix(exact, (("feature:f", Fraction(1, 10)),), s, bet=10, cap=1000, cap_bound=(1e-20, 3e-19))
    pc = m.figures["p_win_ge_cap"]
    assert pc.bound and pc.high == pc.value == 1e-20 and pc.method == "markov"  # shown as "P(cap) ≤ 1e-20"
    assert m.max_win_kind == "cap" and m.figures["max_win"].exact == 100
    assert m.figures["max_win_probability"] is pc
    assert m.figures["rtp_lost_to_cap"].high == pytest.approx(3e-20) and m.figures["rtp_lost_to_cap"].bound
    # a proven tail bound tighter than the sample's upper end replaces it (P(W ≥ t) ≤ 1e-9 for every t here)
    m = mix(exact, (("feature:f", Fraction(1, 10)),), s, bet=10, tail=lambda t: (0.0, 1e-9))
    assert m.figures["p_win_ge_10x"].high == 1e-9 and m.figures["p_win_ge_10x"].bound
    assert m.figures["p_win_ge_10x"].value == 1e-9  # an upper bound, never the 0 nothing sampled counted
    with pytest.raises(ModelError, match="above its proven bound"):  # a sample that contradicts a bound
        mix(exact, (("feature:f", Fraction(1, 10)),), s, bet=1, tail=lambda t: (0.0, 1e-9))
    with pytest.raises(ValueError, match="no sample for the uncovered route"):
        mix(exact, (("feature:g", Fraction(1, 10)),), s, bet=10)


OVERLAY = OVERLAY_TOY + """
[[overlay_wilds.types]]
name = "one"
weight = 3
shape = "cells"
counts = { 1 = 1 }
reels = [1, 2, 3]
"""


def test_a_forced_variant_samples_the_conditional_law() -> None:
    game = loads_game(OVERLAY)
    route = "variant:overlay wilds: two"
    s = sample_routes(game, [route], 200_000, seed=5)[route]
    assert s.how == "forced variant" and s.draws == s.played == 200_000
    law = dict(zip(s.values, s.counts, strict=True))
    assert set(law) == {1, 10}  # two wilds, the free cell A (10) or B (1)
    # the exact engine's mean of the type's spins, per spin of the type
    a = analyse(game, level="mean")
    p_type = Fraction(1, 2) * Fraction(1, 4)
    mean = float(a.outcome.components["overlay wilds: two: lines"] / p_type)
    m1 = sum(v * c for v, c in law.items()) / s.draws
    sd = math.sqrt(sum(v * v * c for v, c in law.items()) / s.draws - m1 * m1)
    assert abs(m1 - mean) <= Z99 * sd / math.sqrt(s.draws)
    lo, hi = wilson(law[10], s.draws, Z99)
    assert lo <= 0.5 <= hi
    # the seed reproduces it, on any number of threads
    assert sample_routes(game, [route], 200_000, seed=5, threads=1)[route] == s
    assert sample_routes(game, [route], 200_000, seed=6)[route] != s
    with pytest.raises(ModelError, match="no base variant is labelled 'nothing'"):
        sample_routes(game, ["variant:nothing"], 10)


def test_a_feature_route_by_rejection_and_the_round() -> None:
    game = load_game(ROOT / "data" / "games" / "three_scatter_5x3.toml")
    a = analyse(game, level="mean")
    name = next(f.name for f in game.features if f.role == "sequence")
    got = sample_routes(game, [f"feature:{name}", "round"], 10, seed=9, literal_rounds=300_000)
    s, whole = got[f"feature:{name}"], got["round"]
    assert s.how == "rejection on literal rounds" and whole.draws == whole.played == 300_000
    lo, hi = wilson(s.draws, s.played, Z99)
    assert lo <= float(a.stats[name].p_enter) <= hi
    # the feature's rounds are among the round's: no value of theirs is missing from the whole law
    whole_law = dict(zip(whole.values, whole.counts, strict=True))
    assert all(whole_law.get(v, 0) >= c for v, c in zip(s.values, s.counts, strict=True))
    assert sample_routes(game, [f"feature:{name}", "round"], 10, seed=9, literal_rounds=300_000, threads=1) == got
    with pytest.raises(ModelError, match="unknown route 'feature:nope'"):
        sample_routes(game, ["feature:nope"], 10)


def test_par_json_is_reproducible_and_tagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a game whose sticky free spins give their moments only: the exact base spin mixed with the feature's rounds,
    # sampled by rejection on literal rounds, tagged "exact+sampled"
    from test_free_spin_games import samurai

    from mathkit.cli import main
    from mathkit.gamefile.io import dump_game

    path = tmp_path / "sticky.toml"
    path.write_text(dump_game(samurai()[0]))
    runs = []
    for seed in (4, 4, 5):
        assert main(["par", str(path), "--json", "--sample-rounds", "100000", "--seed", str(seed)]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] != runs[2]  # the same seed gives the same sheet, byte for byte
    d = json.loads(runs[0])
    assert d["level"] == "distribution" and d["provenance"]["sd"] == "exact"
    assert d["provenance"]["hit_frequency"] == "exact+sampled" and 0 < d["hit_frequency"] <= 1
    dist = d["distribution"]
    route = dist["routes"][0]
    assert dist["seed"] == 4 and route["route"] == "feature:samurai" and route["rounds_played"] == 400_000
    assert route["how"] == "rejection on literal rounds" and 0 < route["draws"] < 400_000
    lo, hi = dist["figures"]["hit_frequency"]["low"], dist["figures"]["hit_frequency"]["high"]
    assert lo <= d["hit_frequency"] <= hi and lo < hi
    assert sum(b["probability"] for b in dist["win_bands"]) == pytest.approx(1)
    # --sample-rounds 0 samples nothing: the figures are left out and say why (never a figure from nothing)
    assert main(["par", str(path), "--json", "--sample-rounds", "0"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["hit_frequency"] is None and "distribution" not in d
    for bad in (["--sample-rounds", "-3"], ["--sample-rounds", "1.5"], ["--seed", "-1"]):
        with pytest.raises(SystemExit) as exc:
            main(["par", str(path), *bad])
        assert exc.value.code == 2
        assert bad[0] in capsys.readouterr().err


def test_text_csv_and_xlsx_show_the_mixed_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from openpyxl import load_workbook
    from test_free_spin_games import samurai

    from mathkit.cli import main
    from mathkit.gamefile.io import dump_game

    path = tmp_path / "sticky.toml"
    path.write_text(dump_game(samurai()[0]))
    flags = ["--sample-rounds", "50000", "--seed", "2"]
    assert main(["par", str(path), *flags]) == 0
    text = capsys.readouterr().out
    assert "Win distribution of the whole round [exact+sampled]" in text
    assert "hit frequency per spin" in text and "[exact+sampled, 99% " in text
    assert "sampled: feature:samurai" in text and "rejection on literal rounds, seed 2" in text
    assert main(["par", str(path), *flags, "--out", str(tmp_path / "p.csv")]) == 0
    rows = [r.split(",") for r in (tmp_path / "p.csv").read_text().splitlines()]
    hit = next(r for r in rows if r[:2] == ["distribution", "hit_frequency"])
    low = next(r for r in rows if r[:2] == ["distribution", "hit_frequency_99_low"])
    assert hit[4] == "exact+sampled" and float(low[2]) <= float(hit[2])
    assert any(r[:2] == ["sampled_route", "feature:samurai"] for r in rows)
    assert main(["par", str(path), *flags, "--out", str(tmp_path / "p.xlsx")]) == 0
    wb = load_workbook(tmp_path / "p.xlsx")
    summary = {r[0]: r for r in wb["summary"].iter_rows(values_only=True) if r and r[0]}
    assert summary["hit frequency per spin"][3] == "exact+sampled"
    assert summary["hit frequency per spin"][1] == pytest.approx(float(hit[2]))
    # exact values and intervals in columns of their own: the exact column holds no interval text
    assert list(next(wb["summary"].iter_rows(values_only=True)))[:7] == [
        "figure", "value", "exact", "method", "99% low", "99% high", "note"]
    assert not [r for r in summary.values() if isinstance(r[2], str) and ("[" in r[2] or "interval" in r[2])]
    hf = summary["hit frequency per spin"]
    assert hf[4] == pytest.approx(float(low[2])) and hf[4] <= hf[1] <= hf[5] and "exact+sampled" in hf[6]
    dist = [r for r in wb["distribution"].iter_rows(values_only=True) if r and r[0]]
    assert str(dist[0][0]).startswith("the whole round's win distribution [exact+sampled]")
    assert any(r[0] == "feature:samurai" for r in dist)
    # `mathkit export --xlsx` samples the same parts with the same flags: the same distribution sheet
    from mathkit.cli.export import cli as export_cli

    assert export_cli([str(path), "--xlsx", str(tmp_path / "e.xlsx"), *flags]) == 0
    exported = [r for r in load_workbook(tmp_path / "e.xlsx")["distribution"].iter_rows(values_only=True) if r and r[0]]
    assert exported == dist
    assert export_cli([str(path), "--xlsx", str(tmp_path / "n.xlsx"), "--sample-rounds", "0"]) == 0
    none = [r for r in load_workbook(tmp_path / "n.xlsx")["distribution"].iter_rows(values_only=True) if r and r[0]]
    assert "no win distribution" in str(none[0][0])


RARE_TOY = """
name = "rare toy"
paylines = [[1, 1, 1, 1, 1]]
[bet]
lines = 1
coins = [1]
[symbols.W]
kind = "wild"
substitutes = "all"
pays = false
[symbols.J]
[symbols.B]
[reels.base]
rows = 3
strips = ["J B B B", "J B B B", "J B B B", "J B B B", "J B B B"]
weights = [[33, 33, 33, 1], [33, 33, 33, 1], [33, 33, 33, 1], [33, 33, 33, 1], [33, 33, 33, 1]]
[reels.over]
rows = 3
strips = ["J B B B", "J B B B", "J B B B", "J B B B", "J B B B"]
weights = [[7, 7, 6, 1], [7, 7, 6, 1], [7, 7, 6, 1], [7, 7, 6, 1], [7, 7, 6, 1]]
[paytable]
J = { 5 = 2000 }
B = { 5 = 1 }
[overlay_wilds]
probability = "1/2"
reels = "over"
symbol = "W"
[[overlay_wilds.types]]
name = "two"
weight = 1
shape = "cells"
counts = { 2 = 1 }
reels = [1, 2, 3, 4, 5]
"""
"""A rare tail on a sampled route: 2 overlay wilds on 2 of 15 cells (105 placements: sampled, not enumerated).
The middle row (the line) shows J from stop 3 only: 1 in 100 on the base reels, 1 in 21 on the overlay's.
P(win ≥ 1000× bet) = 1/2 · 10⁻¹⁰ (J on the whole line of a plain spin, exact) + 1/2 · P(J on the line's other cells
| the overlay) ≈ 1/2 · 1.3·10⁻⁵ (sampled: about one in four samples of 20,000 holds one) — the exact part alone is
five orders of magnitude too small."""


def test_a_tail_no_sampled_round_reached_is_never_a_point_value() -> None:
    # the overlay type is a forced-variant route; a tail no sampled round of it reached is printed as its interval,
    # whatever its exact part: the point would be the exact 5·10⁻¹¹ alone
    from mathkit.report.par import build_sheet
    from mathkit.report.text import par_to_dict, par_to_text
    from mathkit.sim.sampling import route_sampler

    game = loads_game(RARE_TOY)
    par = build_sheet(game, sampler=route_sampler(game, 20_000, 3))
    m = par.mixed
    assert m is not None and m.method == "exact+sampled"
    bet = m.bet
    text = par_to_text(par)
    d = par_to_dict(par)
    unresolved = 0
    for key, label, e in m.rows():
        if not key.startswith("p_win_ge_") or e.bound:
            continue
        t = int(key.removeprefix("p_win_ge_").removesuffix("x")) * bet
        hits = sum(c for _, _, s in m.routes if s is not None for v, c in zip(s.values, s.counts, strict=True)
                   if v >= t)
        row = next(line for line in text.splitlines() if line.strip().startswith(label))
        k = key.removeprefix("p_win_ge_")
        if hits == 0:  # never the exact part alone: its interval, upper end from the sample's Wilson bound
            unresolved += 1
            assert e.interval and e.point is None and e.value == e.high > e.low > 0
            assert e.low == pytest.approx(0.5e-10)  # the exact part: J on the whole line of a plain spin
            assert d["p_win_ge"][k] is None and d["p_win_ge_interval"][k]["resolved"] is False
            assert " interval " in row and "not resolved to a point value" in row
        elif e.point is not None:  # a point only where the sample resolves it to 10%
            assert (e.high - e.low) / 2 <= 0.10 * e.value
            assert d["p_win_ge"][k] == e.value
    assert unresolved >= 1  # P(win ≥ 1000× bet) at this seed
