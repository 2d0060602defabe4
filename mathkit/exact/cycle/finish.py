"""How an alive line finishes over the suffix: tabulated once per (line pattern, class, symbol on the middle reel).

The suffix reels are the *middle* reel ``k`` (the first reel after the prefix)
and the *rest* ``k+1..R-1``.  A line alive after the prefix in class ``c`` that
shows symbol ``s`` on the middle reel either

* pays its class's **base** value ``base[c]`` whatever the rest shows (it
  breaks on the middle reel, or nothing it can still reach pays more): the
  pair ``(c, s)`` is *flat*; or
* goes on: its win over the rest reels is a small histogram, keyed by the win
  above the base and the rest's observation key, that depends only on ``c``,
  ``s`` and the rows the line reads on the rest reels (its *pattern*).

So a prefix group only does work on the middle-reel stops where one of its
alive lines goes on (:func:`mathkit.exact.cycle.combine._group_hist`); every other
stop adds the rest's key histogram shifted by the sum of the bases.  The
tables here are small: patterns × classes × middle-reel symbols histograms of
at most one entry per rest combination.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from .passes import _reduce

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@nb.njit(cache=True)
def _touched(flat: BoolArray, sym: IntArray, rho: IntArray, pidx: IntArray,
             n_mid: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """Per (line, class): the middle-reel stops where the line goes on, and the histogram it finishes with there.

    ``sym[l, i]``: the symbol line ``l`` reads at stop ``i``; ``pidx[rho[l], c, s]``: the histogram.
    """
    n_lines = sym.shape[0]
    n_cls = flat.shape[0]
    tptr = np.zeros((n_lines, n_cls + 1), dtype=np.int64)
    total = 0
    for li in range(n_lines):
        for c in range(n_cls):
            tptr[li, c] = total
            for i in range(n_mid):
                if not flat[c, sym[li, i]]:
                    total += 1
        tptr[li, n_cls] = total
    tidx = np.empty(total, dtype=np.int64)
    thist = np.empty(total, dtype=np.int64)
    t = 0
    for li in range(n_lines):
        for c in range(n_cls):
            for i in range(n_mid):
                s = sym[li, i]
                if not flat[c, s]:
                    tidx[t] = i
                    thist[t] = pidx[rho[li], c, s]
                    t += 1
    return tptr, tidx, thist


@nb.njit(cache=True)
def _histograms(finc: IntArray, base: IntArray, flat: BoolArray, reps: IntArray, rseq: IntArray, rkey: IntArray,
                rwt: IntArray, n_codes: int) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray,
                                                      IntArray, IntArray]:  # pragma: no cover
    """Per (pattern, class, symbol) not flat: how the line finishes over the rest combinations.

    Two forms of the same law: the histogram of ``(win - base) · n_codes + rest key`` (``pkey``,
    ``pw`` at ``pptr``), and the commonest ``win - base`` (``d0``) with the rest combinations
    where the line pays otherwise (``ej``, ``ed``: the difference, at ``eptr``).
    """
    n_pat = reps.shape[0]
    n_cls, a_mid = flat.shape
    n_rest = rkey.shape[0]
    pidx = np.full((n_pat, n_cls, a_mid), -1, dtype=np.int64)
    n_hist = 0
    for r in range(n_pat):
        for c in range(n_cls):
            for s in range(a_mid):
                if not flat[c, s]:
                    pidx[r, c, s] = n_hist
                    n_hist += 1
    pptr = np.zeros(n_hist + 1, dtype=np.int64)
    pkey = np.empty(n_hist * n_rest, dtype=np.int64)
    pw = np.empty(n_hist * n_rest, dtype=np.int64)
    d0 = np.zeros(n_hist, dtype=np.int64)
    eptr = np.zeros(n_hist + 1, dtype=np.int64)
    ej = np.empty(n_hist * n_rest, dtype=np.int64)
    ed = np.empty(n_hist * n_rest, dtype=np.int64)
    keys = np.empty(n_rest, dtype=np.int64)
    delta = np.empty(n_rest, dtype=np.int64)
    n = 0
    ne = 0
    for r in range(n_pat):
        col = rseq[:, reps[r]]
        for c in range(n_cls):
            row = finc[c]
            b = base[c]
            for s in range(a_mid):
                h = pidx[r, c, s]
                if h < 0:
                    continue
                for j in range(n_rest):
                    delta[j] = row[s + col[j]] - b
                    keys[j] = delta[j] * n_codes + rkey[j]
                uk, uv = _reduce(keys, rwt)
                pkey[n: n + uk.shape[0]] = uk
                pw[n: n + uk.shape[0]] = uv
                n += uk.shape[0]
                pptr[h + 1] = n
                srt = np.sort(delta)
                best = srt[0]
                best_n = 0
                run = 0
                for t in range(n_rest):
                    run = run + 1 if t > 0 and srt[t] == srt[t - 1] else 1
                    if run > best_n:
                        best_n = run
                        best = srt[t]
                d0[h] = best
                for j in range(n_rest):
                    if delta[j] != best:
                        ej[ne] = j
                        ed[ne] = delta[j] - best
                        ne += 1
                eptr[h + 1] = ne
    return pidx, pptr, pkey[:n], pw[:n], d0, eptr, ej[:ne], ed[:ne]
