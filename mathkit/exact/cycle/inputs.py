"""The kernels' inputs, in plain numpy: per-reel arrays from stop tables, and the tables the kernels share.

Nothing here is compiled, so the enumeration drivers (:mod:`.lines`, :mod:`.ways`)
prepare their inputs without importing numba; the compiled kernels come from
:mod:`.kernels` (ahead-of-time compiled when built, just-in-time otherwise).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ...laws.law import merge
from ...spin.stops import StopTables

__all__ = ["FinishTables", "alphabets", "bases", "key_histogram", "line_codes", "settled_heads", "split_point",
           "stop_codes"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def alphabets(st: StopTables) -> tuple[IntArray, IntArray, IntArray]:
    """Per reel: its alphabet, the alphabet's size, and each stop's rows as local indices."""
    n_reels = st.n_reels
    # with return_inverse np.unique skips its masked-array check, which would import numpy.ma (~20 ms of a one-shot par)
    uniq = [np.unique(c, return_inverse=True) for c in st.cols]
    alphs = [a for a, _ in uniq]
    amax = max(len(a) for a in alphs)
    alph = np.zeros((n_reels, amax), dtype=np.int64)
    alen = np.array([len(a) for a in alphs], dtype=np.int64)
    lmax = max(c.shape[0] for c in st.cols)
    rmax = int(st.rows.max())
    local = np.zeros((n_reels, lmax, rmax), dtype=np.int64)
    for r, (a, inverse) in enumerate(uniq):
        alph[r, : len(a)] = a
        cols = st.cols[r]
        local[r, : cols.shape[0], : cols.shape[1]] = inverse.reshape(cols.shape)
    return alph, alen, local


def stop_codes(st: StopTables) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per reel, padded to the longest: stop count, weights, packed observation codes, extra wins."""
    n_reels = st.n_reels
    lens = np.array([len(w) for w in st.weights], dtype=np.int64)
    lmax = int(lens.max())
    weights = np.zeros((n_reels, lmax), dtype=np.int64)
    scode = np.zeros((n_reels, lmax), dtype=np.int64)
    xw = np.zeros((n_reels, lmax), dtype=np.int64)
    for r in range(n_reels):
        weights[r, : lens[r]] = st.weights[r]
        scode[r, : lens[r]] = st.codes(r)
        xw[r, : lens[r]] = st.extra[r]
    return lens, weights, scode, xw


def split_point(n_reels: int) -> int:
    """Number of prefix reels: the larger half."""
    return n_reels - n_reels // 2


def line_codes(lines: IntArray, local: IntArray, aradix: IntArray) -> IntArray:
    """``lc[d, i, l]``: contribution of reel ``d`` stopped at ``i`` to line ``l``'s sequence code."""
    n_reels, lmax, _ = local.shape
    lc = np.zeros((n_reels, lmax, max(lines.shape[0], 1)), dtype=np.int64)
    for d in range(n_reels):
        if lines.shape[0]:
            lc[d, :, : lines.shape[0]] = local[d][:, lines[:, d]] * aradix[d]
    return lc


def settled_heads(pclass: IntArray, pdead: IntArray, n_head_codes: int) -> tuple[BoolArray, IntArray]:
    """Per head sequence code: is the line dead after the prefix whatever the last reel shows, and with which win.

    ``pclass[p]``/``pdead[p]`` for prefix sequence ``p = head code + n_head_codes · last symbol``.
    """
    cls = pclass.reshape(-1, n_head_codes)
    dead = pdead.reshape(-1, n_head_codes)
    settled = (cls == 0).all(axis=0) & (dead == dead[:1]).all(axis=0)
    return settled, np.where(settled, dead[0], 0).astype(np.int64)


class FinishTables(NamedTuple):
    """The suffix as the combine step reads it (all arrays; see the module docstring).

    ``base[c]``, ``flat[c, s]``; per (line, class) the middle-reel stops where it goes on
    (``tptr``/``tidx``) and the histogram it finishes with there (``thist``); per (pattern, class, symbol) a histogram ``pkey``/``pw`` in
    ``pptr[pidx[...]]:pptr[pidx[...] + 1]`` with keys ``(win - base) · n_codes + rest key``;
    the middle reel's stop weights ``wm``, keys ``keym`` (extra win · n_codes + code) and their
    distinct values ``mk`` (``kmidx[i]``: the index of stop ``i``'s) with weights ``hm``; the rest's
    combinations (weights ``rwt``, keys ``rkey``, per-line sequence codes ``rseq``) and distinct keys
    ``rk`` with weights ``rw``; each line's pattern ``rho``.
    """

    base: IntArray
    flat: BoolArray
    tptr: IntArray
    tidx: IntArray
    thist: IntArray
    rho: IntArray
    pidx: IntArray
    pptr: IntArray
    pkey: IntArray
    pw: IntArray
    d0: IntArray
    eptr: IntArray
    ej: IntArray
    ed: IntArray
    wm: IntArray
    keym: IntArray
    kmidx: IntArray
    mk: IntArray
    hm: IntArray
    rwt: IntArray
    rkey: IntArray
    rkidx: IntArray
    rseq: IntArray
    rk: IntArray
    rw: IntArray


def bases(finc: IntArray, a_mid: int) -> tuple[IntArray, BoolArray]:
    """Each class's base value and which middle-reel symbols leave it there whatever follows.

    ``finc[c, q]`` with ``q = s + a_mid · rest`` (the middle reel's digit first).  The base is the
    commonest value among the symbols after which the win no longer depends on the rest reels.
    """
    n_cls = finc.shape[0]
    f = finc.reshape(n_cls, -1, a_mid)
    const = (f == f[:, :1, :]).all(axis=1)
    value = f[:, 0, :]
    # per class: how many such symbols share each one's value; the commonest value, the smallest on a tie
    counts = np.where(const, ((value[:, :, None] == value[:, None, :]) & const[:, None, :]).sum(axis=2), 0)
    best = counts.max(axis=1, initial=0)
    top = const & (counts == best[:, None])
    base = np.where(best > 0, np.where(top, value, np.iinfo(np.int64).max).min(axis=1, initial=np.iinfo(np.int64).max),
                    0).astype(np.int64)
    return base, const & (value == base[:, None])


def key_histogram(keys: IntArray, weights: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Distinct keys, the index of each element's key, and the weight of each distinct key."""
    uniq, hist, inv = merge(keys, np.asarray(weights, dtype=np.int64))
    return uniq.astype(np.int64), inv.astype(np.int64), hist
