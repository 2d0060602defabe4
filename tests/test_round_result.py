"""The one round result (:class:`mathkit.round.RoundAnalysis`): the law after and before the transforms, the
round limit with P(limit) and its bound flag, σ under the cap — by hand on a two-reel toy.

The toy: 2 reels × 1 row, each strip ``A B`` (one stop each, weight 1), one line; 2 × A pays 10, 2 × B pays 2
(total bet 1 credit).  Its four outcomes: AA 10, BB 2, AB 0, BA 0 — each 1 in 4.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from mathkit.features.cap import Cap
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.report.par import build_par
from mathkit.round import analyse


def toy(cap: int | None) -> Game:
    features = () if cap is None else (Cap(name="cap", multiple=Fraction(cap)),)
    return Game("round result toy", (Symbol("A"), Symbol("B")), (ReelSet("base", (("A", "B"), ("A", "B")), (1, 1)),),
                (PayEntry("A", ("A",), ((2, (10,)),)), PayEntry("B", ("B",), ((2, (2,)),))), Bet(1),
                paylines=((0, 0),), features=features, description="capped at 5x bet (max win)")


def test_a_reached_cap_by_hand() -> None:
    # capped at 5: AA pays 5. Law after: 0 (2/4), 2 (1/4), 5 (1/4); before: 0, 2, 10. P(limit) = P(AA) = 1/4, exact.
    a = analyse(toy(5))
    assert a.law is not None and a.law_before is not None
    assert (a.law.values.tolist(), a.law.counts is not None and a.law.counts.tolist(), a.law.total) == ([0, 2, 5], [2, 1, 1], 4)
    assert a.law_before.values.tolist() == [0, 2, 10] and a.law.method == a.law_before.method == "exact"
    assert a.law.rtp() == a.rtp() == Fraction(7, 4)
    assert a.limit is not None and a.limit.credits == 5 and a.limit.reachable and not a.limit.p_is_bound
    assert a.limit.p is not None and a.limit.p.exact == Fraction(1, 4)
    # σ after the cap: E[W²] = (25 + 4)/4, E[W] = 7/4, Var = 29/4 − 49/16 = 67/16; no bound needed (None)
    sd, gap = a.sd
    assert gap is None and sd.method == "exact" and sd.value == pytest.approx(math.sqrt(67) / 4, rel=1e-15)
    par = build_par(toy(5))  # the sheet reads the result: the same figures
    assert par.cap_probability is not None and par.cap_probability.exact == Fraction(1, 4)
    assert par.distribution.values.tolist() == [0, 2, 5] and par.sd.value == sd.value


def test_a_cap_no_round_reaches() -> None:
    # capped at 20 > the largest win 10: nothing changes, P(limit) = 0 exactly, the cap unreachable
    a = analyse(toy(20))
    assert a.law is not None and a.law.values.tolist() == [0, 2, 10]
    assert a.limit is not None and not a.limit.reachable and a.limit.p is not None and a.limit.p.exact == 0
    assert a.rtp() == Fraction(12, 4)


def test_no_cap_no_limit() -> None:
    a = analyse(toy(None))
    assert a.limit is None and a.law is not None and a.law.values.tolist() == [0, 2, 10]
    # Var = (100 + 4)/4 − 9 = 17
    assert a.sd[0].value == pytest.approx(math.sqrt(17), rel=1e-15) and a.sd[1] is None


def test_below_the_distribution_level_the_result_holds_no_law() -> None:
    a = analyse(toy(5), level="mean")
    # a cap a round reaches needs the distribution: the analysis is raised to it
    assert a.level == "distribution" and a.law is not None
    b = analyse(toy(20), level="mean")
    assert b.level == "mean" and b.law is None and b.limit is not None and b.limit.p is not None
    assert b.limit.p.exact == 0
