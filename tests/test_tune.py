"""Tuning strips and pays to a target RTP (mathkit.tune) and exact sensitivities (mathkit.sensitivity)."""

from __future__ import annotations

import csv
import dataclasses
import math
import time
from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.exact import rtp
from mathkit.game import PayEntry, ScatterPay
from mathkit.io import load_game, loads_game
from mathkit.rtp import component_rtp
from mathkit.sensitivity import PayCell, at_bet, pay_sensitivity, symbol_sensitivity
from mathkit.tune import TOLERANCE, Constraints, _runs, tune, variant_path

BENCH = "data/games/benchmark_5x3.toml"
CLASSIC = "data/games/classic_3reel.toml"
DYNASTY = "data/games/dynasty.toml"

# A 3-reel, 1-line game with 4 stops per reel, each reel "A A B C" (rows = 1, 64 equally likely outcomes),
# paying 3 × A = 4 and 3 × B = 8 credits on a 1-credit bet:
#   RTP = (4 · 2·2·2 + 8 · 1·1·1) / 64 = 40/64 = 5/8.
# Replacing the C of one reel by a B gives that reel "A A B B": 3 × B then has 2·1·1 = 2 outcomes, so
#   RTP = (4 · 8 + 8 · 2) / 64 = 48/64 = 3/4  — exactly, in one move.
# The other one-stop moves give 4·4+8·2 = 32 (A → B), 4·4+8 = 24 (A → C), 4·12+8 = 56 (C → A) sixty-fourths;
# removing the only B would make 3 × B unreachable, which the tuner refuses.
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


def test_tiny_game_tunes_to_the_hand_derived_target() -> None:
    game = loads_game(TINY)
    assert rtp(game) == Fraction(5, 8)
    res = tune(game, Fraction(3, 4))
    assert res.reached
    assert rtp(res.game) == Fraction(3, 4)  # exactly: the error is 0
    assert [m.text.split(": ")[1] for m in res.moves] == ["C → B"]
    assert res.game.declared_rtp == Fraction(3, 4)
    assert [len(s) for s in res.game.reel_set().strips] == [4, 4, 4]


def test_unreachable_target_reports_the_nearest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # every design of the tiny game has an RTP of k/64 with 4-stop strips: 0.70 = 44.8/64 is out of reach
    game = loads_game(TINY)
    res = tune(game, "0.70")
    assert not res.reached
    assert abs(res.rtp - Fraction("0.70")) > TOLERANCE
    assert abs(res.rtp - Fraction("0.70")) < abs(Fraction(5, 8) - Fraction("0.70"))
    assert (res.rtp * 64).denominator == 1
    assert any("not reached" in n for n in res.notes)
    # the declared RTP of a miss is the achieved RTP rounded to 0.0001 pp
    assert res.game.declared_rtp == Fraction(round(res.rtp * 10**6), 10**6)
    src = tmp_path / "tiny.toml"
    src.write_text(TINY)
    assert main(["tune", str(src), "--target-rtp", "70%", "--out", str(tmp_path / "t70.toml")]) == 1
    out = capsys.readouterr().out
    assert "NOT reached" in out and "nearest" in out
    assert load_game(tmp_path / "t70.toml").declared_rtp == res.game.declared_rtp
    # with stops that may be inserted, 0.7 = 7/10 becomes reachable (a 5-stop reel)
    grown = tune(game, "0.70", constraints=Constraints(keep_length=False))
    assert grown.reached and rtp(grown.game) == Fraction(7, 10)


def test_benchmark_to_92_with_constraints() -> None:
    game = load_game(BENCH)
    t0 = time.perf_counter()
    fixed = frozenset({"WILD", "SCATTER"})
    res = tune(game, "0.92", constraints=Constraints(fixed=fixed, max_stack=2))
    assert time.perf_counter() - t0 < 20
    assert res.reached
    assert abs(component_rtp(res.game).rtp() - Fraction("0.92")) <= Fraction(5, 100_000)
    before, after = game.reel_set(), res.game.reel_set()
    for r, (a, b) in enumerate(zip(before.strips, after.strips, strict=True)):
        assert len(a) == len(b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x in fixed or y in fixed:
                assert x == y, (r, i)
        runs_a, runs_b = _runs(a), _runs(b)
        assert all(k <= max(2, runs_a.get(s, 0)) for s, k in runs_b.items())
        for s in set(a):
            assert s in b  # no paying symbol leaves a reel
    # the original object is untouched
    assert game == load_game(BENCH) and rtp(game) == res.rtp_before


def test_scatter_spacing_is_respected() -> None:
    game = load_game(BENCH)
    res = tune(game, "0.99", constraints=Constraints(min_scatter_spacing=6))
    assert res.reached
    for strip in res.game.reel_set().strips:
        marks = [i for i, s in enumerate(strip) if s == "SCATTER"]
        n = len(strip)
        for k, a in enumerate(marks):
            for b in marks[k + 1:]:
                assert min((b - a) % n, (a - b) % n) >= 6


def test_pays_only_keeps_strips_and_order() -> None:
    game = load_game(CLASSIC)
    res = tune(game, "0.90", vary="pays")
    assert res.reached
    assert res.game.reel_sets == game.reel_sets
    for e in res.game.line_pays:
        assert all(min(v) >= 1 for _, v in e.pays)
    top = dict(next(e for e in res.game.line_pays if e.name == "WILD").pays)[3]
    assert list(top) == sorted(top)
    assert abs(rtp(res.game) - Fraction("0.90")) <= TOLERANCE


def test_weighted_reels_and_hit_frequency_target() -> None:
    game = load_game(CLASSIC)
    res = tune(game, "0.90", hit_frequency=0.16, hf_tol=0.005)
    assert res.reached and res.secondary_ok
    assert res.hit_frequency is not None and abs(res.hit_frequency - 0.16) <= 0.005
    from mathkit.exact import spin

    assert float(spin(res.game).win_distribution.hit_frequency()) == pytest.approx(res.hit_frequency)
    # weighted reels keep their strips and total weights
    rs0, rs1 = game.reel_set(), res.game.reel_set()
    assert rs0.strips == rs1.strips
    assert [sum(w) for w in rs0.weights or ()] == [sum(w) for w in rs1.weights or ()]


def test_free_spin_game_uses_the_feature_rtp(tmp_path: Path) -> None:
    game = load_game(DYNASTY)
    res = tune(game, "0.92")
    assert res.reached
    from mathkit.round import rtp_breakdown

    total = sum(rtp_breakdown(res.game).values(), Fraction(0))
    assert abs(total - Fraction("0.92")) <= TOLERANCE
    free = tune(game, "0.94", reels="free")
    assert free.reached and free.game.reel_set("base") == game.reel_set("base")


def test_variants_cli_writes_files_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.toml"
    assert main(["tune", BENCH, "--variants", "0.92,0.94,0.96", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = list(csv.DictReader((tmp_path / "b_variants.csv").open()))
    assert [float(r["target"]) for r in rows] == [0.92, 0.94, 0.96]
    for r, target in zip(rows, ("0.92", "0.94", "0.96"), strict=True):
        path = variant_path(out, Fraction(target))
        assert Path(r["file"]) == path and path.name in printed
        g = load_game(path)
        assert g.declared_rtp == Fraction(target)
        assert abs(rtp(g) - Fraction(target)) <= TOLERANCE
        assert Fraction(r["rtp_exact"]) == rtp(g)
        assert float(r["sd"]) > 0 and 0 < float(r["hit_frequency"]) < 1
        # variants change strips only
        assert g.line_pays == load_game(BENCH).line_pays
    assert "hit freq" in printed


def test_cli_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "g.toml"
    src.write_text(Path(BENCH).read_text())
    assert main(["tune", str(src), "--target-rtp", "0.95", "--out", str(src), "--force"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert src.read_text() == Path(BENCH).read_text()
    out = tmp_path / "o.toml"
    out.write_text("keep me")
    assert main(["tune", str(src), "--target-rtp", "0.95", "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["tune", str(src), "--target-rtp", "0.95", "--out", str(out), "--force", "--json"]) == 0
    assert '"reached": true' in capsys.readouterr().out
    assert load_game(out).declared_rtp == Fraction("0.95")


def test_cli_bad_game_and_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\npaylines = [[0]]\n[symbols.A]\n[reels.base]\nrows = 1\nstrips = ["A B"]\n')
    assert main(["tune", str(bad), "--target-rtp", "0.9", "--out", str(tmp_path / "o.toml")]) == 2
    assert "unknown symbol 'B'" in capsys.readouterr().err
    assert main(["tune", BENCH, "--out", str(tmp_path / "o.toml")]) == 2
    assert main(["tune", BENCH, "--target-rtp", "0.9", "--fixed", "NOPE", "--out", str(tmp_path / "o.toml")]) == 2
    assert "NOPE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tune", BENCH, "--target-rtp", "9", "--out", str(tmp_path / "o.toml")])


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
