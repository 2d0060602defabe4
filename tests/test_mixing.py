"""laws.convolve.Mixing: a mixture built part by part, dense where the parts are dense, never a grid over a wide span."""

from __future__ import annotations

import tracemalloc

import numpy as np

from mathkit.laws.convolve import Mixing, mix
from mathkit.laws.law import WinLaw


def test_sparse_parts_over_a_wide_span_make_no_dense_grid() -> None:
    # fuzz case prince:197 (a bet of 1,000,000 coins): two branches' laws spanning 6.6e9 credits, a few values each;
    # the first part opened a dense grid over the whole span (49 GiB). Summed by hand: P(0) = 0.5·0.5,
    # P(10⁶) = 0.5·0.5 + 0.5·0.25, P(6.59e9) = 0.5·0.25, P(3e9) = 0.5·0.5.
    a = WinLaw(np.array([0, 10**6], dtype=np.int64), np.array([0.5, 0.5]))
    b = WinLaw(np.array([10**6, 3 * 10**9, 6_590_000_000], dtype=np.int64), np.array([0.25, 0.5, 0.25]))
    tracemalloc.start()
    m = Mixing()
    m.add(0.5, a)
    m.add(0.5, b)
    law = m.law()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20  # a few kB, not a grid
    assert law.values.tolist() == [0, 10**6, 3 * 10**9, 6_590_000_000]
    assert law.probs.tolist() == [0.25, 0.375, 0.25, 0.125]
    ref = mix([(0.5, a), (0.5, b)])
    assert ref.values.tolist() == law.values.tolist() and ref.probs.tolist() == law.probs.tolist()


def test_dense_parts_still_sum_on_the_grid() -> None:
    a = WinLaw(np.arange(0, 100, dtype=np.int64), np.full(100, 0.01))
    b = WinLaw(np.arange(50, 150, dtype=np.int64), np.full(100, 0.01))
    m = Mixing()
    m.add(0.5, a)
    m.add(0.5, b)
    law = m.law()
    ref = mix([(0.5, a), (0.5, b)])
    assert law.values.tolist() == ref.values.tolist() and np.allclose(law.probs, ref.probs, rtol=0, atol=1e-16)
