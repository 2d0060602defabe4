"""Bet modes ([modes.NAME]): an ante (a reel swap and a cost), a bonus buy (a forced entry with a known law), a per-mode cap.

The toy (tests/data/modes_toy.toml): 3 reels × 1 row, one line, a total bet of 1 credit.
Base strips "A B S" on every reel (each symbol 1/3); ante strips "A S S"; free strips "A B"
(no S: free spins never retrigger).  A A A pays 8; 2 S pay 1 × bet, 3 S pay 5 × bet;
2 S award 1 free spin, 3 S award 4.

One free spin X: A A A with probability 1/8 → 8, else 0: E[X] = 1, E[X²] = 8, Var X = 7.

**The buy** (cost 10; counts 2 : 3, 3 : 1).  A bought round shows exactly k × S and blanks:
* k = 2 (p 3/4): W = 1 + X → E = 2, E[W²] = 1 + 2·1 + 8 = 11;
* k = 3 (p 1/4): W = 5 + X₁ + … + X₄ → E = 9, Var = 4·7 = 28, E[W²] = 81 + 28 = 109.
E[W] = 3/4·2 + 1/4·9 = 15/4, RTP = 15/4 / 10 = 3/8; E[W²] = 3/4·11 + 1/4·109 = 71/2,
Var = 71/2 − 225/16 = 343/16.  Law: W = 1 (3/4·7/8 = 21/32), 9 (3/4·1/8 = 3/32), and 5 + 8j for
j ~ Binomial(4, 1/8) with probability 1/4 · C(4, j)·(1/8)^j·(7/8)^(4−j).
Components: the bought spin's scatter 3/4·1 + 1/4·5 = 2, the free spins 3/4·1 + 1/4·4 = 7/4.

**The capped buy** (cap 20 × bet): only k = 3 with j ≥ 2 passes 20 (21, 29, 37 → 20):
E[(W − 20)⁺] = 1/4 · (1·C(4,2)·49 + 9·C(4,3)·7 + 17·1) / 8⁴ = 1/4 · 563/4096 = 563/16384;
P(cap) = 1/4 · (294 + 28 + 1)/4096 = 323/16384.

**The base game** (cost 1): lines 8/27 (A A A: 1/27); S count ~ Binomial(3, 1/3):
P(2) = 6/27, P(3) = 1/27 → scatter 6/27 + 5/27 = 11/27, free spins 6/27·1 + 1/27·4 = 10/27;
RTP 29/27.  **The ante** (cost 5/4, strips A S S: S with 2/3): lines 8/27, P(2 S) = 12/27,
P(3 S) = 8/27 → scatter 12/27 + 40/27 = 52/27, free spins 12/27 + 32/27 = 44/27; E[W] = 104/27,
RTP = 104/27 / (5/4) = 416/135.
"""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from brute import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathkit.checks.modes import mode_rtps
from mathkit.checks.profiles import PROFILES, _Ctx
from mathkit.checks.run import run_checks
from mathkit.cli import main
from mathkit.errors import GameError
from mathkit.features.modes import mode_game
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.report.modes import mode_figures, mode_table
from mathkit.round import analyse
from mathkit.sim.results import Z99
from mathkit.sim.run import simulate

TOY = Path("tests/data/modes_toy.toml")
F = Fraction


@pytest.fixture(scope="module")
def toy():  # type: ignore[no-untyped-def]
    return load_game(TOY)


def test_buy_by_hand(toy) -> None:  # type: ignore[no-untyped-def]
    m = mode_figures(toy, "buy")
    assert m.cost == 10
    assert m.rtp.exact == F(3, 8)
    assert {k: f.exact for k, f in m.components.items()} == {"bought spin: scatter": F(2, 10), "free spins": F(7, 40)}
    a = analyse(mode_game(toy, "buy"), level="moments")
    assert a.outcome.mean == F(15, 4) and a.outcome.m2 == F(71, 2)
    assert m.sd is not None and m.sd.value == pytest.approx(math.sqrt(343 / 16) / 10, rel=1e-12)
    law = {1: F(21, 32), 9: F(3, 32)}  # the law by hand
    for j in range(5):
        law[5 + 8 * j] = law.get(5 + 8 * j, F(0)) + F(1, 4) * comb(4, j) * F(1, 8) ** j * F(7, 8) ** (4 - j)
    d = m.law
    assert d is not None
    assert dict(zip(d.values.tolist(), d.probs.tolist(), strict=True)) == pytest.approx({k: float(v) for k, v in law.items()})
    assert m.hit_frequency is not None and m.hit_frequency.value == pytest.approx(1.0)
    assert m.max_win is not None and m.max_win.value == pytest.approx(37 / 10)
    assert m.max_win_probability is not None and m.max_win_probability.value == pytest.approx(1 / 16384)
    assert m.feature_frequency is not None and m.feature_frequency.exact == 1


def test_capped_buy_by_hand(toy) -> None:  # type: ignore[no-untyped-def]
    m = mode_figures(toy, "buy_capped")
    assert m.rtp.value == pytest.approx(float((F(15, 4) - F(563, 16384)) / 10), rel=1e-12)
    assert m.cap is not None and m.cap.exact == 20
    assert m.cap_probability is not None and m.cap_probability.value == pytest.approx(323 / 16384, rel=1e-12)
    assert m.max_win is not None and m.max_win.value == pytest.approx(2.0)


def test_ante_and_base_by_hand(toy) -> None:  # type: ignore[no-untyped-def]
    base, ante, *_ = mode_table(toy)
    assert (base.name, base.cost, base.rtp.exact) == ("base", 1, F(29, 27))
    assert (ante.name, ante.cost, ante.rtp.exact) == ("ante", F(5, 4), F(416, 135))
    assert {k: f.exact for k, f in ante.components.items()} == {
        "lines": F(8, 27) * F(4, 5), "scatter": F(52, 27) * F(4, 5), "free spins": F(44, 27) * F(4, 5)}
    assert ante.feature_frequency is not None and ante.feature_frequency.exact == F(20, 27)


# ----------------------------------------------------------------------------- against brute force
SYMS = ("A", "B", "S")


@st.composite
def buy_game(draw: st.DrawFn) -> tuple[str, dict[str, int]]:
    rows = draw(st.integers(1, 2))
    strip = st.lists(st.sampled_from(SYMS), min_size=rows + 1, max_size=5)
    free = st.lists(st.sampled_from(SYMS), min_size=rows + 1, max_size=4)
    base = [draw(strip) for _ in range(3)]
    fr = [draw(free) for _ in range(3)]
    p = {"a": draw(st.integers(1, 20)), "b": draw(st.integers(0, 5)), "s2": draw(st.integers(0, 3)),
         "s3": draw(st.integers(0, 9)), "n2": draw(st.integers(1, 3)), "n3": draw(st.integers(1, 6)),
         "w2": draw(st.integers(0, 5)), "w3": draw(st.integers(1, 5)), "m": draw(st.integers(1, 3)),
         "cost": draw(st.integers(1, 200)), "rows": rows}
    lines = "[[0, 0, 0]]" if rows == 1 else "[[0, 0, 0], [1, 1, 1]]"
    text = f"""
name = "buy property"
paylines = {lines}
[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]
[reels.base]
rows = {rows}
strips = {json.dumps([" ".join(s) for s in base])}
[reels.free]
rows = {rows}
strips = {json.dumps([" ".join(s) for s in fr])}
[paytable]
A = {{ 3 = {p["a"]} }}
B = {{ 2 = {p["b"]} }}
[scatter_pays]
S = {{ 2 = {p["s2"]}, 3 = {p["s3"]} }}
[free_spins]
trigger = "S"
awards = {{ 2 = {p["n2"]}, 3 = {p["n3"]} }}
reels = "free"
multiplier = {p["m"]}
[modes.buy]
cost = {p["cost"]}
buy = {{ feature = "free_spins", counts = {{ 2 = {p["w2"]}, 3 = {p["w3"]} }} }}
"""
    return text, p


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(buy_game())
def test_buy_against_brute_force(case: tuple[str, dict[str, int]]) -> None:
    """The bought round rebuilt as the rule reads: k drawn by weight, the scatter pay of k, then n_k free spins,
    each a full-cycle visit of the free reels by tests/brute.py (line wins × m, scatter wins not multiplied)."""
    text, p = case
    game = loads_game(text)
    bet = game.total_bet()
    fs = brute_force(game, "free")
    pay = {2: p["s2"], 3: p["s3"]}
    x1 = x2 = F(0)
    for (line, counts), w in fs.joint.items():
        s = counts[0]
        x = p["m"] * line + bet * (pay[3] if s >= 3 else pay[2] if s == 2 else 0)
        x1 += F(w * x, fs.cycle)
        x2 += F(w * x * x, fs.cycle)
    mean = m2 = F(0)
    total = p["w2"] + p["w3"]
    for k, n, w in ((2, p["n2"], p["w2"]), (3, p["n3"], p["w3"])):
        s = bet * pay[k]
        mean += F(w, total) * (s + n * x1)
        m2 += F(w, total) * (s * s + 2 * s * n * x1 + n * x2 + n * (n - 1) * x1 * x1)
    a = analyse(mode_game(game, "buy"), level="moments")
    assert a.outcome.mean == mean and a.outcome.m2 == m2
    rtps = {n: r for n, r, _ in mode_rtps(_Ctx(game, PROFILES["gli11"], game.default_reels))}
    assert rtps["buy"] == mean / bet / p["cost"]  # what `mathkit check` compares


# ----------------------------------------------------------------------------- the simulator plays the modes
def test_simulator_agrees_on_every_mode(toy) -> None:  # type: ignore[no-untyped-def]
    """Each mode played literally (the bought spin's forced window, the swapped reels, the cap), its mean win per
    round over the cost against the exact RTP, jointly at 99% (Bonferroni over the three)."""
    z = -__import__("statistics").NormalDist().inv_cdf(0.01 / 3 / 2)
    assert z > Z99
    for name in ("ante", "buy", "buy_capped"):
        m = mode_figures(toy, name)
        res = simulate(mode_game(toy, name), 500_000, seed=11)
        rtp = res.rtp.value / float(m.cost)
        se = res.rtp.se / float(m.cost)
        assert abs(rtp - m.rtp.value) <= z * se, (name, rtp, m.rtp.value, se)


# ----------------------------------------------------------------------------- the file
def test_round_trip(toy) -> None:  # type: ignore[no-untyped-def]
    again = loads_game(dump_game(toy))
    assert again.modes == toy.modes and again == toy


BASE = TOY.read_text().split("[modes.ante]")[0]


@pytest.mark.parametrize(("table", "field", "words"), [
    ("[modes.x]\nreels = { base = \"ante\" }\n", "modes.x.cost", "missing field 'cost'"),
    ("[modes.x]\ncost = 0\n", "modes.x.cost", "not positive"),
    ("[modes.x]\ncost = \"a lot\"\n", "modes.x.cost", "expected a number"),
    ("[modes.x]\ncost = 2\ndeclared_rtp = 96\n", "modes.x.declared_rtp", "not a fraction of the stake"),
    ("[modes.x]\ncost = 2\nreels = { base = \"antee\" }\n", "modes.x.reels.base", "no reel set 'antee'"),
    ("[modes.x]\ncost = 2\nreels = { bas = \"ante\" }\n", "modes.x.reels.bas", "no reel set 'bas'"),
    ("[modes.x]\ncost = 2\ncost_per_line = 1\n", "modes.x.cost_per_line", "unknown field"),
    ("[modes.x]\ncost = 2\ncap = -5\n", "modes.x.cap", "not positive"),
    ("[modes.base]\ncost = 2\n", "modes.base", "names the base game"),
    ("[modes.x]\ncost = 9\nbuy = { feature = \"free\", counts = { 3 = 1 } }\n", "modes.x.buy.feature", "no sequence feature"),
    ("[modes.x]\ncost = 9\nbuy = { feature = \"free_spins\", counts = { 1 = 1 } }\n", "modes.x.buy.counts.1",
     "does not start"),
    ("[modes.x]\ncost = 9\nbuy = { feature = \"free_spins\", counts = { 4 = 1 } }\n", "modes.x.buy.counts.4",
     "window of 3 cells"),
    ("[modes.x]\ncost = 9\nbuy = { feature = \"free_spins\", counts = { 3 = 0 } }\n", "modes.x.buy.counts",
     "every weight is 0"),
    ("[modes.x]\ncost = 9\nbuy = { feature = \"free_spins\" }\n", "modes.x.buy.counts", "trigger count = weight"),
    ("[modes.x]\ncost = 9\nbuy = \"free_spins\"\n", "modes.x.buy", "expected a table"),
])
def test_bad_modes_are_located(table: str, field: str, words: str) -> None:
    with pytest.raises(GameError) as err:
        loads_game(BASE + table, "toy.toml")
    assert err.value.field == field and words in str(err.value), str(err.value)
    assert err.value.fix or "expected a number" in words  # the number reader's own message names the forms it takes
    assert "toy.toml" in str(err.value)


def test_a_buy_refuses_a_modifier() -> None:
    text = (BASE + "[variable_heights]\nheights = { 1 = 1 }\nlines_per_row = 1\n"
            "[modes.x]\ncost = 9\nbuy = { feature = \"free_spins\", counts = { 3 = 1 } }\n")
    with pytest.raises(GameError, match="modifiers") as err:
        loads_game(text.replace("[bet]\nlines = 1", "[bet]\nlines = 1\ntotal = 1"))
    assert err.value.field == "modes.x.buy"


def test_cli(toy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert main(["par", str(TOY), "--mode", "buy", "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "buy" and data["rtp"]["exact"] == "3/8" and data["cost"] == 10
    assert main(["par", str(TOY), "--mode", "nope"]) == 2
    assert "no bet mode 'nope'" in capsys.readouterr().err
    out = tmp_path / "toy.xlsx"
    assert main(["par", str(TOY), "--out", str(out)]) == 0
    from openpyxl import load_workbook

    wb = load_workbook(out)
    assert {"mode ante", "mode buy", "mode buy_capped"} <= set(wb.sheetnames)
    rows = {r[0]: r[1] for r in wb["mode buy"].iter_rows(values_only=True) if r and r[0]}
    assert rows["RTP (win / cost × bet)"] == pytest.approx(0.375)


def test_check_band_and_declared(toy) -> None:  # type: ignore[no-untyped-def]
    (c,) = [c for c in run_checks(toy) if c.name == "modes"]
    assert not c.passed and "spread" in c.detail and "no declared RTP" in c.detail


# ----------------------------------------------------------------------------- the shipped game
SHIPPED = Path("data/games/modes_5x3.toml")


def test_shipped_modes_pass_the_check() -> None:
    game = load_game(SHIPPED)
    (c,) = [c for c in run_checks(game) if c.name == "modes"]
    assert c.passed, c.detail
    figures = {m.name: m for m in mode_table(game)}
    assert list(figures) == ["base", "ante", "buy"]
    rtps = [m.rtp.value for m in figures.values()]
    assert max(rtps) - min(rtps) <= 0.005
    # the ante doubles the feature's frequency, near enough (1 in 149 → 1 in 78); the buy always enters it
    assert 1.8 < figures["ante"].feature_frequency.value / figures["base"].feature_frequency.value < 2.0  # type: ignore[union-attr]
    assert figures["buy"].feature_frequency.value == 1  # type: ignore[union-attr]


def test_simulator_agrees_on_every_shipped_mode() -> None:
    """Every mode of the shipped game played literally (the ante's strips, the bought spin's forced window, the
    buy's cap): its mean win per round over the cost against the exact RTP, jointly at 99% (Bonferroni over three)."""
    game = load_game(SHIPPED)
    z = -__import__("statistics").NormalDist().inv_cdf(0.01 / 3 / 2)
    for name, spins in (("base", 1_000_000), ("ante", 1_000_000), ("buy", 300_000)):
        m = mode_figures(game, name)
        played = game if name == "base" else mode_game(game, name)
        res = simulate(played, spins, seed=5)
        rtp, se = res.rtp.value / float(m.cost), res.rtp.se / float(m.cost)
        assert abs(rtp - m.rtp.value) <= z * se, (name, rtp, m.rtp.value, se)


def test_simulate_cli_plays_a_mode(capsys: pytest.CaptureFixture[str]) -> None:
    from mathkit.cli.simulate import cli

    assert cli([str(TOY), "--mode", "buy", "--spins", "200000", "--seed", "2", "--json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = out["mode"]
    assert m["name"] == "buy" and m["cost"] == 10 and m["ci99"][0] <= 3 / 8 <= m["ci99"][1]
    assert m["rtp"] == pytest.approx(out["rtp"] / 10) and out["agrees_with_exact"]


# ----------------------------------------------------------------------------- joint tuning
def test_buy_weights_by_hand(toy) -> None:  # type: ignore[no-untyped-def]
    """Bought with k = 2 a round returns 2 (RTP 0.2 at cost 10), with k = 3 it returns 9 (0.9): the law's RTP is
    (0.2·w₂ + 0.9·w₃) / (w₂ + w₃), so 0.5 needs w₃ / (w₂ + w₃) = 3/7 — not in quarters: the total is scaled."""
    from mathkit.tuner.modes import tune_buy_weights

    buy, how = tune_buy_weights(toy, "buy", F(1, 2), F(5, 100_000))
    w = dict(buy.counts)
    rtp = (F(2, 10) * w[2] + F(9, 10) * w[3]) / (w[2] + w[3])
    assert abs(rtp - F(1, 2)) <= F(5, 100_000) and sorted(w) == [2, 3] and "moved from 2 to 3" in how
    mode = dataclasses.replace(toy.mode("buy"), buy=buy)
    tuned = dataclasses.replace(toy, modes=tuple(mode if m.name == "buy" else m for m in toy.modes))
    assert mode_figures(tuned, "buy").rtp.exact == rtp  # the engine agrees with the hand formula


def test_tune_modes_jointly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m96.toml"
    assert main(["tune", str(SHIPPED), "--modes", "--target-rtp", "0.96", "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reached"] and [m["mode"] for m in report["modes"]] == ["base", "ante", "buy"]
    assert report["seconds"] < 30
    tuned = load_game(out)
    for m in mode_table(tuned):  # measured again, by the PAR sheet: every mode within ±0.005 pp of 96%
        assert abs(m.rtp.value - 0.96) <= 0.00005, (m.name, m.rtp.value)
        assert m.declared_rtp == F(96, 100)
    (c,) = [c for c in run_checks(tuned) if c.name == "modes"]
    assert c.passed, c.detail
    original = load_game(SHIPPED)
    assert tuned.reel_set("free") == original.reel_set("free")  # the buy moved its entry law, not the free spins
    changed = sum(a != b for x, y in zip(tuned.reel_set("ante").strips, original.reel_set("ante").strips, strict=True)
                  for a, b in zip(x, y, strict=True))
    assert 0 < changed <= 6  # a few stops: the ante keeps its character
    assert main(["tune", str(TOY).replace("modes_toy", "missing"), "--modes", "--out", str(tmp_path / "x.toml")]) == 2


def test_tune_modes_refuses_a_shared_reel_set(toy) -> None:  # type: ignore[no-untyped-def]
    from mathkit.tuner.modes import tune_modes

    shared = loads_game(TOY.read_text().replace('reels = { base = "ante" }', 'reels = { base = "free" }')
                        .replace("[modes.buy_capped]", "[modes.x]").split("[modes.x]")[0]
                        .replace("[modes.ante]\ncost", "[modes.ante]\ndeclared_rtp = 0.9\ncost")
                        .replace("[modes.buy]\ncost", "[modes.buy]\ndeclared_rtp = 0.5\ncost")
                        + "\n", "t.toml")
    res = tune_modes(dataclasses.replace(shared, declared_rtp=F(1)), time_limit=20)
    ante = next(m for m in res.modes if m.name == "ante")
    assert ante.how.startswith("not tuned: its reel set 'free' is played by") and not res.reached
