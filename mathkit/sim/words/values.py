"""The words of :mod:`mathkit.play.values`: constants, registers, look-ups, draws and arithmetic.

Each value op writes ``vals[a]``; its operands were computed before it, into the slots its fields name.

Examples
--------
>>> [op.name for op in OPS][:3]
['V_CONST', 'V_REG', 'V_BITS']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...errors import ModelError
from ...play.values import Bits, Const, Lookup, Max, Min, Pick, Product, Random, Reg, Sum, Value, Without
from ...play.window import Count
from .base import REFILL, IntArray, Op, StaticCounts, ValueWord, snippet

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..program import Builder

__all__ = ["CONST", "LOOKCOUNT", "OPS", "WORDS"]

CONST = Op("V_CONST", "vals[a] = b", "vals[a] = ib")
REG = Op("V_REG", "vals[a] = R[b]", "vals[a] = R[ib]")
BITS = Op("V_BITS", "vals[a] = popcount(vals[b])", """
    y = vals[ib]
    x = 0
    while y != 0:
        y &= y - 1
        x += 1
    vals[a] = x
""")
LOOKUP = Op("V_LOOKUP", "vals[a] = tab[c + clamp(vals[b], d)]", """
    j = vals[ib]
    vals[a] = tab[ic + (0 if j < 0 else (idd - 1 if j >= idd else j))]
""")
LOOKCOUNT = Op("V_LOOKCOUNT", "vals[a] = tab[d + clamp((code // b) % c, e)]: a table keyed by a count", """
    j = (c // ib) % ic
    vals[a] = tab[idd + (ie - 1 if j >= ie else j)]
""", digit=True)
RANDOM = Op("V_RANDOM", "vals[a] = a draw from the law at tab[tab[c + clamp(vals[b] (e: R[b]), d)]] (b < 0: the first)",
            snippet("""
    j = 0
    if ib >= 0:
        j = R[ib] if ie != 0 else vals[ib]
        j = 0 if j < 0 else (idd - 1 if j >= idd else j)
    off = tab[ic + j]
    n = tab[off]
    """, REFILL, """
    free_h, u = _lemire(free_buf, free_h, np.uint64(tab[off + 1]))
    j = 0
    while tab[off + 2 + n + j] <= u:
        j += 1
    vals[a] = tab[off + 2 + j]
    """))
PICK = Op("V_PICK", "vals[a] = vals[c] distinct cells of the mask vals[b], drawn from the feature stream", snippet("""
    y = vals[ib]
    x = 0
    for _ in range(vals[ic]):
        n = 0
        m = y
        while m != 0:
            m &= m - 1
            n += 1
        if n == 0:
            break
    """, (REFILL, 4), """
        free_h, u = _lemire(free_buf, free_h, np.uint64(n))
        m = y
        for _ in range(u):
            m &= m - 1
        low = m & -m
        x |= low
        y ^= low
    vals[a] = x
"""))
SUM = Op("V_SUM", "vals[a] = vals[b] + vals[c]", "vals[a] = vals[ib] + vals[ic]")
MIN = Op("V_MIN", "vals[a] = min(vals[b], vals[c])", "vals[a] = min(vals[ib], vals[ic])")
MAX = Op("V_MAX", "vals[a] = max(vals[b], vals[c])", "vals[a] = max(vals[ib], vals[ic])")
WITHOUT = Op("V_WITHOUT", "vals[a] = vals[b] & ~vals[c]", "vals[a] = vals[ib] & ~vals[ic]")
PRODUCT = Op("V_PRODUCT", "vals[a] = vals[b] × vals[c]", "vals[a] = vals[ib] * vals[ic]")

OPS = (CONST, REG, BITS, LOOKUP, LOOKCOUNT, RANDOM, SUM, MIN, MAX, WITHOUT, PICK, PRODUCT)
"""The family's instructions, in the order the driver tests them."""

def _const(b: Builder, v: Const, scope: str, where: str) -> int:
    return b.op(CONST, v.value)


def _reg(b: Builder, v: Reg, scope: str, where: str) -> int:
    return b.op(REG, b.reg(scope, v.feature, v.name, where))


def _bits(b: Builder, v: Bits, scope: str, where: str) -> int:
    return b.op(BITS, b.value(v.of, scope, where))


def _lookup(b: Builder, v: Lookup, scope: str, where: str) -> int:
    if not v.table:
        msg = f"{where}: an empty look-up table"
        raise ModelError(msg)
    if isinstance(v.of, Count):  # fused: a table keyed by a count (its digit completed by finish())
        digit = b.digit(b.symbols(v.of.symbols, where))
        return b.op(LOOKCOUNT, digit, 0, b.table(v.table), len(v.table))
    of = b.value(v.of, scope, where)
    return b.op(LOOKUP, of, b.table(v.table), len(v.table))


def _random(b: Builder, v: Random, scope: str, where: str) -> int:
    by_reg = isinstance(v.key, Reg)  # fused: a law keyed by a register
    if isinstance(v.key, Reg):
        key = b.reg(scope, v.key.feature, v.key.name, where)
    else:
        key = -1 if v.key is None else b.value(v.key, scope, where)
    if not v.laws:
        msg = f"{where}: a random value needs a law"
        raise ModelError(msg)
    laws = [b.law(law.values, law.weights, where) for law in v.laws]
    return b.op(RANDOM, key, b.table(laws), len(laws), int(by_reg))


def _pick(b: Builder, v: Pick, scope: str, where: str) -> int:
    cells = b.value(v.cells, scope, where)
    return b.op(PICK, cells, b.value(v.count, scope, where))


def _sum(b: Builder, v: Sum, scope: str, where: str) -> int:
    total = b.value(v.terms[0], scope, where) if v.terms else b.value(Const(0), scope, where)
    for t in v.terms[1:]:
        total = b.op(SUM, total, b.value(t, scope, where))
    return total


def _pair(op: Op) -> Callable[[Builder, Min | Max | Without | Product, str, str], int]:
    def compile_pair(b: Builder, v: Min | Max | Without | Product, scope: str, where: str) -> int:
        x = b.value(v.a, scope, where)
        return b.op(op, x, b.value(v.b, scope, where))

    return compile_pair


def _static_const(v: Const, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    return np.full(s.n, v.value, dtype=np.int64)


def _static_lookup(v: Lookup, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    table = np.array(v.table, dtype=np.int64)
    out: IntArray = table[np.clip(value_of(v.of), 0, len(table) - 1)]
    return out


def _static_sum(v: Sum, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    return sum((value_of(t) for t in v.terms), np.zeros(s.n, dtype=np.int64))


def _static_min(v: Min, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    return np.minimum(value_of(v.a), value_of(v.b))


def _static_max(v: Max, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    return np.maximum(value_of(v.a), value_of(v.b))


WORDS = (
    ValueWord(Const, (CONST,), _const, _static_const),
    ValueWord(Reg, (REG,), _reg),
    ValueWord(Bits, (BITS,), _bits),
    ValueWord(Lookup, (LOOKUP, LOOKCOUNT), _lookup, _static_lookup),
    ValueWord(Random, (RANDOM,), _random),
    ValueWord(Pick, (PICK,), _pick),
    ValueWord(Sum, (SUM,), _sum, _static_sum),
    ValueWord(Min, (MIN,), _pair(MIN), _static_min),
    ValueWord(Max, (MAX,), _pair(MAX), _static_max),
    ValueWord(Without, (WITHOUT,), _pair(WITHOUT)),
    ValueWord(Product, (PRODUCT,), _pair(PRODUCT)),
)
"""The family's words."""
