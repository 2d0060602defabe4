"""The simulator's generic driver on the feature blocks, against figures computed here independently.

Each small game below is valued in this file by brute force: every stop combination of a
reel set is visited, the window built from the strips (held cells forced where the rules
hold them) and paid with :mod:`brute`'s line rule, which shares nothing with mathkit's
tables; the features' means follow from hand formulas written beside them.  The simulation
must agree with every figure within its 99% interval, and replaying its documented random
streams in plain Python must give the same win for every play.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction as F
from itertools import product

import numpy as np
import pytest
from brute import _Rules

from mathkit.gamefile.io import loads_game
from mathkit.model.game import Game
from mathkit.sim import BLOCK, simulate
from mathkit.sim.cluster import block_streams
from mathkit.sim.kernels import play_block
from mathkit.sim.rng import generator_state
from mathkit.sim.spec import compile_game

Window = list[list[str]]

# Three scatter types, each starting its own free spins (alpha on SA, beta on SB, gamma on SC).
THREE = """
name = "Three scatters"
paylines = [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2], [2, 1, 0]]

[bet]
lines = 5

[symbols.WILD]
kind = "wild"
[symbols.SA]
kind = "scatter"
[symbols.SB]
kind = "scatter"
[symbols.SC]
kind = "scatter"
[symbols.H]
[symbols.M]
[symbols.L]

[reels.base]
rows = 3
strips = ["SA H L M SB L WILD M SC L", "L SB M H SA L M SC WILD L", "M L SC H L SA M WILD SB L"]

[reels.fa]
rows = 3
strips = ["SA H M L WILD L M", "H SA L M L WILD M", "L M SA H WILD L M"]

[reels.fb]
rows = 3
strips = ["H M L WILD L SB M", "SB H M L WILD L", "M L H SB WILD L M"]

[paytable]
H = { 3 = 20 }
M = { 3 = 8 }
L = { 2 = 1, 3 = 3 }

[scatter_pays]
SA = { 2 = 1, 3 = 5 }
SB = { 3 = 2 }

[[free_spins]]
name = "alpha"
trigger = "SA"
awards = { 2 = 3, 3 = 6 }
retriggers = { 2 = 1 }
reels = "fa"
multiplier = 2

[[free_spins]]
name = "beta"
trigger = "SB"
awards = { 2 = 2 }
reels = "fb"

[[free_spins]]
name = "gamma"
trigger = "SC"
awards = { 2 = 2 }
retriggers = { 3 = 2 }
reels = "base"
multiplier = 3
multiply_scatter = true
"""
# (trigger, awards, retriggers, reel set, multiplier, scatter multiplier), as the file says
FEATURES = {"alpha": ("SA", {2: 3, 3: 6}, {2: 1}, "fa", 2, 1), "beta": ("SB", {2: 2}, {}, "fb", 1, 1),
            "gamma": ("SC", {2: 2}, {3: 2}, "base", 3, 3)}

# Exactly two S are held; the other cells re-spin once.
HOLD = """
name = "Hold two"
paylines = [[1, 1, 1], [0, 0, 0], [2, 2, 2]]

[bet]
lines = 3

[symbols.WILD]
kind = "wild"
[symbols.S]
kind = "scatter"
[symbols.H]
[symbols.L]

[reels.base]
rows = 3
strips = ["S H L WILD L H L", "L S H L WILD H L", "H L S L H WILD L"]

[paytable]
H = { 3 = 10 }
L = { 3 = 2 }

[scatter_pays]
S = { 2 = 1, 3 = 10 }

[hold_respin]
symbol = "S"
count = 2
reels = "base"
"""

# Heights 2, 3, 4 drawn 1 : 2 : 1; 2 lines per row; the total bet is fixed at 8.
HEIGHTS = """
name = "Heights"
paylines = [[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [2, 2, 2], [1, 2, 1], [3, 3, 3], [2, 3, 2]]

[bet]
lines = 8
total = 8

[symbols.WILD]
kind = "wild"
[symbols.S]
kind = "scatter"
[symbols.H]
[symbols.M]
[symbols.L]

[reels.base]
rows = 4
strips = ["H M L S L M WILD L", "M L H L S WILD M L", "L WILD M H L S M L"]

[paytable]
H = { 3 = 12 }
M = { 3 = 6 }
L = { 3 = 2 }

[scatter_pays]
S = { 3 = 2 }

[variable_heights]
heights = { 2 = 1, 3 = 2, 4 = 1 }
lines_per_row = 2
"""


# ----------------------------------------------------------------------------- brute force
def windows(game: Game, reels: str, rows: int | None = None,
            held: tuple[tuple[int, int], ...] = (), symbol: str = "") -> Iterator[tuple[int, Window]]:
    """Every stop combination of ``reels`` (``rows`` high) as ``(weight, window)``; ``held`` cells show ``symbol``."""
    rs = game.reel_set(reels)
    columns = []
    for r, strip in enumerate(rs.strips):
        h = rs.rows[r] if rows is None else rows
        columns.append([[strip[(i + k) % len(strip)] for k in range(h)] for i in range(len(strip))])
    for combo in product(*columns):
        window = [list(c) for c in combo]
        for r, row in held:
            window[r][row] = symbol
        yield 1, window


def pays(game: Game, window: Window, lines: int | None = None) -> tuple[int, int]:
    """``(line credits, scatter credits)`` of a window: brute's line rule; scatters × the total bet."""
    rules = _Rules(game, game.bet.coins[0])
    n = game.bet.lines if lines is None else lines
    line = sum(rules.line(tuple(window[r][row] for r, row in enumerate(p)))[0] for p in game.paylines[:n])
    bet = game.total_bet()
    scatter = sum(sp.pay(sum(col.count(sp.symbol) for col in window)) * bet for sp in game.scatter_pays)
    return line, scatter


def count(window: Window, symbol: str) -> int:
    return sum(col.count(symbol) for col in window)


def at_most(table: dict[int, int], n: int) -> int:
    keys = [k for k in table if k <= n]
    return table[max(keys)] if keys else 0


def mean(items: list[tuple[int, F | int]]) -> F:
    total = sum(w for w, _ in items)
    return F(sum(w * x for w, x in items), total)


# ----------------------------------------------------------------------------- the figures
def three_scatter_figures(game: Game) -> dict[str, float]:
    """RTP by component, trigger probabilities.

    A free-spin feature awarded ``n`` spins, each adding ``a`` spins with ``E[a] = m < 1``, plays
    ``E[N] = n / (1 − m)`` spins (no limit), and by Wald's identity pays ``E[N] · E[X]``, ``X``
    one spin's win with its multipliers: the component is ``E[award] · E[X] / (1 − m)`` per bet.
    Several features from one base spin are played one after another: their means add.
    """
    bet = game.total_bet()
    base = list(windows(game, "base"))
    line = mean([(w, pays(game, x)[0]) for w, x in base])
    scatter = mean([(w, pays(game, x)[1]) for w, x in base])
    out = {"lines": float(line / bet), "scatter": float(scatter / bet)}
    start_any = mean([(w, int(any(at_most(f[1], count(x, f[0])) for f in FEATURES.values()))) for w, x in base])
    total = line + scatter
    for name, (sym, awards, more, reels, lm, sm) in FEATURES.items():
        award = mean([(w, at_most(awards, count(x, sym))) for w, x in base])
        free = list(windows(game, reels))
        spin = mean([(w, pays(game, x)[0] * lm + pays(game, x)[1] * sm) for w, x in free])
        m = mean([(w, at_most(more, count(x, sym))) for w, x in free])
        feature = award * spin / (1 - m)
        out[f"free spins: {name}"] = float(feature / bet)
        out[f"p_enter:{name}"] = float(mean([(w, int(at_most(awards, count(x, sym)) > 0)) for w, x in base]))
        total += feature
    out["rtp"] = float(total / bet)
    out["trigger_probability"] = float(start_any)
    return out


def hold_distribution(game: Game) -> tuple[dict[tuple[int, int, int], F], F]:
    """Exact law of (base line + scatter, re-spin win, whether it re-spun) of a round, and P(re-spin).

    Exactly two S in the base window are held; the re-spin is a fresh spin with those two
    cells showing S, paying its lines and scatters (the held S count).
    """
    base = list(windows(game, "base"))
    cycle = sum(w for w, _ in base)
    respin: dict[tuple[tuple[int, int], ...], dict[int, int]] = {}
    law: dict[tuple[int, int, int], F] = defaultdict(F)
    for w, x in base:
        win = sum(pays(game, x))
        cells = tuple((r, row) for r, col in enumerate(x) for row, s in enumerate(col) if s == "S")
        if len(cells) != 2:
            law[(win, 0, 0)] += F(w, cycle)
            continue
        if cells not in respin:
            respin[cells] = defaultdict(int)
            for w2, y in windows(game, "base", held=cells, symbol="S"):
                respin[cells][sum(pays(game, y))] += w2
        n = sum(respin[cells].values())
        for v, w2 in respin[cells].items():
            law[(win, v, 1)] += F(w, cycle) * F(w2, n)
    return dict(law), sum((p for (_, _, r), p in law.items() if r), F(0))


def hold_figures(game: Game, cap: int | None = None) -> dict[str, float]:
    """RTP by component and hit frequency of the hold game; with a ``cap`` (credits) on the round, its cost
    ``E[min(Y, c)] − E[Y]`` (a component ≤ 0) and ``P(Y ≥ c)``."""
    bet = game.total_bet()
    law, p_respin = hold_distribution(game)
    base = list(windows(game, "base"))
    out = {"lines": float(mean([(w, pays(game, x)[0]) for w, x in base]) / bet),
           "scatter": float(mean([(w, pays(game, x)[1]) for w, x in base]) / bet),
           "hold and re-spin": float(sum(p * v for (_, v, _), p in law.items()) / bet),
           "p_enter:hold_respin": float(p_respin), "trigger_probability": float(p_respin)}
    rtp = sum(p * (b + v) for (b, v, _), p in law.items())
    if cap is not None:
        cost = sum(p * (min(b + v, cap) - (b + v)) for (b, v, _), p in law.items())
        out["cap"] = float(cost / bet)
        out["p_cap"] = float(sum(p for (b, v, _), p in law.items() if b + v >= cap))
        rtp += cost
    out["rtp"] = float(rtp / bet)
    out["hit_frequency"] = float(sum(p for (b, v, _), p in law.items() if min(b + v, cap or b + v) > 0))
    return out


def heights_figures(game: Game) -> dict[str, float]:
    """RTP by component: ``Σ_h p_h · E_h[win]`` with ``h`` rows and the first ``2h`` lines; the bet stays 8."""
    p = {2: F(1, 4), 3: F(2, 4), 4: F(1, 4)}
    line = scatter = F(0)
    for h, q in p.items():
        spins = list(windows(game, "base", rows=h))
        line += q * mean([(w, pays(game, x, lines=2 * h)[0]) for w, x in spins])
        scatter += q * mean([(w, pays(game, x, lines=2 * h)[1]) for w, x in spins])
    bet = game.total_bet()
    return {"lines": float(line / bet), "scatter": float(scatter / bet), "rtp": float((line + scatter) / bet)}


# ----------------------------------------------------------------------------- agreement
def _agree(game: Game, exact: dict[str, float], spins: int, seed: int) -> None:
    res = simulate(game, spins, seed=seed)
    checks = res.checks(exact, level=1 - 0.01 / len(exact))  # jointly at 99% (Bonferroni)
    assert all(c["agrees"] for c in checks.values()), checks
    assert sum(e.value for e in res.breakdown.values()) == pytest.approx(res.rtp.value)


def test_three_free_spin_features_keyed_by_scatter_type() -> None:
    game = loads_game(THREE)
    exact = three_scatter_figures(game)
    assert {f"free spins: {f}" for f in FEATURES} <= set(exact)
    _agree(game, exact, 400_000, seed=81)


def test_hold_and_respin_agrees() -> None:
    game = loads_game(HOLD)
    _agree(game, hold_figures(game), 400_000, seed=92)


def test_variable_heights_agree() -> None:
    game = loads_game(HEIGHTS)
    exact = heights_figures(game)
    res = simulate(game, 400_000, seed=93)
    assert res.total_bet == 8  # the bet does not follow the lines active
    checks = res.checks(exact, level=1 - 0.01 / len(exact))
    assert all(c["agrees"] for c in checks.values()), checks


def test_cap_on_the_whole_round_agrees() -> None:
    # 12 × bet = 36 credits: a re-spin's third S (10 × bet) with a line win passes it (P ≈ 0.05, by the law
    # above); no round pays more than 57 credits, so the cap cuts a visible but bounded part
    game = loads_game(HOLD + "\n[cap]\nmultiple = 12\n")
    exact = hold_figures(game, cap=36)
    assert 0.005 < exact["p_cap"] < 0.2 and exact["cap"] < 0
    _agree(game, exact, 400_000, seed=94)


def test_cap_stops_the_round_and_counts_the_cut() -> None:
    res = simulate(loads_game(HOLD + "\n[cap]\nmultiple = 12\n"), 200_000, seed=95)
    assert res.sums["max"] == 36 and res.sums["cut"] > 0 and res.sums["cap_hits"] > 0


# ----------------------------------------------------------------------------- the streams, replayed
def _kernel_wins(game: Game, n: int, root: np.random.SeedSequence) -> list[int]:
    base_bg, free_bg, _ = block_streams(root, 0)
    kind, st_base = generator_state(base_bg)
    st = np.vstack([st_base, generator_state(free_bg)[1]])
    spec = compile_game(game)
    wins = np.zeros(n, dtype=np.int64)
    play_block(n, st, kind, spec, *spec.new_sums(), wins)
    return [int(w) for w in wins]


def _stops(gen: np.random.Generator, game: Game, reels: str) -> list[int]:
    """A spin's stops as documented: ``Generator.integers(0, len(strip), uint32)`` reel by reel."""
    return [int(gen.integers(0, len(s), dtype=np.uint32)) for s in game.reel_set(reels).strips]


def _window(game: Game, stops: list[int], rows: int | None = None) -> Window:
    rs = game.reel_set()
    return [[s[(i + k) % len(s)] for k in range(rs.rows[r] if rows is None else rows)]
            for r, (s, i) in enumerate(zip(rs.strips, stops, strict=True))]


def test_hold_respin_replayed_from_the_streams() -> None:
    # base spins from the base stream; a re-spin takes its stops from the feature stream, held cells show S
    game = loads_game(HOLD)
    root = np.random.SeedSequence(31)
    base_bg, free_bg, _ = block_streams(root, 0)
    base, free = np.random.Generator(base_bg), np.random.Generator(free_bg)
    expected = []
    for _ in range(3000):
        x = _window(game, _stops(base, game, "base"))
        win = sum(pays(game, x))
        cells = [(r, row) for r, col in enumerate(x) for row, s in enumerate(col) if s == "S"]
        if len(cells) == 2:
            y = _window(game, _stops(free, game, "base"))
            for r, row in cells:
                y[r][row] = "S"
            win += sum(pays(game, y))
        expected.append(win)
    assert _kernel_wins(game, 3000, root) == expected


def test_heights_replayed_from_the_streams() -> None:
    # each base spin draws its height first (u < 4 by weight 1 : 2 : 1), then its stops
    game = loads_game(HEIGHTS)
    root = np.random.SeedSequence(32)
    base = np.random.Generator(block_streams(root, 0)[0])
    expected = []
    for _ in range(3000):
        u = int(base.integers(0, 4, dtype=np.uint32))
        h = 2 if u < 1 else 3 if u < 3 else 4
        x = _window(game, _stops(base, game, "base"), rows=h)
        expected.append(sum(pays(game, x, lines=2 * h)))
    assert _kernel_wins(game, 3000, root) == expected


def test_three_features_replayed_from_the_streams() -> None:
    # the features a base spin starts are played in the order the game declares them, every
    # spin of every feature drawing its stops from the feature stream in play order
    game = loads_game(THREE)
    root = np.random.SeedSequence(33)
    base_bg, free_bg, _ = block_streams(root, 0)
    base, free = np.random.Generator(base_bg), np.random.Generator(free_bg)
    expected = []
    for _ in range(2000):
        x = _window(game, _stops(base, game, "base"))
        win = sum(pays(game, x))
        for sym, awards, more, reels, lm, sm in FEATURES.values():
            left = at_most(awards, count(x, sym))
            while left > 0:
                rs = game.reel_set(reels)
                stops = _stops(free, game, reels)
                y = [[s[(i + k) % len(s)] for k in range(rs.rows[r])] for r, (s, i) in enumerate(zip(rs.strips, stops,
                                                                                                       strict=True))]
                line, scat = pays(game, y)
                win += line * lm + scat * sm
                left += at_most(more, count(y, sym)) - 1
        expected.append(win)
    assert _kernel_wins(game, 2000, root) == expected


def test_feature_runs_do_not_depend_on_the_split() -> None:
    game = loads_game(THREE)
    assert simulate(game, 3 * BLOCK + 5, seed=4, chunk=BLOCK) == simulate(game, 3 * BLOCK + 5, seed=4, chunk=4 * BLOCK)


def test_feature_counters() -> None:
    res = simulate(loads_game(THREE), 200_000, seed=6)
    entered = {f: res.sums[f"{f}:entered"] for f in ("alpha", "beta", "gamma")}
    assert res.features == ("alpha", "beta", "gamma")
    # a spin may start several features: starts over features ≥ base spins that start one
    assert sum(entered.values()) >= res.sums["triggers"] > 0
    assert res.sums["free_spins"] == sum(res.sums[f"{f}:spins"] for f in entered)
    assert res.sums["alpha:retriggers"] > 0 and res.sums["retriggers"] >= res.sums["alpha:retriggers"]
    assert res.sums["beta:spins"] == 2 * entered["beta"]  # beta never retriggers: exactly 2 spins each
    assert math.isclose(sum(e.value for e in res.breakdown.values()), res.rtp.value)

