"""Prince of Riches played literally (``tests/literal_prince.py``) against every exact and Markov figure, at 99%.

The player shares nothing with the engine but the game data: it draws heights,
stops, cash stacks, jackpot reveals and growing free games round by round.  Each
exact or Markov figure (every RTP component, the free games' trigger probability,
mean length and the height of their last game, how often the cash stacks play)
must lie in the 99% normal interval of its sample mean.  The product's simulator
(:mod:`mathkit.sim`, the generic driver) is checked against the same figures in
``tests/test_simulate.py`` and replayed round by round in ``tests/test_simulate_prince.py``;
this oracle shares neither its code nor its streams.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from literal_prince import LiteralPrince, Tally
from scipy.stats import poisson

from mathkit.gamefile.io import load_game
from mathkit.round import analyse

ROUNDS = 800_000  # ≈ 10 s of CPU; the free games come 1 round in 66, so ≈ 12,000 features
SEED = 20261201


@pytest.fixture(scope="module")
def played() -> tuple[dict[str, float], dict[str, float], Tally]:
    game = load_game("data/games/prince_of_riches.toml")
    a = analyse(game, level="mean")
    exact = {k: float(v) for k, v in a.breakdown().items()}
    figures = {name: float(f.value) for s in a.sections for name, f in s.figures}
    player = LiteralPrince(game)
    rng = np.random.default_rng(SEED)
    tally = Tally()
    for _ in range(ROUNDS // 200_000):
        player.play(200_000, rng, tally)
    assert game.bet.total is not None
    jackpots = game.feature("jackpots")
    pays = {f"pay: {j}": float(v) for j, v in jackpots.prizes}  # type: ignore[attr-defined]
    return exact, figures | pays | {"total bet": float(game.bet.total)}, tally


def test_every_rtp_component_agrees(played: tuple[dict[str, float], dict[str, float], Tally]) -> None:
    exact, figures, tally = played
    bet = figures["total bet"]
    assert len(exact) == 12  # lines, cash, four jackpots, each in the base game and in free games
    out = {}
    for name, value in exact.items():
        if "jackpots: " in name:  # rare (a Grand 1 in 600,000 base spins): count the reveals, Poisson at 99%
            pay = figures["pay: " + name.rsplit(": ", 1)[1]]
            seen, expected = tally.sums[name] / (pay * bet), value * tally.rounds / pay
            lo, hi = poisson.ppf(0.005, expected), poisson.ppf(0.995, expected)
            if not lo <= seen <= hi:
                out[name] = (expected, seen, lo, hi)
            continue
        mean, lo, hi = (x / bet for x in tally.mean_ci(name))
        if not lo <= value <= hi:
            out[name] = (value, mean, lo, hi)
    assert out == {}
    total, lo, hi = (x / bet for x in tally.mean_ci("round"))
    assert lo <= sum(exact.values()) <= hi, (sum(exact.values()), total)


def test_feature_figures_agree(played: tuple[dict[str, float], dict[str, float], Tally]) -> None:
    _, figures, tally = played
    features = tally.counts["features"]
    checks = {
        "trigger probability": tally.mean_ci("trigger"),
        "expected length (games)": tally.mean_ci("length", features),
        "P(cash stacks play) per base spin": tally.mean_ci("cash stacks play"),
        **{f"P(last game at height {h})": tally.mean_ci(f"last at {h}", features) for h in range(3, 8)},
        **{f"{j}: P(won) per base spin": tally.mean_ci(f"{j} won") for j in ("Mini", "Minor")},
    }
    out = {k: (figures[k], ci) for k, ci in checks.items() if not ci[1] <= figures[k] <= ci[2]}
    assert out == {}
    # the heights were drawn by their law (420 : 260 : 170 : 100 : 50)
    n = tally.rounds
    for h, w in zip(range(3, 8), (420, 260, 170, 100, 50), strict=True):
        p = Fraction(w, 1000)
        half = 2.5758293035489 * float(p * (1 - p) / n) ** 0.5
        assert abs(tally.counts[f"height {h}"] / n - float(p)) <= half
