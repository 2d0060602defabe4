"""The lines driver's plan: everything of an enumeration that is not the prefix pass and the combine, kept between calls.

Before it enumerates, the lines driver (:mod:`.lines`) prepares the line
classes after the prefix (:mod:`.classes`), the head classes of the prefix
(:mod:`.prefix`) and the finishing tables of the suffix (:mod:`.finish`): a few
milliseconds of numpy and small kernels, all on one thread, that depend only on
the pay tables and the stop tables.  A caller that enumerates the same game
again (a PAR sheet's figures, a workbench recomputing after an edit elsewhere,
a benchmark) reuses them: :func:`line_plan` keeps the last few plans, keyed by
a digest of every array they are made from (so an array edited in place makes
a new plan), and the kernel mode (each build of the kernels makes its own).

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> from mathkit.laws.stage import SpinModel
>>> from mathkit.spin.stops import stop_tables
>>> from mathkit.spin.tables import pay_tables
>>> g = load_game("data/games/classic_3reel.toml")
>>> t, st = pay_tables(g), stop_tables(g, SpinModel("base"))
>>> line_plan(t, st) is line_plan(t, st)
True
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ...spin.stops import StopTables
from ...spin.tables import PayTables
from .inputs import FinishTables, alphabets, bases, key_histogram, line_codes, settled_heads, split_point, stop_codes
from .kernels import K

__all__ = ["KEEP", "LinePlan", "clear", "line_plan"]

IntArray = npt.NDArray[np.int64]

#: plans kept (the most recently used), and the most bytes one may hold to be kept
KEEP = 8
KEEP_BYTES = 16 << 20

_plans: OrderedDict[bytes, LinePlan] = OrderedDict()
_lock = threading.Lock()  # the workbench computes on threads


class LinePlan(NamedTuple):
    """The prepared inputs of the prefix pass and the combine (see :func:`mathkit.exact.cycle.lines.joint_counts`)."""

    k: int
    n_codes: int
    pclass: IntArray
    pdead: IntArray
    finmax: IntArray
    head: tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]
    last: tuple[IntArray, IntArray, IntArray, IntArray]
    ft: FinishTables
    sx_max: int
    nbytes: int


ENTRY_WORD = 62
"""Pay entries per word of the prefix kernel's alive-entries bitmask (an int64; see :func:`prefix_states`)."""


def prefix_states(t: PayTables, alph: IntArray, alen: IntArray, k: int) -> IntArray:
    """Each prefix sequence's state: its alive-entries bitmask in words of :data:`ENTRY_WORD` entries, then the
    multiplier of the alive entries, the best dead win and whether the prefix holds a symbol that is not a marked
    wild (the kernel's ``plain``; two prefixes of one state pay alike whatever follows).

    Up to :data:`ENTRY_WORD` entries (every shipped game) this is the kernel's table as it is; a larger paytable
    runs the kernel once per word of entries and joins the words: the multiplier of the entries alive is one
    product over the prefix symbols, so any word with an alive entry gives it, and the best dead win is the
    largest over the words, and ``plain`` (set only while an entry is alive) is set when it is in any word.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.spin.tables import pay_tables
    >>> t = pay_tables(load_game("data/games/classic_3reel.toml"))
    >>> alph = np.arange(t.n_ids, dtype=np.int64)[None, :]
    >>> prefix_states(t, alph, np.array([t.n_ids]), 1).shape == (t.n_ids, 4)
    True
    """
    n = t.match.shape[0]
    if n <= ENTRY_WORD:
        states: IntArray = K.prefix_states_table(alph, alen, k, t.match, t.pay, t.own, t.mult)
        return states
    parts = [K.prefix_states_table(alph, alen, k, np.ascontiguousarray(t.match[lo:lo + ENTRY_WORD]),
                                   np.ascontiguousarray(t.pay[lo:lo + ENTRY_WORD]),
                                   np.ascontiguousarray(t.own[lo:lo + ENTRY_WORD]), t.mult)
             for lo in range(0, n, ENTRY_WORD)]
    words = [st[:, 0] for st in parts]
    mult = np.max([st[:, 1] for st in parts], axis=0)  # 0 in a word with no entry alive
    best = np.max([st[:, 2] for st in parts], axis=0)
    plain = np.max([st[:, 3] for st in parts], axis=0)
    return np.column_stack([*words, mult, best, plain]).astype(np.int64)


def line_classes(t: PayTables, alph: IntArray, alen: IntArray, k: int) -> tuple[IntArray, IntArray, IntArray]:
    """Prefix sequence -> class (0 = dead), dead win per prefix, and the finishing table per class."""
    states = prefix_states(t, alph, alen, k)
    alive = (states[:, :-3] != 0).any(axis=1)
    pclass = np.zeros(len(states), dtype=np.int64)
    pdead = np.where(alive, 0, states[:, -2])
    if alive.any():
        _uniq, first, inverse = np.unique(states[alive], axis=0, return_index=True, return_inverse=True)
        pclass[alive] = inverse.reshape(-1) + 1
        reps = np.flatnonzero(alive)[first]
        fin = K.finish_table(reps, alph, alen, k, t.match, t.pay, t.own, t.mult)
    else:
        fin = np.zeros((0, int(np.prod(alen[k:]))), dtype=np.int64)
    finc = np.vstack([np.zeros((1, fin.shape[1]), dtype=np.int64), fin])
    return pclass, pdead, finc


def finish_tables(finc: IntArray, a_mid: int, lines: IntArray, k: int, sym: IntArray,
                  mid: tuple[IntArray, IntArray], rest: tuple[IntArray, IntArray, IntArray, IntArray],
                  n_codes: int) -> FinishTables:
    """The finishing tables of the suffix (see :mod:`mathkit.exact.cycle.finish`).

    ``sym[l, i]``: the middle-reel symbol (local index) line ``l`` reads at stop ``i``; ``mid``: the
    middle reel's (weights, keys); ``rest``: the rest combinations' (weights, codes, extra wins,
    per-line sequence codes), as the side pass gives them.
    """
    base, flat = bases(finc, a_mid)
    wm, keym = mid
    rwt, rsc, rxs, rseq = rest
    n_lines = lines.shape[0]
    if n_lines:
        _pats, first, rho = np.unique(lines[:, k + 1:], axis=0, return_index=True, return_inverse=True)
        rho = rho.reshape(-1).astype(np.int64)
        reps = first.astype(np.int64)
    else:
        rho = np.zeros(0, dtype=np.int64)
        reps = np.zeros(0, dtype=np.int64)
    rkey = rxs * n_codes + rsc
    pidx, pptr, pkey, pw, d0, eptr, ej, ed = K.histograms(finc, base, flat, reps, np.ascontiguousarray(rseq), rkey,
                                                          rwt, n_codes)
    tptr, tidx, thist = K.touched(flat, sym, rho, pidx, len(wm))
    mk, kmidx, hm = key_histogram(keym, wm)
    rk, rkidx, rw = key_histogram(rkey, rwt)
    return FinishTables(base, flat, tptr, tidx, thist, rho, pidx, pptr, pkey, pw, d0, eptr, ej, ed, wm, keym, kmidx, mk, hm,
                        rwt, rkey, rkidx, np.ascontiguousarray(rseq), rk, rw)


def _digest(t: PayTables, st: StopTables) -> bytes:
    """A digest of every array and number a plan is made from, and the kernel mode."""
    arrays = [np.ascontiguousarray(a) for a in (t.match, t.pay, t.own, t.mult, t.lines, *st.cols, *st.weights, *st.obs,
                                                  *st.extra)]
    shapes = "|".join(f"{a.dtype.str}{a.shape}" for a in arrays)
    return hashlib.blake2b(b"".join([f"{K.mode}|{len(st.digits)}|{shapes}".encode(), *(a.tobytes() for a in arrays)]),
                           digest_size=20).digest()


def _build(t: PayTables, st: StopTables) -> LinePlan:
    n_reels = st.n_reels
    k = split_point(n_reels)
    alph, alen, local = alphabets(st)
    n_codes = st.n_codes
    lens, weights, scode, xw = stop_codes(st)
    aradix = np.ones(n_reels, dtype=np.int64)
    for d in range(1, n_reels):
        aradix[d] = 1 if d == k else aradix[d - 1] * alen[d - 1]
    pclass, pdead, finc = line_classes(t, alph, alen, k)
    n_lines = t.lines.shape[0]
    lc = line_codes(t.lines, local, aradix)
    # the prefix: head reels 0..k-2 (grouped into head classes), then the last prefix reel
    hwt, hsc, hxs, hseq = K.side_pass(0, k - 1, lens, lc, weights, scode, xw, n_lines)
    settled, sval = settled_heads(pclass, pdead, int(aradix[k - 1]))
    head = K.head_classes(hseq, hxs, hsc, hwt, settled, sval, n_codes)
    n_last = int(lens[k - 1])
    last = (weights[k - 1, :n_last].copy(), scode[k - 1, :n_last].copy(), xw[k - 1, :n_last].copy(),
            np.ascontiguousarray(lc[k - 1, :n_last]))
    # the suffix: the middle reel k, then the rest
    n_mid = int(lens[k])
    sym = np.ascontiguousarray(lc[k, :n_mid, :n_lines].T)
    mid = (weights[k, :n_mid].copy(), xw[k, :n_mid] * n_codes + scode[k, :n_mid])
    ft = finish_tables(finc, int(alen[k]), t.lines, k, sym, mid,
                       K.side_pass(k + 1, n_reels, lens, lc, weights, scode, xw, n_lines), n_codes)
    sx_max = int(xw[k, :n_mid].max(initial=0)) + int(ft.rkey.max(initial=0)) // n_codes
    arrays = (pclass, pdead, *head, *last, *ft)
    nbytes = sum(int(a.nbytes) for a in arrays)
    return LinePlan(k, n_codes, pclass, pdead, finc.max(axis=1), head, last, ft, sx_max, nbytes)


def line_plan(t: PayTables, st: StopTables) -> LinePlan:
    """The plan of enumerating ``st`` under ``t``: a kept one if the same inputs were planned lately."""
    key = _digest(t, st)
    with _lock:
        plan = _plans.get(key)
        if plan is not None:
            _plans.move_to_end(key)
            return plan
    plan = _build(t, st)
    if plan.nbytes <= KEEP_BYTES:
        with _lock:
            _plans[key] = plan
            while len(_plans) > KEEP:
                _plans.popitem(last=False)
    return plan


def clear() -> None:
    """Forget every kept plan."""
    with _lock:
        _plans.clear()
