"""Tests of mathkit.sim: the literal player against numpy's draws, a reference player in
Python, hand formulas and the exact engine (which the tests may use; the simulator may not)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys
from fractions import Fraction as F
from itertools import combinations, pairwise
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from mathkit.cli.simulate import cli, exact_figures
from mathkit.errors import ModelError
from mathkit.features.base import Block
from mathkit.features.cap import Cap
from mathkit.features.free_spins import FreeSpins
from mathkit.gamefile.io import load_game, loads_game
from mathkit.model.game import Game, ReelSet, Role
from mathkit.sim import BLOCK, GambleStrategy, Proportion, SimResult, cluster, simulate
from mathkit.sim.cluster import (
    G_OFFERED,
    G_ROUNDS,
    G_STAKED,
    G_TOTAL,
    G_WON,
    GamblePlan,
    block_streams,
    play_gamble,
)
from mathkit.sim.kernels import play_block
from mathkit.sim.rng import generator_state
from mathkit.sim.spec import compile_game
from mathkit.spin.evaluate import evaluate
from mathkit.spin.tables import pay_tables

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "games"
BENCH = GAMES / "benchmark_5x3.toml"
CLASSIC = GAMES / "classic_3reel.toml"

# The benchmark game plus free spins on its own strips: 3+ SCATTER award 5 spins, 3+ during
# them add 2, line and scatter wins ×2, at most 12 spins; a cap of 60× the bet on a whole play.
FREE_SPINS = """
[free_spins]
trigger = "SCATTER"
awards = { 3 = 5 }
retriggers = { 3 = 2 }
reels = "base"
multiplier = 2
multiply_scatter = true
max_spins = 12
"""


def _ways_game() -> Game:
    """The benchmark game paying 243 ways (25 credits a spin) instead of 30 lines."""
    text = BENCH.read_text(encoding="utf-8").replace('pay_mode = "lines"', 'pay_mode = "ways"')
    text = re.sub(r"paylines = \[\n.*?\n\]\n", "", text, flags=re.S).replace("lines = 30", "lines = 25")
    return loads_game(text)


@pytest.fixture(scope="module")
def bench() -> Game:
    return load_game(BENCH)


@pytest.fixture(scope="module")
def fs_game() -> Game:
    return loads_game(BENCH.read_text(encoding="utf-8") + FREE_SPINS)


def _draw(gen: np.random.Generator, rs: ReelSet) -> list[int]:
    """A spin's stops as the simulator documents them: Generator.integers(0, m, uint32) per reel."""
    stops = []
    for r in range(rs.n_reels):
        w = rs.stop_weights(r)
        u = int(gen.integers(0, sum(w), dtype=np.uint32))
        stops.append(int(np.searchsorted(np.cumsum(w), u, side="right")) if rs.weights is not None else u)
    return stops


def _reference_plays(game: Game, n: int, root: np.random.SeedSequence) -> list[int]:
    """Block 0 of a run, played in plain Python: draws, evaluate(), the features turn by turn."""
    base_bg, free_bg, _ = block_streams(root, 0)
    base_gen, free_gen = np.random.Generator(base_bg), np.random.Generator(free_bg)
    t = pay_tables(game)
    caps = [f for f in game.features if isinstance(f, Cap)]
    cap = int(caps[0].credits(t.total_bet, game.bet.coins[0])) if caps else 1 << 62
    fss = [f for f in game.features if isinstance(f, FreeSpins)]
    fs = fss[0] if fss else None
    out = []
    for _ in range(n):
        rs = game.reel_set()
        window = rs.window(_draw(base_gen, rs))
        res = evaluate(game, window, tables=t)
        win = res.line_total + res.scatter_total
        if fs is not None and fs.award(sum(col.count(fs.trigger) for col in window)) and win < cap:
            left = awarded = min(fs.award(sum(col.count(fs.trigger) for col in window)), fs.max_spins or 1 << 62)
            free = game.reel_set(fs.reels)
            while left > 0:
                window = free.window(_draw(free_gen, free))
                res = evaluate(game, window, tables=t)
                win += res.line_total * fs.multiplier + res.scatter_total * (
                    fs.multiplier if fs.multiply_scatter else 1)
                left -= 1
                more = min(fs.retrigger(sum(col.count(fs.trigger) for col in window)),
                           (fs.max_spins or 1 << 62) - awarded)
                left, awarded = left + more, awarded + more
                if win >= cap:
                    break
        out.append(min(win, cap))
    return out


def _kernel_plays(game: Game, n: int, root: np.random.SeedSequence) -> list[int]:
    base_bg, free_bg, _ = block_streams(root, 0)
    kind, st_base = generator_state(base_bg)
    st = np.vstack([st_base, generator_state(free_bg)[1]])
    wins = np.zeros(n, dtype=np.int64)
    spec = compile_game(game)
    play_block(n, st, kind, spec, *spec.new_sums(), wins)
    return [int(w) for w in wins]


@pytest.mark.parametrize("path", [BENCH, CLASSIC, None], ids=["lines", "weighted", "ways"])
def test_kernel_plays_the_windows_numpy_draws(path: Path | None) -> None:
    # uniform (benchmark), weighted (classic) stops and a ways game: every play's win equals evaluate()
    game = load_game(path) if path is not None else _ways_game()
    root = np.random.SeedSequence(11)
    assert _kernel_plays(game, 3000, root) == _reference_plays(game, 3000, root)


def test_kernel_plays_features_and_cap_like_the_reference(fs_game: Game) -> None:
    # free spins with retriggers, ×2 on lines and scatters, max_spins, and a cap that binds on whole plays
    game = fs_game.with_features(Cap(name="cap", multiple=F(40)))
    root = np.random.SeedSequence(5)
    wins = _kernel_plays(game, 4000, root)
    assert wins == _reference_plays(game, 4000, root)
    assert max(wins) == 40 * 30


@pytest.mark.skipif(not (GAMES / "dynasty.toml").exists(), reason="needs Dynasty")
def test_kernel_plays_dynasty_like_the_reference() -> None:
    # free spins on their own reel set, unlimited retriggers, lines ×2 but not scatters
    game = load_game(GAMES / "dynasty.toml")
    root = np.random.SeedSequence(3)
    wins = _kernel_plays(game, 3000, root)
    assert wins == _reference_plays(game, 3000, root)


def test_same_seed_same_result_however_split(bench: Game) -> None:
    spins = 5 * BLOCK + 123
    one = simulate(bench, spins, seed=3, chunk=10**9)
    assert simulate(bench, spins, seed=3, chunk=BLOCK) == one
    assert simulate(bench, spins, seed=3, chunk=2 * BLOCK) == one
    assert simulate(bench, spins, seed=4) != one
    assert one.spins == spins == one.sums["plays"]


def test_generator_injection(bench: Game) -> None:
    rng = np.random.default_rng(9)
    first = simulate(bench, 10_000, rng=rng)
    assert first == simulate(bench, 10_000, seed=9)  # seed=s is rng=default_rng(s)
    assert simulate(bench, 10_000, rng=rng) != first  # the generator was used
    sfc = simulate(bench, 10_000, rng=np.random.Generator(np.random.SFC64(9)))
    assert sfc.bit_generator == "SFC64" and sfc != first
    with pytest.raises(ValueError, match="not both"):
        simulate(bench, 10, seed=1, rng=rng)


def _exact_base(game: Game) -> tuple[dict[str, float], float]:
    """RTP and components from mathkit.exact.components.component_rtp; hit frequencies and σ from the exact cycle."""
    from mathkit.exact import spin
    from mathkit.exact.components import component_rtp

    comp = component_rtp(game)
    figures = {"rtp": float(comp.rtp()), **{k: float(v) for k, v in comp.breakdown().items()}}
    dist = spin(game).win_distribution
    figures |= {"hit_frequency": float(dist.hit_frequency()), "hit_frequency_bet": float(dist.sf(comp.total_bet))}
    return figures, dist.sd_per_bet()


@pytest.mark.parametrize("path", [BENCH, CLASSIC, None], ids=["lines", "weighted", "ways"])
def test_agrees_with_exact_base_figures(path: Path | None) -> None:
    game = load_game(path) if path is not None else _ways_game()
    exact, sd = _exact_base(game)
    res = simulate(game, 2_000_000, seed=2024)
    checks = res.checks(exact, sd)
    assert all(c["agrees"] for c in checks.values()), checks
    assert res.rtp.ci99[0] <= exact["rtp"] <= res.rtp.ci99[1]
    assert abs(res.sd - sd) < 0.05 * sd
    assert sum(e.value for e in res.breakdown.values()) == pytest.approx(res.rtp.value)


# Every shipped game is played and checked (a block without a table is refused by name: tests below).
@pytest.mark.parametrize("path", sorted(GAMES.rglob("*.toml")), ids=lambda p: p.stem)
def test_every_game_agrees_with_its_exact_figures(path: Path) -> None:
    # RTP, every component, hit frequencies, trigger and entry probabilities, the cap's and σ (where
    # the PAR sheet has it exactly): jointly within the 99% interval (Bonferroni over the figures)
    game = load_game(path)
    res = simulate(game, 1_500_000, seed=7)
    exact, sd = exact_figures(game)
    assert ("sd" in exact or path.stem == "warlords") and len(exact) >= 4  # Warlords' σ: issue 12's exact side
    if path.stem == "prince_of_riches":  # the blocks' own figures (sim_checks): cash plays, length, last height
        assert {"per_round:cash_stacks:plays", "mean_length:free_games",
                *(f"per_entry:free_games:last at {h}" for h in range(3, 8))} <= set(exact)
    level = SimResult.joint_level(len(exact))
    assert res.agrees(exact, sd, level) == dict.fromkeys(exact, True), res.checks(exact, sd, level)


def test_feature_frequency_matches_hand_formula(fs_game: Game) -> None:
    # one SCATTER per strip, 3 rows shown: reel r shows it with p_r = 3/n_r, independently;
    # the feature triggers on 3+ of 5 reels: P = Σ_{|S|≥3} Π_{r∈S} p_r Π_{r∉S} (1 − p_r)
    p = [F(3, n) for n in (32, 40, 48, 40, 32)]
    trigger = sum(
        (math.prod(p[r] if r in s else 1 - p[r] for r in range(5)) for k in (3, 4, 5)
         for s in combinations(range(5), k)),
        F(0),
    )
    res = simulate(fs_game, 2_000_000, seed=13)
    lo, hi = res.trigger_frequency.ci99
    assert lo <= float(trigger) <= hi
    assert res.agrees({"trigger_probability": float(trigger)}) == {"trigger_probability": True}
    # retriggers add 2 spins with probability P on each free spin (same strips), within max_spins = 12:
    # a feature is at least 5 spins and at most 12
    assert 5 <= res.mean_free_spins <= 12
    assert res.sums["free_spins"] >= 5 * res.sums["triggers"]


def test_cap_limits_the_whole_play(fs_game: Game) -> None:
    capped = simulate(fs_game.with_features(Cap(name="cap", multiple=F(40))), 500_000, seed=21)
    free = simulate(fs_game, 500_000, seed=21)
    bet = capped.total_bet
    assert capped.sums["max"] == 40 * bet < free.sums["max"]
    assert capped.sums["cap_hits"] > 0 and capped.sums["cut"] > 0
    assert capped.component("cap").value < 0
    assert sum(e.value for e in capped.breakdown.values()) == pytest.approx(capped.rtp.value)
    # base spins draw from their own stream: the cap changes features, never the base game
    assert capped.sums["line"] == free.sums["line"] and capped.sums["scatter"] == free.sums["scatter"]
    assert capped.rtp.value < free.rtp.value


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Unplayable(Block):
    """A block that gives the simulator no table."""

    kind: ClassVar[str] = "unplayable"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Unplayable"


def test_refuses_a_block_without_a_table(fs_game: Game) -> None:
    # the refusal names the game and the block; nothing is simulated
    with pytest.raises(ModelError, match=r"Benchmark 5x3: feature 'mystery' \(unplayable\) gives the simulator no table"):
        simulate(fs_game.with_features(_Unplayable(name="mystery")), 1000, seed=1)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _StickyFreeSpins(FreeSpins):
    """Free spins with a field their simulator table does not play."""

    sticky: str = ""


def test_refuses_a_field_the_table_does_not_play(fs_game: Game) -> None:
    # a field added to a block later (sticky wilds ...) is never silently left out of a simulation
    fs = next(f for f in fs_game.features if isinstance(f, FreeSpins))
    fields = {f.name: getattr(fs, f.name) for f in dataclasses.fields(fs)}
    plain = fs_game.with_features(_StickyFreeSpins(**fields))
    assert simulate(plain, 20_000, seed=2) == simulate(fs_game, 20_000, seed=2)  # at its default: played
    sticky = fs_game.with_features(_StickyFreeSpins(**fields, sticky="WILD"))
    with pytest.raises(ModelError, match=r"feature 'free_spins' \(free_spins\) sets sticky, which its simulator"):
        simulate(sticky, 1000, seed=1)


def test_gamble_reported_apart_and_fair() -> None:
    game = load_game(GAMES / "dynasty.toml") if (GAMES / "dynasty.toml").exists() else None
    if game is None or not any(f.kind == "gamble" for f in game.features):
        pytest.skip("needs a game with a gamble")
    plain = simulate(game, 300_000, seed=5)
    res = simulate(game, 300_000, seed=5, gamble=GambleStrategy("colour"))
    assert dataclasses.replace(res, gamble=None) == plain  # the gamble is never in the RTP
    g = res.gamble
    assert g is not None and g.offered > 0 and g.rounds >= g.offered and 0 < g.won < g.rounds
    lo, hi = g.return_ratio.ci99
    assert lo <= 1 <= hi  # colour ×2 at 1/2 returns exactly what is staked, on average
    assert g.rtp.ci99[0] <= res.rtp.value <= g.rtp.ci99[1]


def test_gamble_ladder_by_hand() -> None:
    # colour ×2 at 1/2, at most 5 in a row, limit 5000 on the stake: a win of 10 is gambled until
    # lost or 5 times (10 → 320 at most); 6000 is above the limit and 0 is no win: neither is offered
    plan = GamblePlan(1, 2, 2, 5, 5000)
    wins = np.array([0, 10, 6000] + [10] * 997, dtype=np.int64)
    g, _ = play_gamble(wins, plan, np.random.default_rng(1))
    assert g[G_OFFERED] == 998 and g[G_STAKED] == 9980
    # each ends at 0 or, after 5 wins, at 320; every round won leads to another unless it was the 5th
    top, rest = divmod(int(g[G_TOTAL]) - 6000, 320)
    assert rest == 0 and g[G_ROUNDS] == 998 + g[G_WON] - top
    # UntilTarget 40 on the same ladder: 10 → 20 → 40 and stop, so each ends at 0 or 40
    g2, _ = play_gamble(wins, dataclasses.replace(plan, target=40), np.random.default_rng(1))
    top, rest = divmod(int(g2[G_TOTAL]) - 6000, 40)
    assert rest == 0 and g2[G_ROUNDS] == 998 + g2[G_WON] - top
    # the limit on the win: 10 × 2 ≤ 25 is offered, 20 × 2 > 25 is not
    g3, _ = play_gamble(np.array([10], dtype=np.int64), dataclasses.replace(plan, limit=25, limit_on_win=True),
                        np.random.default_rng(1))
    assert g3[G_ROUNDS] == 1


def test_agrees_reports_disagreement(bench: Game) -> None:
    res = simulate(bench, 200_000, seed=1)
    assert res.agrees({"rtp": res.rtp.value + 10 * res.rtp.se}) == {"rtp": False}
    assert res.agrees({"rtp": res.rtp.value + 2 * res.rtp.se}) == {"rtp": True}
    with pytest.raises(KeyError, match="no simulated figure"):
        res.agrees({"jackpot": 0.01})


def test_feature_counters_by_hand() -> None:
    # 4 plays, 2 entries of 'fs' of 10 and 30 spins; 'fs:last' counted once, 'm:plays' 3 times
    sums = {"paid": 8, "paid_sq": 40, "fs:entered": 2, "fs:spins": 40, "fs:spins_sq": 1000, "fs:last": 1,
            "m:plays": 3, "component:fs": 0, "component:fs_sq": 0, "triggers": 2,
            **dict.fromkeys(("hits", "hits_bet", "hits_10x", "hits_100x", "hits_1000x"), 0)}
    res = SimResult("g", 4, 1, ("fs",), sums, (0.0, 0.0), (), 4, (0, ()), features=("fs",))
    assert res.tallies == ("fs:last", "m:plays")
    est = res.mean_length("fs")  # mean 20; var = 1000/2 − 400 = 100, se = √(100/2)
    assert (est.value, est.se) == (20, pytest.approx(50**0.5))
    fig = res.figures()
    assert (fig["mean_length:fs"], fig["per_entry:fs:last"], fig["per_round:m:plays"]) == (20, 0.5, 0.75)
    z = 2.5758293035489004
    assert res.tolerance("mean_length:fs", 20) == pytest.approx(z * 50**0.5)
    assert res.tolerance("per_entry:fs:last", 0.5) == pytest.approx(z * (0.25 / 2) ** 0.5)  # over 2 entries
    assert res.tolerance("per_round:m:plays", 0.5) == pytest.approx(z * (0.25 / 4) ** 0.5)  # over 4 plays


def test_wilson_interval_by_hand() -> None:
    # 0 hits in 100 at 95%: the Wilson interval is [0, z²/(n + z²)] = [0, 3.8415/103.8415]
    lo, hi = Proportion(0, 100).ci95
    assert lo == pytest.approx(0, abs=1e-15) and hi == pytest.approx(1.959963984540054**2 / (100 + 1.959963984540054**2))


def test_trace_and_json(bench: Game) -> None:
    res = simulate(bench, 3 * BLOCK, seed=8)
    assert [n for n, _ in res.trace] == [BLOCK, 2 * BLOCK, 3 * BLOCK]
    assert res.trace[-1][1] == pytest.approx(res.rtp.value)
    out = json.loads(res.to_json({"rtp": res.rtp.value}, 3.6))
    for key in ("rtp", "ci99", "spins", "spins_per_second", "breakdown", "agrees_with_exact", "checks"):
        assert key in out
    assert out["agrees_with_exact"] is True and out["spins"] == 3 * BLOCK


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli([str(CLASSIC), "--spins", "200000", "--seed", "7", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["agrees_with_exact"] is True
    assert set(out["checks"]) >= {"rtp", "lines", "hit_frequency"}


def test_simulator_never_imports_the_exact_engine() -> None:
    code = ("import sys, mathkit.sim; "
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "[['mathkit', x] for x in ('rtp', 'exact', 'cycle', 'stops', 'round', 'par', 'sensitivity')]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.dask
def test_dask_local_cluster_is_bit_identical(bench: Game) -> None:
    spins = 4 * BLOCK + 7
    here = simulate(bench, spins, seed=17, chunk=BLOCK)
    there = simulate(bench, spins, seed=17, chunk=BLOCK, workers=2, progress=False, place="cluster")
    assert there == here and there.ran == "on a local cluster of 2 workers"
    assert isinstance(there, SimResult) and there.spins_per_second > 0
    # Warlords: overlays, re-spins and three free-spin games draw from the feature stream in play order
    warlords = load_game(GAMES / "warlords.toml")
    here = simulate(warlords, spins, seed=17, chunk=BLOCK)
    there = simulate(warlords, spins, seed=17, chunk=BLOCK, workers=2, progress=False, place="cluster")
    assert there == here and here.sums["scatter_respins:entered"] > 0


@pytest.mark.dask
def test_auto_starts_the_local_cluster_when_it_pays(bench: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster that started at once would pay on two cores: the first chunk is played here, the rest there, and
    the sums are those of one process."""
    monkeypatch.setattr(cluster, "CLUSTER_START", 0.0)
    monkeypatch.setattr(cluster.os, "cpu_count", lambda: 2)
    spins = 6 * BLOCK
    there = simulate(bench, spins, seed=3, chunk=BLOCK, workers=2, progress=False)
    assert there.ran.startswith("on a local cluster of 2 workers: ≈"), there.ran
    assert there == simulate(bench, spins, seed=3, chunk=BLOCK)


def test_auto_stays_in_this_process_when_a_cluster_would_not_pay(bench: Game,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of a fraction of a second stays here, saying what the cluster would have cost; and on one core a
    cluster never pays, however long the run."""
    spins = 6 * BLOCK
    here = simulate(bench, spins, seed=3, chunk=BLOCK)
    small = simulate(bench, spins, seed=3, chunk=BLOCK, workers=2, progress=False)
    assert small == here and small.ran.startswith("in this process: a new local cluster of 2 workers would take ≈")
    assert "3 s to start" in small.ran
    one = simulate(bench, spins, seed=3, chunk=spins, workers=2, progress=False)  # one task
    assert one == here and one.ran == "in this process: one task, nothing to share among 2 workers"
    monkeypatch.setattr(cluster, "CLUSTER_START", 0.0)
    monkeypatch.setattr(cluster.os, "cpu_count", lambda: 1)
    assert "on 1 core)" in simulate(bench, spins, seed=3, chunk=BLOCK, workers=2, progress=False).ran


def test_cluster_tasks_are_fewer_and_larger() -> None:
    chunks = [(i, i + 1) for i in range(239)]  # 10⁹ plays in chunks of 64 blocks, as blocks here
    joined, sizes = cluster.grouped(chunks, [1] * 239, 8)
    assert len(joined) == 8 and joined[0][0] == 0 and joined[-1][1] == 239 and sum(sizes) == 239
    assert all(a[1] == b[0] for a, b in pairwise(joined))  # consecutive, nothing dropped


def test_a_line_pay_of_2_to_the_32_credits_is_never_wrapped_to_nothing() -> None:
    # fuzz case classic:248: L2 × 5 paying 2³² credits on the benchmark game. The simulator's remainder table (what
    # the last reels' lines pay per open state) was built in int32, where 2³² wraps to exactly 0: the pay vanished
    # and the run printed a simulated RTP of 0.94 against an exact 330,302. Built in int64, the pay reaches the
    # driver, whose guard refuses a play of 2³¹ credits or more by name (its sums are 64-bit over many plays):
    # in 20,000 spins about 46 plays hit it (Poisson; P(none) ≈ e⁻⁴⁶).
    from mathkit.sim import simulate

    text = (Path(__file__).resolve().parents[1] / "data" / "games" / "benchmark_5x3.toml").read_text(encoding="utf-8")
    game = loads_game(re.sub(r"^L2 = \{([^}]*)5 = \d+", lambda m: f"L2 = {{{m.group(1)}5 = {2**32}", text, count=1,
                             flags=re.M))
    assert any(e.name == "L2" and (5, (2**32,)) in e.pays for e in game.line_pays)
    with pytest.raises(ModelError, match=r"a play won 2\*\*31 credits or more"):
        simulate(game, 20_000, seed=5, progress=False)
