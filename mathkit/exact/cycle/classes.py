"""Line state classes: which prefix sequences behave alike, and how each class finishes."""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from ...spin.evaluate import WILD_BIT, line_win

IntArray = npt.NDArray[np.int64]


@nb.njit(cache=True)
def _prefix_states_table(alph: IntArray, alen: IntArray, k: int, match: npt.NDArray[np.bool_], pay: IntArray,
                         own: IntArray, mult: IntArray) -> IntArray:  # pragma: no cover
    """State of a line after each prefix sequence: (alive-entries bitmask, multiplier, best dead win, plain).

    ``plain``: the prefix holds a symbol that is not a marked wild (:data:`~mathkit.spin.evaluate.WILD_BIT`).

    Two prefixes with the same state pay the same whatever follows: entries
    still alive have run ``k`` and multiplier ``m`` so far, the dead ones are
    worth at most ``best``.  Needs at most 62 pay entries.
    """
    n_p = 1
    for d in range(k):
        n_p *= alen[d]
    n_entries = match.shape[0]
    out = np.empty((n_p, 4), dtype=np.int64)
    seq = np.empty(k, dtype=np.int64)
    for p in range(n_p):
        x = p
        for d in range(k):
            seq[d] = alph[d, x % alen[d]]
            x //= alen[d]
        alive = np.int64(0)
        best = 0
        m_all = 1
        any_plain = 0
        for e in range(n_entries):
            n = 0
            m = 1
            plain = False
            for d in range(k):
                s = seq[d]
                if not match[e, s]:
                    break
                n += 1
                f = mult[s]
                if f >= WILD_BIT:  # a marked wild (mathkit.spin.evaluate.line_win)
                    f -= WILD_BIT
                elif f <= -WILD_BIT:
                    f += WILD_BIT
                else:
                    plain = True
                if f < 0:  # a factor that does not stack: the largest so far (mathkit.spin.evaluate.line_win)
                    m = max(m, -f)
                else:
                    m *= f
            if n == k:
                alive |= np.int64(1) << np.int64(e)
                m_all = m
                any_plain = 1 if plain else 0
            else:
                v = pay[e, n]
                if not plain and (own[e] & 2) == 0:
                    v = 0
                if v > 0 and (own[e] & 1) == 0:
                    v *= m
                best = max(best, v)
        out[p, 0] = alive
        out[p, 1] = m_all if alive != 0 else 0
        out[p, 2] = best
        out[p, 3] = any_plain if alive != 0 else 0
    return out


@nb.njit(cache=True)
def _finish_table(reps: IntArray, alph: IntArray, alen: IntArray, k: int, match: npt.NDArray[np.bool_],
                  pay: IntArray, own: IntArray, mult: IntArray) -> IntArray:  # pragma: no cover
    """``fin[c, q]``: line win of class representative ``reps[c]`` followed by suffix sequence ``q``."""
    n_reels = alen.shape[0]
    n_q = 1
    for d in range(k, n_reels):
        n_q *= alen[d]
    fin = np.empty((reps.shape[0], n_q), dtype=np.int64)
    seq = np.empty(n_reels, dtype=np.int64)
    for c in range(reps.shape[0]):
        x = reps[c]
        for d in range(k):
            seq[d] = alph[d, x % alen[d]]
            x //= alen[d]
        for q in range(n_q):
            y = q
            for d in range(k, n_reels):
                seq[d] = alph[d, y % alen[d]]
                y //= alen[d]
            fin[c, q] = line_win(seq, match, pay, own, mult)[0]
    return fin
