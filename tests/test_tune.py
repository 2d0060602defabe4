"""Tuning (mathkit.tuner), the [tuning] table (mathkit.model.tuning) and the exact sensitivities (mathkit.report.sensitivity).

Reference values are derived by hand in the comments, or computed by the
brute-force evaluator (tests/brute.py), never read back from the tuner.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from collections import Counter
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import pytest
from brute import brute_force

from mathkit.checks.run import run_checks
from mathkit.cli import main
from mathkit.errors import GameError
from mathkit.exact import rtp
from mathkit.exact.components import component_rtp
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.model.edits import PayCell, at_bet
from mathkit.model.game import Game, PayEntry, ScatterPay
from mathkit.report.sensitivity import pay_sensitivity, symbol_sensitivity
from mathkit.round import analyse, rtp_breakdown
from mathkit.tuner import TOLERANCE, Constraints, Target, tune, tune_variants, variant_path
from mathkit.tuner.changes import diff
from mathkit.tuner.constraints import runs
from mathkit.tuner.place import place

BENCH = "data/games/benchmark_5x3.toml"
CLASSIC = "data/games/classic_3reel.toml"
DYNASTY = "data/games/dynasty.toml"
SMALL = "data/games/dynasty_small.toml"

# 3 reels × 1 row, one line, 4 stops per reel "A A B C" (64 equally likely outcomes); 3 × A pays 4, 3 × B pays 8:
#   RTP = (4 · 2·2·2 + 8 · 1·1·1) / 64 = 40/64 = 5/8.
# A second B on one reel (B 1 → 2, C 1 → 0) gives 3 × B 2·1·1 = 2 outcomes: (4 · 8 + 8 · 2)/64 = 48/64 = 3/4.
# No other single replacement gives 3/4: A → B gives 4·4 + 8·2 = 32, A → C 4·4 + 8 = 24, C → A 4·12 + 8 = 56,
# B → A 4·12 = 48 but removes the reel's only B (3 × B would never pay: refused).  So 3/4 needs one C → B.
# By default no symbol makes a longer run than on the original, where B never touches B: "A A B B" is out,
# and the counts A 2, B 2 fit a 4-stop strip without B B only as "A B A B" / "B A B A", two edits from "A A B C".
TINY = """
name = "tiny"
paylines = [[0, 0, 0]]
[symbols.A]
[symbols.B]
[symbols.C]
[reels.base]
rows = 1
strips = ["A A B C", "A A B C", "A A B C"]
[paytable]
A = { 3 = 4 }
B = { 3 = 8 }
"""

# Reel 1 has 10 stops (A 4, H 1, B 5); reels 2 and 3 "A A H B" are pinned by explicit bounds.  3 × A pays 2, 3 × H 8:
#   RTP = (2 · a·2·2 + 8 · h·1·1) / (10·4·4) = (a + h) / 20, so the original is 5/20 and each B → A or B → H adds 1/20.
# Default bounds on reel 1: A 4 ± 1, H 1 → [1, 2], B 5 ± 1 (B pays nothing, so it may go): one B may go, so the
# reachable RTPs are 4/20 … 6/20, and 7/20 is out of reach with 6/20 the closest.  With B ≥ 3 allowed, 7/20 needs
# both extra stops, A 4 → 5 and H 1 → 2, each at its upper bound.
LIN = """
name = "lin"
paylines = [[0, 0, 0]]
[symbols.A]
[symbols.H]
[symbols.B]
[reels.base]
rows = 1
strips = ["A B A B H B A B A B", "A A H B", "A A H B"]
[paytable]
A = { 3 = 2 }
H = { 3 = 8 }
[tuning.counts.base]
A = [[3, 5], [2, 2], [2, 2]]
H = [[1, 2], [1, 1], [1, 1]]
"""

# 3 reels × 1 row, one line; reel 1 "A B C C", reels 2 and 3 "A B" pinned by explicit bounds (16 outcomes).
# 3 × A pays 4, 3 × B pays 12 (B outranks A):  RTP = (4·a + 12·b)/16 = (a + 3b)/4, the original (1, 1) is 1.
# Reel 1's default bounds: A, B 1 → [1, 2], C 2 → [1, 3].  7/4 needs (a, b) = (1, 2): one C → B ("A B C B").
# The pay order kept (B had no more stops than A, so never more) leaves (1, 1) = 1 and (2, 1) = 5/4 (one C → A,
# "A B A C"; "A B C A" would make a run of two A): 7/4 is out of reach and 5/4 the closest.
ORDER = """
name = "order"
paylines = [[0, 0, 0]]
[symbols.A]
[symbols.B]
[symbols.C]
[reels.base]
rows = 1
strips = ["A B C C", "A B", "A B"]
[paytable]
A = { 3 = 4 }
B = { 3 = 12 }
[tuning.counts.base]
A = [[1, 2], [1, 1], [1, 1]]
B = [[1, 2], [1, 1], [1, 1]]
"""

# 3 reels × 3 rows, 3 lines, no features: small enough for the brute-force evaluator (12³ outcomes).
THREE = """
name = "three"
paylines = [[1, 1, 1], [0, 0, 0], [2, 2, 2]]
[symbols.W]
kind = "wild"
[symbols.H]
[symbols.M]
[symbols.L]
[symbols.X]
[reels.base]
rows = 3
strips = ["H L M X L W M L X L M X", "L M H X L M W L X M L X", "M L X H L M X L W L M X"]
[paytable]
H = { 3 = 40 }
M = { 3 = 8 }
L = { 3 = 3 }
"""


def _checks_pass(game: Game) -> None:
    failed = [(c.name, c.detail) for c in run_checks(game) if not c.passed]
    assert not failed, failed


# --------------------------------------------------------------------------- fewest edits, bounds, out of reach
def test_tiny_game_fewest_edits_under_the_run_rule_and_without_it() -> None:
    game = loads_game(TINY)
    assert rtp(game) == Fraction(5, 8)
    res = tune(game, Fraction(3, 4))
    assert res.reached and rtp(res.game) == Fraction(3, 4)  # exactly: the error is 0
    assert res.best.edits.count == 2  # one C → B, and the B moved off its neighbour (see TINY)
    (edited,) = res.best.edits.reels
    assert dict((s, (a, b)) for s, a, b in edited.counts) == {"B": (1, 2), "C": (1, 0)}
    assert runs(res.game.reel_set().strips[edited.reel])["B"] == 1
    assert res.game.declared_rtp == Fraction(3, 4)
    # with runs of two B allowed, the single C → B is the optimum
    free = tune(game, Fraction(3, 4), Constraints(max_run=(("B", 2),)))
    assert free.reached and free.best.edits.count == 1
    (stop,) = free.best.edits.reels[0].stops
    assert stop[1:] == ("C", "B") and rtp(free.game) == Fraction(3, 4)


def test_lengths_may_change_when_allowed() -> None:
    # every RTP of TINY with 4-stop strips is k/64, so 0.70 = 44.8/64 is out of reach; one more A on a reel
    # ("A A B A C": 5 stops, runs of A still at most two) gives (4·3·2·2 + 8·1)/(5·4·4) = 56/80 = 7/10 exactly
    game = loads_game(TINY)
    assert not tune(game, "0.70").reached
    res = tune(game, "0.70", Constraints(keep_length=False))
    assert res.reached and rtp(res.game) == Fraction(7, 10) and res.best.edits.count == 1
    assert sorted(len(s) for s in res.game.reel_set().strips) == [4, 4, 5]


def test_bounds_active_and_a_target_out_of_reach() -> None:
    game = loads_game(LIN)
    assert rtp(game) == Fraction(5, 20)
    one = tune(game, Fraction(6, 20))
    assert one.reached and rtp(one.game) == Fraction(6, 20) and one.best.edits.count == 1
    # out of reach: 7/20 needs two more paying stops, the bounds allow one (see LIN); the closest is 6/20
    miss = tune(game, Fraction(7, 20))
    assert not miss.reached and rtp(miss.game) == Fraction(6, 20)
    assert any("rtp out of reach" in n and "0.3 " in n for n in miss.notes)
    assert miss.game.declared_rtp == Fraction(6, 20)  # a miss declares what it reached
    # widen B's bounds: reachable, with A and H at their upper bounds
    cons = Constraints.build(game, counts=(*game.tuning.counts, ("base", "B", ((3, 6), (1, 1), (1, 1)))))  # type: ignore[union-attr]
    hit = tune(game, Fraction(7, 20), cons)
    assert hit.reached and rtp(hit.game) == Fraction(7, 20) and hit.best.edits.count == 2
    assert Counter(hit.game.reel_set().strips[0]) == Counter({"A": 5, "H": 2, "B": 3})
    assert hit.game.reel_set().strips[1:] == game.reel_set().strips[1:]


def test_pay_order_kept_by_default_and_switchable() -> None:
    game = loads_game(ORDER)
    assert rtp(game) == 1
    kept = tune(game, Fraction(7, 4))
    assert not kept.reached and rtp(kept.game) == Fraction(5, 4) and kept.best.edits.count == 1
    assert kept.game.reel_set().strips[0] == ("A", "B", "A", "C")
    free = tune(game, Fraction(7, 4), Constraints(keep_order=False))
    assert free.reached and rtp(free.game) == Fraction(7, 4) and free.best.edits.count == 1
    assert free.game.reel_set().strips[0] == ("A", "B", "C", "B")
    src = ORDER.replace("[tuning.counts.base]", "[tuning]\nkeep_order = false\n[tuning.counts.base]")
    assert tune(loads_game(src), Fraction(7, 4)).reached  # the [tuning] switch


def test_cli_reports_out_of_reach(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "lin.toml"
    src.write_text(LIN)
    out = tmp_path / "o.toml"
    assert main(["tune", str(src), "--target-rtp", "0.35", "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "OUT OF REACH" in text and "closest 0.3" in text
    assert rtp(load_game(out)) == Fraction(6, 20)


def test_secondary_targets_checked_by_brute_force() -> None:
    game = loads_game(THREE)
    b0 = brute_force(game)
    hf0 = Fraction(sum(n for w, n in b0.distribution.items() if w > 0), b0.cycle)
    sd0 = math.sqrt(b0.variance()) / b0.total_bet
    targets = [Target.of("rtp", Fraction(9, 10), Fraction(1, 200)), Target.of("hit_frequency", hf0 + Fraction(2, 100)),
               Target.of("sd", Fraction(sd0 * 1.1).limit_denominator(1000))]
    res = tune(game, targets)
    assert tune(game, targets).game == res.game  # a work limit, not a clock: the same tuning every time
    b = brute_force(res.game)
    assert res.best.figures.rtp == b.rtp()
    assert res.best.figures.hit_frequency == Fraction(sum(n for w, n in b.distribution.items() if w > 0), b.cycle)
    assert res.best.figures.sd == pytest.approx(math.sqrt(b.variance()) / b.total_bet, rel=1e-12)
    for t, (name, ok) in zip(targets, res.best.met, strict=False):
        assert name == t.figure and ok == t.contains(res.best.figures.value(t.figure))  # type: ignore[arg-type]
    assert res.reached or res.notes


# --------------------------------------------------------------------------- the command: Dynasty 94 / 92 / 96
# Dynasty's paytable read by hand: each symbol pays at least as much as the next at 3, 4 and 5 (more at one);
# TEN and NINE pay alike.
DYNASTY_ORDER = ("DRAGON", "PHOENIX", "TIGER", "VASE", "FAN", "ACE", "KING", "QUEEN", "JACK", ("TEN", "NINE"))


def _dynasty_kept(original: Game, tuned: Game) -> None:
    """SEAL runs exactly three, EMPEROR stops unchanged, per-reel counts within ±25% (at least ±1), pay order kept."""
    ranks = {s: i for i, tier in enumerate(DYNASTY_ORDER) for s in ((tier,) if isinstance(tier, str) else tier)}
    for name in ("base", "free"):
        a, b = original.reel_set(name), tuned.reel_set(name)
        for r, (sa, sb) in enumerate(zip(a.strips, b.strips, strict=True)):
            assert len(sa) == len(sb)
            assert [i for i, s in enumerate(sa) if s == "EMPEROR"] == [i for i, s in enumerate(sb) if s == "EMPEROR"]
            seal = [i for i, s in enumerate(sb) if s == "SEAL"]
            assert len(seal) == Counter(sa)["SEAL"]
            for i in seal:  # every SEAL sits in a run of exactly three
                k = 0
                while sb[(i - k - 1) % len(sb)] == "SEAL":
                    k += 1
                j = 0
                while sb[(i + j + 1) % len(sb)] == "SEAL":
                    j += 1
                assert k + j + 1 == 3, (name, r, i)
            ca, cb = Counter(sa), Counter(sb)
            for s, n in ca.items():
                w = max(1, n // 4)
                assert n - w <= cb[s] <= n + w, (name, r, s, n, cb[s])
            assert set(cb) <= set(ca)
            for a, ra in ranks.items():  # a symbol that had no more stops than a lower-paying one still has no more
                for b, rb in ranks.items():
                    if ra < rb and 0 < ca[a] <= ca[b]:
                        assert cb[a] <= cb[b], (name, r, a, b, cb[a], cb[b])


def test_dynasty_done_when(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = load_game(DYNASTY)
    p0 = analyse(original, level="mean")
    f0 = 1 - p0.base.branches[()].p
    out = tmp_path / "d94.toml"
    status = main(["tune", DYNASTY, "--target-rtp", "0.94", "--hit-frequency", "0.30", "--sd", "6.5",
                   "--out", str(out)])
    text = capsys.readouterr().out
    tuned = load_game(out)
    total = sum(rtp_breakdown(tuned).values(), Fraction(0))
    assert abs(total - Fraction("0.94")) <= TOLERANCE
    _dynasty_kept(original, tuned)
    a = analyse(tuned, level="moments")
    f1 = 1 - a.base.branches[()].p
    assert abs(1 / f1 - 1 / f0) <= Fraction(5, 100) / f0  # 1 in N within ±5%
    sd = math.sqrt(a.outcome.m2 - a.outcome.mean**2) / a.total_bet
    hf = a.engine.spin_maths(a.engine.base_model()).win_distribution.hit_frequency()
    ok = 6.5 * 0.95 <= sd <= 6.5 * 1.05 and abs(hf - Fraction(3, 10)) <= Fraction(5, 1000)
    assert (status == 0) == ok
    if not ok:
        assert "OUT OF REACH" in text and "closest" in text
    _checks_pass(tuned)
    for target in ("0.92", "0.96"):
        path = tmp_path / f"d{target[2:]}.toml"
        assert main(["tune", DYNASTY, "--target-rtp", target, "--out", str(path)]) == 0
        g = load_game(path)
        assert abs(sum(rtp_breakdown(g).values(), Fraction(0)) - Fraction(target)) <= TOLERANCE
        assert g.declared_rtp == Fraction(target)
        _dynasty_kept(original, g)
        _checks_pass(g)
    capsys.readouterr()


# --------------------------------------------------------------------------- constraints
def test_wild_stacks_stay_runs_of_three_when_wilds_may_move() -> None:
    # the benchmark's WILD lies in one run of three on each of reels 2-4; ask for a second run on reel 2 (it lifts
    # the RTP from 96.3% to about 118%: 115% is within reach of the other symbols' ±25%, with the file's σ and
    # hit-frequency bands, once the pay order's frequencies may change)
    game = load_game(BENCH)
    wild = ("base", "WILD", ((0, 0), (6, 6), (3, 3), (3, 3), (0, 0)))
    res = tune(game, "1.15", Constraints(fixed=frozenset({"SCATTER"}), counts=(wild,), keep_order=False))
    assert res.reached
    strips = res.game.reel_set().strips
    assert [Counter(s)["WILD"] for s in strips] == [0, 6, 3, 3, 0]
    for strip in strips:
        n = len(strip)
        starts = [i for i in range(n) if strip[i] == "WILD" and strip[i - 1] != "WILD"]
        for i in starts:  # every run of WILD is exactly three long
            assert [strip[(i + d) % n] for d in range(3)] == ["WILD"] * 3 and strip[(i + 3) % n] != "WILD"
        assert Counter(strip)["WILD"] == 3 * len(starts)
    assert [s.index("SCATTER") for s in strips] == [s.index("SCATTER") for s in game.reel_set().strips]


def test_hierarchy_no_adjacent_and_movable_scatters() -> None:
    game = load_game(BENCH)
    tiers = (("H1",), ("H2",), ("M1", "M2", "M3"), ("L1", "L2", "L3", "L4", "L5"))
    cons = Constraints(fixed=frozenset({"WILD"}), hierarchy=tiers, no_adjacent=frozenset({"H1", "H2"}),
                       scatter_spacing=6)
    res = tune(game, "0.93", cons)
    assert res.reached
    for r, strip in enumerate(res.game.reel_set().strips):
        c = Counter(strip)
        for upper, lower in pairwise(tiers):
            assert max(c[a] for a in upper) <= min(c[b] for b in lower), (r, upper, lower)
        n = len(strip)
        assert all(not (strip[i] == strip[(i + 1) % n] and strip[i] in ("H1", "H2")) for i in range(n))
        marks = [i for i, s in enumerate(strip) if s == "SCATTER"]
        assert all(min((b - a) % n, (a - b) % n) >= 6 for k, a in enumerate(marks) for b in marks[k + 1:])


def test_hierarchy_that_cannot_hold_is_an_error() -> None:
    game = load_game(BENCH)
    with pytest.raises(Exception, match="hierarchy"):
        tune(game, "0.93", Constraints(hierarchy=(("WILD",), ("SCATTER",))))


def test_weighted_reels_keep_totals_and_fixed_weights() -> None:
    game = load_game(CLASSIC)
    res = tune(game, "0.90")
    assert res.reached and abs(rtp(res.game) - Fraction("0.90")) <= TOLERANCE
    rs0, rs1 = game.reel_set(), res.game.reel_set()
    assert rs0.strips == rs1.strips and rs0.weights is not None and rs1.weights is not None
    for s0, w0, w1 in zip(rs0.strips, rs0.weights, rs1.weights, strict=True):
        assert sum(w0) == sum(w1)
        assert all(a == b for s, a, b in zip(s0, w0, w1, strict=True) if s == "WILD")
        assert all(b >= 1 for b in w1)
    # the shipped game weights its WILD's neighbours 3 to 1 (near_miss fails on it, by design of the classic
    # strip); the tuner, moving only the other weights, must not make any other check fail
    before = {c.name for c in run_checks(game) if not c.passed}
    assert before == {"near_miss"}
    after = {c.name for c in run_checks(res.game) if not c.passed}
    assert after <= before, after - before


def test_pays_stay_whole_monotone_and_ordered() -> None:
    game = load_game(CLASSIC)
    res = tune(game, "0.90", vary="pays")
    assert res.reached and abs(rtp(res.game) - Fraction("0.90")) <= TOLERANCE
    assert res.game.reel_sets == game.reel_sets
    for before, after in zip(game.line_pays, res.game.line_pays, strict=True):
        counts = sorted(after.pays)
        for (_, v1), (_, v2) in pairwise(counts):
            assert all(a <= b for a, b in zip(v1, v2, strict=False))
        assert all(min(v) >= 1 for _, v in after.pays)
        assert before.name == after.name
    three = {e.name: dict(e.pays)[3][0] for e in res.game.line_pays if 3 in dict(e.pays)}
    three0 = {e.name: dict(e.pays)[3][0] for e in game.line_pays if 3 in dict(e.pays)}
    for a, pay_a in three.items():
        for b, pay_b in three.items():
            if three0[a] > three0[b]:
                assert pay_a >= pay_b, (a, b)
    assert all(p.text().startswith("pay ") for p in res.best.edits.pays)


def test_free_spin_set_tuned_alone() -> None:
    game = load_game(DYNASTY)
    res = tune(game, "0.94", reels="free")
    assert res.reached and res.game.reel_set("base") == game.reel_set("base")
    assert abs(sum(rtp_breakdown(res.game).values(), Fraction(0)) - Fraction("0.94")) <= TOLERANCE


def test_candidates_are_distinct_and_span_sigma() -> None:
    # one stop moves this game's RTP by whole points (12 stops a reel): aim at 90% ± 0.5 pp
    game = loads_game(THREE)
    res = tune(game, [Target.of("rtp", Fraction(9, 10), Fraction(1, 200))], candidates=3)
    sds = [c.figures.sd for c in res.candidates]
    assert len(res.candidates) >= 2 and sds == sorted(sds)
    assert len({c.game.reel_set().strips for c in res.candidates}) == len(res.candidates)
    assert all(c.reached and rtp(c.game) == brute_force(c.game).rtp() for c in res.candidates)
    assert all(abs(rtp(c.game) - Fraction(9, 10)) <= Fraction(1, 200) for c in res.candidates)
    assert res.best.edits.count == min(c.edits.count for c in res.candidates)


# --------------------------------------------------------------------------- variants
def test_variants_chain_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.toml"  # the benchmark plays at 96.29%: 96 is tuned from the original, 94 from 96, 92 from 94
    assert main(["tune", BENCH, "--variants", "0.92,0.94,0.96", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader((tmp_path / "d_variants.csv").open()))
    assert [float(r["target"]) for r in rows] == [0.92, 0.94, 0.96]
    games = {}
    for r, target in zip(rows, ("0.92", "0.94", "0.96"), strict=True):
        path = variant_path(out, Fraction(target))
        assert Path(r["file"]) == path and path.name in printed
        g = load_game(path)
        games[target] = g
        assert g.declared_rtp == Fraction(target)
        assert abs(sum(rtp_breakdown(g).values(), Fraction(0)) - Fraction(target)) <= TOLERANCE
        assert Fraction(r["rtp_exact"]) == sum(rtp_breakdown(g).values(), Fraction(0))
        _checks_pass(g)
    # 92 is tuned from 94: their difference is the 92 file's own edits
    assert int(rows[0]["edits_from_neighbour"]) == diff(games["0.94"], games["0.92"]).count
    assert rows[0]["from"] == str(variant_path(out, Fraction("0.94")))
    orig = load_game(BENCH)
    assert rows[1]["from"] == str(variant_path(out, Fraction("0.96"))) and rows[2]["from"] == "original"
    assert int(rows[2]["edits_from_original"]) == diff(orig, games["0.96"]).count
    assert diff(orig, games["0.92"]).count <= diff(orig, games["0.94"]).count + diff(games["0.94"], games["0.92"]).count
    (chained,) = tune_variants(orig, ["0.95"])
    assert chained.start is orig and chained.reached


# --------------------------------------------------------------------------- the [tuning] table
TUNING = """
[targets]
rtp = 0.93
sd = [4.0, 5.0]
hit_frequency = [0.3, 0.4]

[tuning]
reels = ["base"]
vary = "strips"
fixed = ["WILD", "SCATTER"]
count_tolerance = 0.2
hierarchy = ["H1", "H2", ["M1", "M2"]]
no_adjacent = ["H1"]
max_run = { L1 = 2 }
keep_length = true
[tuning.counts.base]
H1 = [1, 3]
"""


def test_tuning_table_round_trip_and_defaults() -> None:
    text = Path(BENCH).read_text()
    text = text[: text.index("[targets]")] + TUNING  # the file's own [targets] is its last table: ours replaces it
    game = loads_game(text)
    t = game.tuning
    assert t is not None and t.fixed == ("WILD", "SCATTER") and t.count_tolerance == Fraction(1, 5)
    assert t.hierarchy == (("H1",), ("H2",), ("M1", "M2")) and t.counts == (("base", "H1", ((1, 3),)),)
    assert loads_game(dump_game(game)) == game  # written back exactly as declared
    cons = Constraints.build(game)
    assert cons.fixed == frozenset({"WILD", "SCATTER"}) and cons.no_adjacent == frozenset({"H1"})
    assert cons.keep_stacks and cons.feature_frequency_tolerance == Fraction(1, 20)  # not declared: defaults
    from mathkit.tuner.targets import TargetSet

    # the targets come from [targets]: the RTP (default tolerance ±0.005 pp), the σ and hit-frequency bands
    targets = TargetSet.build(game)
    assert targets.rtp.value == Fraction(93, 100) and targets.rtp.high - targets.rtp.low == 2 * TOLERANCE
    assert (targets["sd"].low, targets["sd"].high) == (4, 5)
    assert (targets["hit_frequency"].low, targets["hit_frequency"].high) == (Fraction(3, 10), Fraction(2, 5))
    # a caller's target replaces the file's
    assert TargetSet.build(game, [Target.of("rtp", Fraction("0.95"))]).rtp.value == Fraction("0.95")


def test_the_documented_tuning_table_parses() -> None:
    doc = Path("docs/game-format.md").read_text()
    block = doc.split("## `[tuning]`")[1].split("```toml")[1].split("```")[0]
    game = loads_game(Path(DYNASTY).read_text() + block)
    t = game.tuning
    assert t is not None and t.stacks == (("SEAL", 3),) and t.max_run == (("NINE", 2),)
    assert t.counts == (("base", "DRAGON", ((1, 3),)), ("base", "TIGER", ((2, 4), (2, 4), (2, 5), (2, 5), (1, 3))))
    assert loads_game(dump_game(game)) == game


@pytest.mark.parametrize(("snippet", "field"), [
    ("[tuning]\nfixd = []\n", "tuning.fixd"),
    ("[tuning]\nfixed = [\"NOPE\"]\n", "tuning.fixed[0]"),
    ("[tuning]\nvary = \"reels\"\n", "tuning.vary"),
    ("[tuning]\ntargets = 1\n", "tuning.targets"),
    ("[tuning.counts.base]\nH1 = [3, 1]\n", "tuning.counts.base.H1"),
    ("[tuning.counts.base]\nH1 = [[1, 2], [1, 2]]\n", "tuning.counts.base.H1"),
    ("[tuning]\ncount_tolerance = 2\n", "tuning.count_tolerance"),
])
def test_tuning_table_errors_name_the_field(snippet: str, field: str) -> None:
    with pytest.raises(GameError) as err:
        loads_game(Path(BENCH).read_text() + snippet)
    assert err.value.field == field, str(err.value)


# --------------------------------------------------------------------------- placing counts on a strip
def test_place_fewest_edits_stacks_and_spacing() -> None:
    # one A must become a C; only the first A can without two Cs touching (hand check: A at 2 or 4 sits by the C at 3)
    assert place(("A", "B", "A", "C", "A", "B"), {"A": 2, "B": 2, "C": 2},
                 max_run={"A": 1, "B": 1, "C": 1}) == ("C", "B", "A", "C", "A", "B")
    # a stack of W (shape 3) added to 8 stops: a run of exactly three, three edits, fixed S untouched
    strip = ("S", "A", "B", "A", "B", "A", "B", "A")
    out = place(strip, {"S": 1, "W": 3, "A": 2, "B": 2}, fixed=frozenset({"S"}), stack={"W": 3})
    assert out[0] == "S" and sum(a != b for a, b in zip(strip, out, strict=True)) == 3
    i = out.index("W")
    assert out[i:i + 3] == ("W", "W", "W") and Counter(out)["W"] == 3
    # two movable scatters at least 3 apart on 6 stops
    out = place(("A",) * 6, {"A": 4, "S": 2}, scatters=frozenset({"S"}), spacing=3)
    marks = [k for k, s in enumerate(out) if s == "S"]
    assert len(marks) == 2 and min((marks[1] - marks[0]) % 6, (marks[0] - marks[1]) % 6) >= 3


def test_cli_never_overwrites_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "g.toml"
    src.write_text(TINY)
    assert main(["tune", str(src), "--target-rtp", "0.75", "--out", str(src), "--force"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert src.read_text() == TINY
    out = tmp_path / "o.toml"
    out.write_text("keep me")
    assert main(["tune", str(src), "--target-rtp", "0.75", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["tune", str(src), "--target-rtp", "3/4", "--out", str(out), "--force", "--json"]) == 0
    assert '"reached": true' in capsys.readouterr().out
    assert load_game(out).declared_rtp == Fraction(3, 4)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\npaylines = [[0]]\n[symbols.A]\n[reels.base]\nrows = 1\nstrips = ["A B"]\n')
    assert main(["tune", str(bad), "--target-rtp", "0.9", "--out", str(tmp_path / "b.toml")]) == 2
    assert "unknown symbol 'B'" in capsys.readouterr().err
    assert main(["tune", str(src), "--target-rtp", "0.9"]) == 2
    assert main(["tune", str(src), "--target-rtp", "0.9", "--fixed", "NOPE", "--out", str(tmp_path / "n.toml")]) == 2
    assert "NOPE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # argparse's usage error, when the line is parsed
        main(["tune", str(src), "--target-rtp", "0.9", "--sd", "x", "--out", str(tmp_path / "n.toml")])
    assert refused.value.code == 2 and "argument --sd: not a number: 'x'" in capsys.readouterr().err
    assert main(["tune", str(src), "--target-rtp", "0.75", "--feature-frequency", "100",
                 "--out", str(tmp_path / "n.toml")]) == 2
    assert "cannot be measured: the game has no feature" in capsys.readouterr().err


# --------------------------------------------------------------------------- sensitivities
def test_symbol_sensitivity_equals_independent_finite_differences() -> None:
    game = load_game(BENCH)
    sens = symbol_sensitivity(game)
    base = component_rtp(game).rtp()
    rs = game.reel_set()
    for r in (0, 2):
        strip = rs.strips[r]
        n = len(strip)
        scat = strip.index("SCATTER")  # the reel's only scatter
        at = (scat + 1 + (n - 1) // 2) % n  # the documented position: middle of the longest scatter-free run
        for k, s in enumerate(game.symbol_names):
            d = sens.delta[r][k]
            if s == "WILD" and r == 0:
                assert d is None  # the wild may not appear on reel 1
                continue
            strips = list(rs.strips)
            strips[r] = (*strip[:at], s, *strip[at:])
            g2 = dataclasses.replace(game, reel_sets=(dataclasses.replace(rs, strips=tuple(strips)),))
            assert d == component_rtp(g2).rtp() - base, (r, s)
    # on unweighted strips the line RTP is linear in a reel's counts: replacing s by t moves it by (L+1)/L·(Δt − Δs)
    r, s, t = 2, "L3", "H1"
    strip = rs.strips[r]
    i = strip.index(s)
    strips = list(rs.strips)
    strips[r] = (*strip[:i], t, *strip[i + 1:])
    g3 = dataclasses.replace(game, reel_sets=(dataclasses.replace(rs, strips=tuple(strips)),))
    n = len(strip)
    names = game.symbol_names
    dt, ds = sens.delta[r][names.index(t)], sens.delta[r][names.index(s)]
    assert dt is not None and ds is not None
    assert component_rtp(g3).rtp() - base == Fraction(n + 1, n) * (dt - ds)
    heat = sens.heatmap()
    z = heat["z"]
    assert isinstance(z, list) and len(z) == 5 and len(z[0]) == len(names)
    assert z[0][names.index("WILD")] is None and math.isnan(sens.as_array()[0, names.index("WILD")])
    assert z[1][names.index("WILD")] == pytest.approx(100 * float(sens.delta[1][names.index("WILD")] or 0))
    rows, cols, values = sens.plot_args()  # the order mathkit.plots.sensitivity_heatmap takes
    assert rows == list(names) and cols[0] == "reel 1" and values[names.index("H1")][2] == sens.delta[2][names.index("H1")]


def test_symbol_sensitivity_on_weighted_reels() -> None:
    game = load_game(CLASSIC)
    sens = symbol_sensitivity(game)
    base = component_rtp(game).rtp()
    rs = game.reel_set()
    assert rs.weights is not None
    for r in range(3):
        for k, s in enumerate(game.symbol_names):
            i = rs.strips[r].index(s)  # one more unit of weight on the first stop showing s
            ws = [list(w) for w in rs.weights]
            ws[r][i] += 1
            g2 = dataclasses.replace(game, reel_sets=(dataclasses.replace(rs, weights=tuple(map(tuple, ws))),))
            assert sens.delta[r][k] == component_rtp(g2).rtp() - base


def test_pay_sensitivity_equals_independent_finite_differences() -> None:
    game = load_game(CLASSIC)
    rows = pay_sensitivity(game)
    base = component_rtp(game).rtp()
    for row in rows:
        lp = []
        for e in game.line_pays:
            if e.name != row.cell.entry:
                lp.append(e)
                continue
            # one more credit per coin: a per-coin list gets coins[i] more at option i
            pays = tuple((k, tuple(v + c for v, c in zip(vals, game.bet.coins, strict=False)) if len(vals) > 1
                          else (vals[0] + 1,)) if k == row.cell.count else (k, vals) for k, vals in e.pays)
            lp.append(PayEntry(e.name, e.symbols, pays))
        g2 = dataclasses.replace(game, line_pays=tuple(lp))
        assert row.delta == component_rtp(g2).rtp() - base, row.cell
    bench = load_game(BENCH)
    brows = pay_sensitivity(bench)
    for row in brows:
        # no wild on reel 1: every line has one candidate combination, so the marginal figure is exact
        assert row.delta == row.marginal, row.cell
    sc = next(r for r in brows if r.cell == PayCell("scatter", "SCATTER", 3))
    sps = (ScatterPay("SCATTER", tuple((k, v + (k == 3)) for k, v in bench.scatter_pays[0].pays)),)
    assert sc.delta == component_rtp(dataclasses.replace(bench, scatter_pays=sps)).rtp() - component_rtp(bench).rtp()
    assert sc.delta == Fraction(sc.hits, bench.reel_set().cycle)


def test_sensitivity_cli(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["tune", CLASSIC, "--sensitivity"]) == 0
    text = capsys.readouterr().out
    assert "reel 3" in text and "3 × WILD" in text
    assert main(["tune", BENCH, "--sensitivity", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["heatmap"]["z"][0][0] is None and len(d["symbols"]) == 5 * 12 and len(d["pays"]) == 36


def test_at_bet_gives_the_rtp_at_every_coin_option() -> None:
    game = load_game(CLASSIC)
    for c in game.bet.coins:
        assert rtp(at_bet(game, coins=c)) == component_rtp(game, coins=c).rtp()
