"""Tests of mathkit.chains.markov against values derived by hand (derivations in the comments)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathkit.chains.markov import ABSORB, FFT_MIN_SUPPORT, RewardChain, geometric_check
from mathkit.errors import MathkitError, ModelError


def two_state() -> RewardChain:
    # A: pays 1 and goes to B (1/2), or pays 0 and ends (1/2).
    # B: pays 4 and goes to A (1/3), or pays 2 and ends (2/3).
    return RewardChain.from_outcomes(
        ["A", "B"],
        [[(1, 1, F(1, 2)), (0, ABSORB, F(1, 2))], [(4, 0, F(1, 3)), (2, ABSORB, F(2, 3))]],
    )


def test_two_state_expected_reward_and_steps() -> None:
    # v_A = 1/2 (1 + v_B),  v_B = 1/3 (4 + v_A) + 2/3 · 2 = 8/3 + v_A/3
    # => v_A = 1/2 + 4/3 + v_A/6 => (5/6) v_A = 11/6 => v_A = 11/5, v_B = 8/3 + 11/15 = 17/5.
    # t_A = 1 + t_B/2, t_B = 1 + t_A/3 => (5/6) t_A = 3/2 => t_A = 9/5, t_B = 8/5.
    chain = two_state()
    assert chain.expected_reward("A", exact=True) == F(11, 5)
    assert chain.expected_reward(exact=True) == (F(11, 5), F(17, 5))
    assert chain.expected_steps(exact=True) == (F(9, 5), F(8, 5))
    assert chain.expected_reward("B") == F(17, 5)  # exact by default when small
    np.testing.assert_allclose(chain.expected_reward(exact=False), [11 / 5, 17 / 5], rtol=1e-14)
    assert chain.expected_steps("B", exact=False) == pytest.approx(8 / 5, rel=1e-14)


def remaining_spins_chain(n_max: int, q: F, k: int, wins: list[tuple[int, F]]) -> RewardChain:
    """States ``spins=s`` (s = 1..n_max spins left). A spin pays a win drawn from ``wins``
    independently of the retrigger; with probability ``q`` it adds ``k`` spins (capped at n_max)."""
    rows = []
    for s in range(1, n_max + 1):
        row = []
        for win, pw in wins:
            row.append((win, s - 2 if s > 1 else ABSORB, pw * (1 - q)))  # state index of s-1 is s-2
            row.append((win, min(s - 1 + k, n_max) - 1, pw * q))
        rows.append(row)
    return RewardChain.from_outcomes([f"spins={s}" for s in range(1, n_max + 1)], rows)


def test_geometric_free_spins_exact_with_one_added_spin() -> None:
    # k = 1: a retrigger replaces the spin just played, so from s spins left the chain moves to
    # s-1 with probability 1-q or stays at s with probability q: no truncation is needed.
    # E[spins | n] = n / (1 - q·k) = 10 / (1 - 1/5) = 25/2; the win (0 or 10 at 1/2, mean 5)
    # is independent of the retrigger, so E[reward] = E[spins] · 5 = 125/2.
    chain = remaining_spins_chain(10, F(1, 5), 1, [(0, F(1, 2)), (10, F(1, 2))])
    assert chain.expected_steps("spins=10", exact=True) == F(25, 2)
    assert chain.expected_reward("spins=10", exact=True) == F(125, 2)
    assert chain.expected_steps("spins=10", exact=False) == pytest.approx(12.5, rel=1e-13)


def test_geometric_free_spins_truncated_high() -> None:
    # k = 5, q = 1/20: m = q·k = 1/4, so E[spins | 10] = 10 / (3/4) = 40/3 and E[reward] = 5 · 40/3.
    # The cap at 300 spins left changes this by far less than 1e-12 (300 spins left is out of reach).
    chain = remaining_spins_chain(300, F(1, 20), 5, [(0, F(1, 2)), (10, F(1, 2))])
    for exact in (True, False):
        assert float(chain.expected_steps("spins=10", exact=exact)) == pytest.approx(40 / 3, rel=1e-12)
        assert float(chain.expected_reward("spins=10", exact=exact)) == pytest.approx(200 / 3, rel=1e-12)


def test_large_chain_uses_floats_and_acyclic_order_does_not_matter() -> None:
    # 400 states listed in a scrambled order; state i goes to state i-1 (pays 1), state 0 ends.
    # From the state at depth d there are exactly d + 1 steps.
    n = 400
    perm = np.random.default_rng(1).permutation(n)  # perm[d]: list position of depth d
    where = {int(perm[d]): d for d in range(n)}
    rows = [[(1, int(perm[where[i] - 1]) if where[i] else ABSORB, 1)] for i in range(n)]
    chain = RewardChain.from_outcomes(range(n), rows)
    steps = chain.expected_steps(int(perm[n - 1]))  # n > 300: float64 by default
    assert isinstance(steps, float)
    assert steps == pytest.approx(n, rel=1e-12)
    assert chain.expected_reward(int(perm[n - 1]), exact=True) == n


@st.composite
def random_chains(draw: st.DrawFn) -> RewardChain:
    n = draw(st.integers(1, 5))
    rows = []
    for _ in range(n):
        # the first outcome ends the chain, so every state reaches the end
        row = [(draw(st.integers(0, 5)), ABSORB, draw(st.integers(1, 4)))]
        for _ in range(draw(st.integers(0, 3))):
            row.append((draw(st.integers(0, 5)), draw(st.integers(-1, n - 1)), draw(st.integers(1, 4))))
        rows.append(row)
    return RewardChain.from_outcomes([f"s{i}" for i in range(n)], rows)


@settings(max_examples=40, deadline=None)
@given(random_chains())
def test_exact_and_float_agree(chain: RewardChain) -> None:
    exact_v = chain.expected_reward(exact=True)
    np.testing.assert_allclose(chain.expected_reward(exact=False), [float(x) for x in exact_v], rtol=1e-9)
    exact_t = chain.expected_steps(exact=True)
    np.testing.assert_allclose(chain.expected_steps(exact=False), [float(x) for x in exact_t], rtol=1e-9)
    var_exact = float(chain.reward_variance("s0", exact=True))
    assert chain.reward_variance("s0", exact=False) == pytest.approx(var_exact, rel=1e-7, abs=1e-9)
    dist = chain.total_reward_distribution("s0", tol=1e-13)
    assert dist.mean() == pytest.approx(float(exact_v[0]), rel=1e-9, abs=1e-9)


def test_state_that_never_ends_is_refused() -> None:
    # spins=3 plays itself again forever; spins=1 ends.
    with pytest.raises(ModelError, match=r"states \('spins=3',\) never reach the end: the feature would never finish"):
        RewardChain.from_outcomes(["spins=1", "spins=3"], [[(0, ABSORB, 1)], [(5, 1, 1)]])
    # a state that leads only into a closed loop cannot end either
    with pytest.raises(ModelError, match=r"\('a', 'b'\) never reach"):
        RewardChain.from_outcomes(["a", "b", "c"], [[(0, 1, 1)], [(0, 1, 1)], [(0, 0, 1), (0, ABSORB, 1)]])


def test_geometric_check() -> None:
    # 10 spins added with probability 0.104: m = 1.04 >= 1
    rule = "3+ Emperors add 10 spins with probability 0.104 per spin"
    expected = f"{rule}: 1.04 added spins per spin ≥ 1, the feature never ends on average"
    with pytest.raises(ModelError) as err:
        geometric_check(F(104, 1000) * 10, rule)
    assert str(err.value) == expected
    with pytest.raises(ModelError, match="1 added re-spins per re-spin ≥ 1"):
        geometric_check(F(1), "a re-spin always adds one", unit="re-spin")
    assert geometric_check(F(1, 4), "ok") == F(4, 3)  # E[length] = n / (1 - 1/4)


def test_variance_one_step() -> None:
    # 0 or 10 at 1/2: mean 5, E[X²] = 50, variance 50 - 25 = 25.
    chain = RewardChain.from_outcomes(["spin"], [[(0, ABSORB, F(1, 2)), (10, ABSORB, F(1, 2))]])
    assert chain.reward_variance("spin", exact=True) == 25
    assert chain.reward_variance("spin", exact=False) == pytest.approx(25, rel=1e-14)


def test_variance_geometric_total() -> None:
    # Each round pays 3 and ends with probability 1/2: total = 3G with G ~ Geometric(1/2) on {1, 2, ...},
    # Var G = (1 - p)/p² = 2, so Var = 9 · 2 = 18; E = 3 · 2 = 6.
    chain = RewardChain.from_outcomes(["r"], [[(3, ABSORB, 1), (3, 0, 1)]])
    assert chain.expected_reward("r") == 6
    assert chain.reward_variance("r") == 18
    assert chain.reward_variance("r", exact=False) == pytest.approx(18, rel=1e-12)


@pytest.mark.parametrize("n", [0, 1, 5, 20])
def test_survival_geometric(n: int) -> None:
    # Each step ends with probability p = 1/3: P(steps > n) = P(first n steps all continue) = (2/3)^n.
    chain = RewardChain.from_outcomes(["s"], [[(0, ABSORB, F(1, 3)), (1, 0, F(2, 3))]])
    assert chain.survival(n, "s") == pytest.approx((2 / 3) ** n, rel=1e-12)


def test_total_reward_distribution_enumerated() -> None:
    # A: pays 2 and ends (1/2), or pays 1 and goes to B (1/2). B: pays 0 (1/4) or 3 (3/4) and ends.
    # Totals from A: 2 w.p. 1/2; 1 + 0 = 1 w.p. 1/8; 1 + 3 = 4 w.p. 3/8.
    chain = RewardChain.from_outcomes(
        ["A", "B"], [[(2, ABSORB, F(1, 2)), (1, 1, F(1, 2))], [(0, ABSORB, F(1, 4)), (3, ABSORB, F(3, 4))]]
    )
    d, steps = chain.propagate("A")
    assert d.values.tolist() == [1, 2, 4]
    np.testing.assert_allclose(d.probs, [1 / 8, 1 / 2, 3 / 8], rtol=1e-15)
    assert d.lost_mass == 0
    assert steps == 2


def test_total_reward_distribution_geometric() -> None:
    # Each round pays 3 and ends w.p. 1/2: total 3j with probability 2^-j (j >= 1).
    chain = RewardChain.from_outcomes(["r"], [[(3, ABSORB, 1), (3, 0, 1)]])
    tol = 1e-10
    d = chain.total_reward_distribution("r", tol=tol)
    j = np.arange(1, len(d.values) + 1)
    assert d.values.tolist() == (3 * j).tolist()
    np.testing.assert_allclose(d.probs, 0.5**j, rtol=1e-14)
    assert 0 < d.lost_mass <= tol
    assert d.probs.sum() + d.lost_mass == pytest.approx(1, abs=1e-15)
    with pytest.raises(ModelError, match="still inside the chain"):
        chain.total_reward_distribution("r", tol=tol, max_steps=10)


def test_total_reward_distribution_fft_path() -> None:
    # Two draws, each uniform on 0..999: P(total = t) = (min(t, 1998 - t) + 1) / 10^6 for t = 0..1998.
    # The second step convolves two supports of 1000 >= FFT_MIN_SUPPORT points: the FFT path.
    assert FFT_MIN_SUPPORT <= 1000
    uniform = [(r, 1, 1) for r in range(1000)]
    chain = RewardChain.from_outcomes(["first", "second"], [uniform, [(r, ABSORB, 1) for r in range(1000)]])
    d, steps = chain.propagate("first")
    t = np.arange(1999)
    assert d.values.tolist() == t.tolist()
    np.testing.assert_allclose(d.probs, (np.minimum(t, 1998 - t) + 1) / 1e6, rtol=1e-9)
    assert steps == 2


def test_validation() -> None:
    with pytest.raises(ModelError, match=r"state 'B': probabilities sum to 5/6, not 1"):
        RewardChain.from_outcomes(["A", "B"], [[(0, ABSORB, 1)], [(0, ABSORB, F(1, 2)), (1, ABSORB, F(1, 3))]])
    with pytest.raises(ModelError, match="negative probability"):
        RewardChain.from_outcomes(["A"], [[(0, ABSORB, F(3, 2)), (1, ABSORB, F(-1, 2))]])
    with pytest.raises(ModelError, match=r"next state 7 is not ABSORB \(-1\) or in 0..0"):
        RewardChain.from_outcomes(["A"], [[(0, ABSORB, F(1, 2)), (1, 7, F(1, 2))]])
    with pytest.raises(ModelError, match="not a Fraction or an integer weight"):
        RewardChain.from_outcomes(["A"], [[(0, ABSORB, 0.5), (1, ABSORB, 0.5)]])  # type: ignore[list-item]
    with pytest.raises(ModelError, match="reward -1"):
        RewardChain.from_outcomes(["A"], [[(-1, ABSORB, 1)]])
    with pytest.raises(MathkitError, match="no state labelled 'Z'"):
        two_state().expected_reward("Z")


def test_weights_are_normalised_and_equal_outcomes_merged() -> None:
    # weights 1, 2, 1 on (5, end), (5, end), (0, end): (5, end) merges to 3/4.
    chain = RewardChain.from_outcomes(["A"], [[(5, ABSORB, 1), (5, ABSORB, 2), (0, ABSORB, 1)]])
    assert chain.outcomes == (((0, ABSORB, F(1, 4)), (5, ABSORB, F(3, 4))),)
    assert chain.expected_reward("A") == F(15, 4)
