"""Any Stake Engine lookup table read as a win distribution (``mathkit import-lut``).

A lookup table (``id,weight,payoutMultiplier`` per line, no header, plain unsigned integers; the
payout is the win × 100 in base bets, and a mode costs ``cost`` base bets) is a finite win
distribution: P(payout) is its weight over the total.  :func:`read_lut` reads it exactly — the RTP and σ are Fractions of the
integers — into a :class:`~mathkit.laws.law.WinLaw` in credits of a 100-credit bet (× ``cost``), so
every figure that takes a distribution reads it: the win bands and exceedance curve
(:mod:`mathkit.laws.volatility`) and the player's sessions (:mod:`mathkit.sessions`, through
``mathkit.import_lut`` and the command line).

A table whose weight total exceeds the int64 range of a law's counts (it may reach 2⁶⁴ − 1) keeps
its exact RTP and σ in :class:`LutLaw` and hands the other figures float probabilities.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..errors import GameError, located
from ..laws.law import WinLaw

__all__ = ["LutLaw", "lut_law", "read_lut"]

_UINT = re.compile(r"\A(0|[1-9][0-9]*)\Z")
_INT64 = 2**63 - 1


@dataclass(frozen=True)
class LutLaw:
    """A lookup table as a distribution: the law, its exact RTP and σ (per unit of cost), rows and total weight."""

    law: WinLaw
    rtp: Fraction
    variance: Fraction
    rows: int
    total_weight: int
    cost: Fraction

    @property
    def sd(self) -> float:
        """σ of the win per unit of the mode's cost."""
        return math.sqrt(self.variance)


def lut_law(rows: list[tuple[int, int]], *, cost: Fraction | int = 1) -> LutLaw:
    """The distribution of ``(weight, payout)`` rows (payout × 100 in base bets, the mode costing ``cost`` of them).

    Examples
    --------
    >>> t = lut_law([(3, 0), (1, 200), (1, 200), (1, 1000)])
    >>> t.rtp, t.law.values.tolist(), t.law.counts.tolist(), t.law.unit
    (Fraction(7, 3), [0, 200, 1000], [3, 2, 1], 100)
    """
    cost = Fraction(cost)
    acc: dict[int, int] = {}
    for w, p in rows:
        if w:
            acc[p] = acc.get(p, 0) + w
    if not acc:
        msg = "every weight is 0"
        raise GameError(msg, field="weights", fix="give at least one row a positive weight")
    values = sorted(acc)
    weights = [acc[v] for v in values]
    total = sum(weights)
    mean = Fraction(sum(v * w for v, w in zip(values, weights, strict=True)), total * 100)
    second = Fraction(sum(v * v * w for v, w in zip(values, weights, strict=True)), total * 10_000)
    g = 0
    for w in weights:
        g = math.gcd(g, w)
    reduced = [w // g for w in weights]
    # credits of a bet: 100 per unit of cost (a whole number of credits when cost is)
    unit = cost.numerator * 100 if cost.denominator == 1 else 100
    scale = cost.denominator if cost.denominator != 1 else 1
    credits = [v * scale for v in values]
    if sum(reduced) <= _INT64 and max(credits) <= _INT64:
        law = WinLaw.from_counts(credits, reduced, unit=unit)
    else:
        tot = sum(reduced)
        law = WinLaw.from_probs(credits, [w / tot for w in reduced], unit=unit, method="exact")
    return LutLaw(law, mean / cost, (second - mean * mean) / (cost * cost), len(rows), total, cost)


def read_lut(path: str | Path, *, cost: Fraction | int = 1) -> LutLaw:
    """Read the lookup table at ``path`` (every line ``id,weight,payout``); errors name the file and line.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("1,6,0\\n2,2,100\\n3,1,250\\n4,1,1000\\n")
    >>> read_lut(p).rtp
    Fraction(29, 20)
    """
    where = str(path)
    try:
        text = Path(path).read_text(encoding="ascii")
    except UnicodeDecodeError as exc:
        msg = "not plain ASCII text"
        raise GameError(msg, field=where, fix="a lookup table holds digits and commas only") from exc
    except OSError as exc:
        msg = f"cannot read the lookup table ({exc.strerror or exc})"
        raise GameError(msg, field=where, fix="give an existing CSV file") from exc
    rows: list[tuple[int, int]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not all(_UINT.match(p) for p in parts):
            msg = f"line {n}: {line[:60]!r} is not id,weight,payoutMultiplier (three unsigned integers)"
            raise GameError(msg, field=where, fix="a Stake lookup table has no header and plain integers only")
        _, w, p = (int(x) for x in parts)
        if w >= 2**64 or p >= 2**64:
            msg = f"line {n}: a value above the uint64 range"
            raise GameError(msg, field=where, fix="weights and payouts are uint64")
        rows.append((w, p))
    if not rows:
        msg = "no rows"
        raise GameError(msg, field=where, fix="give a lookup table with at least one row")
    with located(path=where):
        return lut_law(rows, cost=cost)
