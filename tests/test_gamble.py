"""Tests of mathkit.chains.ladder against values derived by hand (derivations in the comments)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathkit.chains.ladder import (
    Always,
    GambleOption,
    Never,
    UntilTarget,
    check_fair,
    expected_return,
    gamble_effect,
    gamble_table,
    ladder_chain,
    ladder_distribution,
    return_ratio,
)
from mathkit.chains.ladder import Ladder as Gamble
from mathkit.errors import GameError, ModelError

COLOUR = GambleOption("colour", 2, F(1, 2))
SUIT = GambleOption("suit", 4, F(1, 4))
UNFAIR = GambleOption("red", 2, F(12, 25))  # p·m = 24/25


def ladder(max_gambles: int = 5, limit: int = 10**9, *options: GambleOption) -> Gamble:
    return Gamble(options or (COLOUR, SUIT), max_gambles=max_gambles, limit=limit)


@pytest.mark.parametrize("strategy", [Always("colour"), Always("suit"), UntilTarget("colour", 50), Never()])
@pytest.mark.parametrize("amount", [1, 3, 10, 7000])
def test_fair_options_return_exactly_one(strategy: Always | UntilTarget | Never, amount: int) -> None:
    # Each gamble multiplies the expected amount by p·m = 1, whatever the strategy.
    g = ladder(5, 1000)
    assert return_ratio(g, strategy, amount) == F(1)
    assert expected_return(g, strategy, amount) == amount


def test_check_fair() -> None:
    assert [tuple(c) for c in check_fair(ladder())] == [("colour", F(1), True), ("suit", F(1), True)]
    assert [tuple(c) for c in check_fair(ladder(5, 100, UNFAIR))] == [("red", F(24, 25), False)]


def test_unfair_option_returns_power_of_ratio() -> None:
    # Always gambling k times on the winning path returns (p·m)^k = (24/25)^k.
    assert return_ratio(ladder(3, 10**6, UNFAIR), Always("red"), 5) == F(24, 25) ** 3
    # limit 20 (stake reading): offered at 5 and 10 and 20, not at 40: k = 3 of max 5
    assert return_ratio(ladder(5, 20, UNFAIR), Always("red"), 5) == F(24, 25) ** 3
    # limit 19: offered at 5 and 10 only: k = 2
    assert return_ratio(ladder(5, 19, UNFAIR), Always("red"), 5) == F(24, 25) ** 2


@pytest.mark.parametrize("k", range(6))
def test_always_colour_final_distribution(k: int) -> None:
    # k gambles from amount a: the win survives all k with probability 2^-k, else 0.
    a = 3
    dist = ladder_distribution(ladder(k), Always("colour"), a)
    expected = {a * 2**k: F(1)} if k == 0 else {0: 1 - F(1, 2**k), a * 2**k: F(1, 2**k)}
    assert dist == expected


def test_max_gambles_respected() -> None:
    # win of 1, at most 5 gambles, no effective limit: 1 -> 2 -> 4 -> 8 -> 16 -> 32, exposure 32.
    effect = gamble_effect(ladder(5, 10**6), Always("colour"), [1], [1])
    assert effect.max_exposure == 32
    assert dict(effect.after) == {0: F(31, 32), 32: F(1, 32)}


def test_limit_stops_offering() -> None:
    # win of 1, limit 10. Stake reading: offered at 1, 2, 4, 8 (<= 10), not at 16: {0: 15/16, 16: 1/16}.
    g = ladder(5, 10)
    assert ladder_distribution(g, Always("colour"), 1) == {0: F(15, 16), 16: F(1, 16)}
    # Win reading: offered only when 2·amount <= 10, so at 1, 2, 4 and not at 8: {0: 7/8, 8: 1/8}.
    assert ladder_distribution(g, Always("colour"), 1, limit_on="win") == {0: F(7, 8), 8: F(1, 8)}
    # A win above the limit is not offered the gamble at all.
    assert ladder_distribution(g, Always("colour"), 11) == {11: F(1)}


def test_until_target() -> None:
    # colour until 10, from 3: 3 -> 6 -> 12 (12 >= 10: stop). Survives 2 gambles w.p. 1/4.
    assert ladder_distribution(ladder(), UntilTarget("colour", 10), 3) == {0: F(3, 4), 12: F(1, 4)}
    # already at the target: collect
    assert ladder_distribution(ladder(), UntilTarget("colour", 10), 10) == {10: F(1)}


def test_ladder_chain_agrees() -> None:
    # suit, max 3, limit 100 from 2: 2 -> 8 -> 32 -> 128 (offered at 32 <= 100): {0: 63/64, 128: 1/64}.
    g = ladder(3, 100)
    chain = ladder_chain(g, Always("suit"), 2)
    assert chain.expected_reward((2, 0)) == 2
    assert ladder_distribution(g, Always("suit"), 2) == {0: F(63, 64), 128: F(1, 64)}
    d = chain.total_reward_distribution((2, 0))
    assert d.values.tolist() == [0, 128]
    np.testing.assert_allclose(d.probs, [63 / 64, 1 / 64], rtol=1e-15)


def test_gamble_table() -> None:
    # wins 0, 1, 5 with hit counts 6, 3, 1 (probabilities 6/10, 3/10, 1/10); colour once, limit 100.
    # before: mean (3 + 5)/10 = 4/5, E[X²] = (3 + 25)/10 = 14/5, var 14/5 - 16/25 = 54/25.
    # after: {0: 6/10 + 3/20 + 1/20 = 4/5, 2: 3/20, 10: 1/20}: mean 6/20 + 10/20 = 4/5,
    #        E[X²] = (12 + 100)/20 = 28/5, var 28/5 - 16/25 = 124/25. P(bust) = 4/5 - 6/10 = 1/5.
    g = ladder(1, 100)
    never, colour, suit = gamble_table(g, np.array([0, 1, 5]), np.array([6, 3, 1]))
    assert never.strategy == "never"
    assert (never.return_ratio, never.max_exposure, never.p_bust) == (F(1), 5, F(0))
    assert colour.strategy == "always colour"
    assert colour.return_ratio == 1
    assert (colour.mean_before, colour.mean_after) == (F(4, 5), F(4, 5))
    assert colour.sd_before == pytest.approx((54 / 25) ** 0.5, rel=1e-15)
    assert colour.sd_after == pytest.approx((124 / 25) ** 0.5, rel=1e-15)
    assert (colour.max_exposure, colour.p_bust) == (10, F(1, 5))
    assert suit.max_exposure == 20
    effect = gamble_effect(g, Always("colour"), [0, 1, 5], [F(6, 10), F(3, 10), F(1, 10)])
    assert effect.variance_change == F(124, 25) - F(54, 25)


def test_float_probabilities_are_taken_exactly() -> None:
    # 0.5 and 0.25 are exact binary fractions
    effect = gamble_effect(ladder(1, 100), Always("colour"), [0, 4, 8], [0.5, 0.25, 0.25])
    assert dict(effect.after) == {0: F(3, 4), 8: F(1, 8), 16: F(1, 8)}


def test_errors() -> None:
    with pytest.raises(ModelError, match="no gamble option 'dice': choose one of colour, suit"):
        ladder_distribution(ladder(), Always("dice"), 5)
    with pytest.raises(ModelError, match="sum to"):
        gamble_effect(ladder(), Never(), [1, 2], [F(1, 2), F(1, 3)])
    with pytest.raises(GameError, match=r"gamble.options\[0\].p"):
        check_fair(ladder(5, 100, GambleOption("bad", 2, F(3, 2))))


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(2, 5),
    num=st.integers(1, 30),
    max_gambles=st.integers(0, 5),
    limit=st.integers(0, 500),
    amount=st.integers(1, 100),
)
def test_return_ratio_is_power_of_p_times_m(m: int, num: int, max_gambles: int, limit: int, amount: int) -> None:
    # p = num / (30·m) so p·m = num/30 <= 1. Always gambling, the winning path gambles at
    # amount·m^j for j = 0, 1, ... while j < max_gambles and amount·m^j <= limit: k such rungs,
    # and the expected amount is amount·(p·m)^k.
    p = F(num, 30 * m)
    g = Gamble((GambleOption("x", m, p),), max_gambles=max_gambles, limit=limit)
    k = sum(1 for j in range(max_gambles) if amount * m**j <= limit)
    assert return_ratio(g, Always("x"), amount) == (p * m) ** k
    assert gamble_effect(g, Always("x"), [amount], [1]).max_exposure == amount * m**k
