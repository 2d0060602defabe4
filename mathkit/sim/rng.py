"""Random streams in compiled code: numpy's PCG64 and SFC64 continued, and its unbiased stop draw.

A block of plays owns two ``numpy.random.PCG64`` (or ``SFC64``) bit generators,
one for base spins and one for everything the round's features draw (see
:mod:`mathkit.sim.cluster`).
The kernel continues each generator's exact state in compiled code and draws
every stop with numpy's unbiased Lemire draw on 32-bit words, exactly as
``Generator.integers(0, m, dtype=numpy.uint32)`` does: each base spin draws,
from the base generator, its variant (only when a modifier makes several, ``m``
= their total weight) and then its stops reel by reel (``m`` = strip length, or
the reel's total weight for virtual stops, mapped to a stop through the
cumulative weights) — on a game without modifiers the stops of base spin ``j``
are calls ``5j .. 5j + 4`` (on 5 reels); features take every draw (their spins'
stops reel by reel, their random values) in play order from the other.  The tests replay both streams with numpy and
:func:`~mathkit.spin.evaluate.evaluate` and get the same win for every play.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba.core import types
from numba.extending import intrinsic

from ..errors import ArgumentTypeError
from .layout import (
    _M32,
    _ONE,
    _PCG_MH,
    _PCG_ML,
    _ZERO,
    KIND_PCG64,
    KIND_SFC64,
    STOP_DIRECT,
    STOP_TABLE,
    IntArray,
    UIntArray,
)

__all__ = ["generator_state"]


def generator_state(bit_generator: np.random.BitGenerator) -> tuple[int, UIntArray]:
    """``(kind, state)`` of a PCG64 or SFC64 bit generator, in the form the kernels continue.

    The state holds four 64-bit words and numpy's buffered half word (``has_uint32``, ``uinteger``).
    """
    s = bit_generator.state
    half = np.array([s["has_uint32"], s["uinteger"]], dtype=np.uint64)
    if s["bit_generator"] == "PCG64":
        mask = (1 << 64) - 1
        st, inc = int(s["state"]["state"]), int(s["state"]["inc"])
        words = np.array([st & mask, st >> 64, inc & mask, inc >> 64], dtype=np.uint64)
        return KIND_PCG64, np.concatenate([words, half])
    if s["bit_generator"] == "SFC64":
        return KIND_SFC64, np.concatenate([np.asarray(s["state"]["state"], dtype=np.uint64), half])
    msg = f"the simulator continues PCG64 or SFC64 streams, not {s['bit_generator']}"
    raise ArgumentTypeError(msg)


@intrinsic
def _umulhi(typingctx: object, a: object, b: object) -> object:  # pragma: no cover - compiled
    """High 64 bits of the 128-bit product of two uint64 (one machine instruction)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list[ir.Value]) -> ir.Value:
        wide = ir.IntType(128)
        prod = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(prod, ir.Constant(wide, 64)), ir.IntType(64))

    return sig, codegen


@nb.njit(inline="always")
def _next64(g: tuple, kind: int) -> tuple:  # pragma: no cover - compiled
    """One 64-bit output of numpy's PCG64 (XSL-RR) or SFC64; returns ``(word, state)``."""
    s0, s1, s2, s3, has, half = g
    if kind == KIND_PCG64:
        lo = s0 * _PCG_ML + s2
        hi = _umulhi(s0, _PCG_ML) + s1 * _PCG_ML + s0 * _PCG_MH + s3 + (_ONE if lo < s2 else _ZERO)  # type: ignore[call-arg]
        x = hi ^ lo
        rot = hi >> np.uint64(58)
        return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63))), (lo, hi, s2, s3, has, half)
    tmp = s0 + s1 + s3
    c = ((s2 << np.uint64(24)) | (s2 >> np.uint64(40))) + tmp
    return tmp, (s1 ^ (s1 >> np.uint64(11)), s2 + (s2 << np.uint64(3)), c, s3 + _ONE, has, half)


@nb.njit(cache=True, nogil=True)
def _fill(buf: UIntArray, n: int, gen: UIntArray, kind: int) -> int:  # pragma: no cover - compiled
    """Fill ``buf[n:]`` with 32-bit halves of the generator ``gen`` (advanced), low half first.

    A function of its own, called once per buffer: the loop keeps the state in registers.
    """
    g = (gen[0], gen[1], gen[2], gen[3], _ZERO, _ZERO)
    while n + 2 <= buf.shape[0]:
        word, g = _next64(g, kind)
        buf[n] = word & _M32
        buf[n + 1] = word >> np.uint64(32)
        n += 2
    for j in range(4):
        gen[j] = g[j]
    return n


@nb.njit(inline="always")
def _lemire(buf: UIntArray, h: int, m: np.uint64) -> tuple:  # pragma: no cover - compiled
    """numpy's unbiased Lemire draw of ``u < m`` on 32-bit halves ``buf[h:]``; returns ``(next h, u)``."""
    if m == _ONE:  # numpy draws nothing for a single value
        return h, np.int64(0)
    prod = buf[h] * m
    h += 1
    if prod & _M32 < m:
        threshold = (_M32 - (m - _ONE)) % m
        while prod & _M32 < threshold:
            prod = buf[h] * m
            h += 1
    return h, np.int64(prod >> np.uint64(32))


@nb.njit(inline="always")
def _draw(buf: UIntArray, h: int, k: int, mod: UIntArray, mode: IntArray, lut: IntArray, cum: IntArray,
          word: IntArray, stops: IntArray, dst: int) -> tuple:  # pragma: no cover - compiled
    """Draw one spin's stops on spin model ``k`` from the halves ``buf[h:]`` into ``stops[dst]``.

    numpy's Lemire draw for ``uint32`` on each reel; returns ``(next h, sum of the stops' words)``.
    """
    c = 0
    for r in range(mod.shape[1]):
        h, u = _lemire(buf, h, mod[k, r])
        how = mode[k, r]
        if how != STOP_DIRECT:
            if how == STOP_TABLE:
                u = lut[k, r, u]
            else:  # the first stop whose cumulative weight exceeds u
                lo = np.int64(0)
                hi = np.int64(cum.shape[2] - 1)
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if cum[k, r, mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                u = lo
        stops[dst, r] = u
        c += word[k, r, u]
    return h, c


@nb.njit(inline="always")
def _refill(buf: UIntArray, h: int, n: int, gen: UIntArray, kind: int) -> tuple:  # pragma: no cover - compiled
    """Move the unread halves ``buf[h:n]`` to the front and fill up; returns ``(0, new n)``."""
    buf[: n - h] = buf[h:n]
    return 0, _fill(buf, n - h, gen, kind)
