"""``mathkit import-lut FILE.csv [--cost C] [--spins N] [--table 50x,100x,200x] [--json]``: a lookup table analysed.

Any Stake Engine lookup table (``id,weight,payoutMultiplier``, :mod:`mathkit.export.lut`) is read as
an exact win distribution: RTP and σ (Fractions of its integers), the volatility index, hit
frequency, the largest payout and its odds, the win bands, the exceedance curve and the player's
sessions from each bankroll of ``--table`` (exact on the bankroll lattice, :mod:`mathkit.sessions`).
:func:`lut_analysis` is the Python entry point (also ``mathkit.import_lut``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..chains.markov.session import MAX_SPINS, SessionLaw
from ..export.lut import LutLaw, read_lut
from ..laws.volatility import Band, exceedance_points, win_bands
from ..report.par import Z
from ..sessions.law import SessionPlay
from ..sessions.table import bankroll_table, table_rows
from .args import multiples_arg, ranged
from .exits import print_json

__all__ = ["LutAnalysis", "cli", "lut_analysis"]


@dataclass(frozen=True)
class LutAnalysis:
    """A lookup table's figures: its law, the win bands, the exceedance curve, the sessions."""

    path: str
    lut: LutLaw
    bands: tuple[Band, ...]
    exceedance: tuple[tuple[float, float], ...]
    sessions: tuple[SessionLaw, ...]
    spins: int

    @property
    def volatility_index(self) -> dict[str, float]:
        """z × σ at 90, 95 and 99% (per unit of cost), as the PAR sheet states it."""
        return {k: z * self.lut.sd for k, z in Z.items()}

    def to_dict(self) -> dict[str, Any]:
        law = self.lut.law
        hit = law.hit_frequency()
        return {
            "file": self.path, "rows": self.lut.rows, "distinct_payouts": len(law.values),
            "total_weight": str(self.lut.total_weight), "cost": float(self.lut.cost),
            "rtp": float(self.lut.rtp), "rtp_exact": f"{self.lut.rtp.numerator}/{self.lut.rtp.denominator}",
            "sd": self.lut.sd, "volatility_index": self.volatility_index, "hit_frequency": float(hit),
            "max_payout_x100": int(law.values[-1]), "p_max": float(law.p_max()),
            "win_bands": [{"band": b.label, "probability": float(b.probability),
                           "one_in": (1 / float(b.probability)) if b.probability else None,
                           "rtp": float(b.rtp), "share": float(b.share)} for b in self.bands],
            "exceedance": [{"x_bet": x, "p_at_least": p} for x, p in self.exceedance],
            "sessions": {"spins": self.spins, "table": [s.to_dict(curve=False) for s in self.sessions]},
        }

    def text(self) -> str:
        law = self.lut.law
        r = self.lut.rtp
        w = [f"{self.path}: {self.lut.rows:,} rows, {len(law.values):,} distinct payouts, total weight "
             f"{self.lut.total_weight:,}, cost {float(self.lut.cost):g} [exact]",
             f"  RTP {float(r):.9f} (= {r.numerator}/{r.denominator})" if r.denominator < 10**30 else
             f"  RTP {float(r):.9f}",
             f"  σ {self.lut.sd:.6f} × cost · volatility index " +
             ", ".join(f"{k} {v:.4f}" for k, v in self.volatility_index.items()),
             f"  hit frequency {float(law.hit_frequency()):.6f} · max payout {law.values[-1] / 100:,.2f}× "
             f"(1 in {1 / float(law.p_max()):,.6g})",
             "win bands (× bet):"]
        for b in self.bands:
            one = f"1 in {1 / float(b.probability):,.4g}" if b.probability else "never"
            w.append(f"  {b.label:<12} P {float(b.probability):.6e}  {one:<18} RTP {float(b.rtp):.6f}  "
                     f"share {float(b.share):.4f}")
        w.append("exceedance P(win ≥ x × bet): " + "  ".join(f"{x:g}: {p:.3e}" for x, p in self.exceedance[:: max(
            1, len(self.exceedance) // 12)]))
        w.append(f"sessions of {self.spins:,} spins:")
        w += ["  " + " | ".join(row) for row in table_rows(self.sessions)]
        return "\n".join(w) + "\n"


def lut_analysis(path: str | Path, *, cost: Fraction | int = 1, spins: int = 1000,
                 bankrolls: Sequence[int] = (50, 100, 200), points: int = 200) -> LutAnalysis:
    """The figures of the lookup table at ``path``: bands, exceedance (at most ``points``), sessions.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("1,6,0\\n2,2,100\\n3,1,250\\n4,1,1000\\n")
    >>> a = lut_analysis(p, spins=10, bankrolls=(5,))
    >>> a.lut.rtp, [b.label for b in a.bands if b.probability]
    (Fraction(29, 20), ['0', '(0, 1]', '(2, 5]', '(5, 10]'])
    """
    lut = read_lut(path, cost=cost)
    law = lut.law
    xs, ps = exceedance_points(law, points)
    play = SessionPlay(game=str(path), reels="lookup table", bet=int(law.unit), values=law.values,
                       probs=law.probs, lost_mass=0.0, method="exact")
    sessions = tuple(bankroll_table(play, spins, tuple(bankrolls)))
    return LutAnalysis(str(path), lut, tuple(win_bands(law)), tuple(zip(xs, ps, strict=True)), sessions, spins)


def _cost(text: str) -> Fraction:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        msg = f"{text!r} is not a number (the mode's cost in base bets, e.g. 1 or 100)"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 < value <= 10**6 or value.denominator > 100:
        msg = f"{text}: the cost must be above 0 and at most 1,000,000 base bets, in steps of at least 0.01"
        raise argparse.ArgumentTypeError(msg)
    return value


def cli(argv: list[str]) -> int:
    """Run ``mathkit import-lut``; the exit status."""
    p = argparse.ArgumentParser(prog="mathkit import-lut",
                                description="Read a Stake Engine lookup table as an exact win distribution.")
    p.add_argument("lut", type=Path, help="lookup table (id,weight,payoutMultiplier lines, no header)")
    p.add_argument("--cost", type=_cost, default=Fraction(1), help="the mode's cost in base bets (default 1)")
    p.add_argument("--spins", type=ranged(1, MAX_SPINS, f"spins: a session has at most {MAX_SPINS:,}"),
                   default=1000, help="spins of the sessions (default 1000)")
    p.add_argument("--table", type=multiples_arg(32), default=(50, 100, 200), metavar="MX[,MX...]",
                   help="session bankrolls (× bet; default 50x,100x,200x)")
    p.add_argument("--json", action="store_true", help="print strict JSON")
    args = p.parse_args(argv)
    a = lut_analysis(args.lut, cost=args.cost, spins=args.spins, bankrolls=args.table)
    if args.json:
        print_json(a.to_dict(), default=float)
    else:
        print(a.text(), end="")
    return 0
