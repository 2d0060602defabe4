"""Stake Engine publication files from the exact win distribution: lookup table, books, ``index.json``.

The Stake Engine RGS takes a game as static files per bet mode
(https://stakeengine.github.io/math-sdk/rgs_docs/data_format and the SDK's
``utils/rgs_verification.py``):

* ``lookUpTable_<mode>_0.csv``: no header, one row per round, ``id,weight,payoutMultiplier``, plain
  unsigned integers; the payout is the win × 100 in base bets (a mode costing ``cost`` base bets
  returns Σ weight × payout / (100 × cost × Σ weight)), a multiple of 10 (steps of 0.1×, the least
  non-zero payout 10); Σ weights ≤ 2⁶⁴ − 1;
* ``books_<mode>.jsonl.zst``: zstandard-compressed JSON lines, one book per table row, in the table's
  order: ``{"id", "payoutMultiplier", "events"}`` with the row's id and payout as JSON integers;
* ``index.json``: ``{"modes": [{"name", "cost", "events", "weights"}]}``.

The table is the round's exact distribution (:func:`mathkit.round.analyse`), not a simulation: a game
whose round is one spin gives the cycle's integer counts as weights (exact, reduced by their common
divisor); a round with Markov parts (free spins) gives float probabilities, scaled to integers of
total about 2⁶³ (each weight within ½ of its probability × the total: a precision of 1.1·10⁻¹⁹) after
the chain's truncation (its lost mass, reported).  A win that is not a multiple of 0.1× is *split*
between the two neighbouring payouts on the 0.1× grid in the proportions that keep its mean, so the
table's RTP is unchanged by the rounding (the shift plain rounding to the nearest step would have
made is reported beside it).  The table's RTP equals the exact RTP within 10⁻⁶ (checked on every
export).

Each table row has a book: for a game whose round is its base spin, concrete spins drawn from the
conditional law of the spin given the row's win (by enumeration of the stop combinations when the
game is small enough, else by rejection sampling; :mod:`mathkit.export.witness`), a payout with
several stop combinations split into rows of one witness each (``witnesses`` per payout, weight split
so the payout's weight is unchanged).  A feature round's witnesses are not drawn yet: its books say
``"witnessed": false`` and :attr:`StakeExport.unwitnessed` counts them.

``mathkit export --stake`` writes the base game (``"base"``, cost 1) and each bet mode
(:func:`mathkit.report.modes.mode_table`), one :func:`stake_mode` each.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..laws.law import WinLaw
from ..model.game import Game

__all__ = ["MAX_WEIGHT_SUM", "StakeExport", "StakeMode", "StakeTable", "stake_mode", "stake_table", "write_stake"]

#: the RGS's bound on a table's total weight (uint64)
MAX_WEIGHT_SUM = 2**64 - 1
#: the total a float law's probabilities are scaled to
FLOAT_TOTAL = 2**63
#: the table's RTP must equal the exact RTP within this
RTP_TOLERANCE = 1e-6


@dataclass(frozen=True)
class StakeTable:
    """A lookup table built from a win law, before witnesses split its rows.

    Attributes
    ----------
    payouts, weights
        Distinct payouts (win × 100 in base bets, multiples of 10, ascending) and their integer weights.
    sources
        Per payout, the wins (credits) whose probability it holds: one for a win on the 0.1× grid, the
        two neighbours' shares of a win off it.
    exact
        Whether the weights are exact (integer counts of a cycle) rather than scaled floats.
    table_rtp
        Σ weight × payout / (100 × cost × Σ weight), exact.
    rounding_shift
        RTP change plain rounding of every win to the nearest 0.1× would have made (the split avoids it).
    split
        Number of wins off the 0.1× grid (split between their neighbours).
    dropped_mass
        Probability not in the table: the law's truncation plus rows whose scaled weight is 0.
    precision
        What the weights are, in words.
    """

    payouts: tuple[int, ...]
    weights: tuple[int, ...]
    sources: tuple[tuple[int, ...], ...]
    exact: bool
    table_rtp: Fraction
    rounding_shift: float
    split: int
    dropped_mass: float
    precision: str


def stake_table(law: WinLaw, *, cost: int | Fraction = 1) -> StakeTable:
    """The lookup table of ``law`` (credits, ``law.unit`` credits a base bet) for a mode costing ``cost`` base bets.

    Examples
    --------
    >>> t = stake_table(WinLaw.from_counts([0, 10, 25, 100], [6, 2, 1, 1], unit=10))
    >>> t.payouts, t.weights, t.table_rtp
    ((0, 100, 250, 1000), (6, 2, 1, 1), Fraction(29, 20))

    A win of 0.25× bet is split between 0.2× and 0.3×, half and half, so the RTP stays:

    >>> t = stake_table(WinLaw.from_counts([0, 1, 10], [2, 1, 1], unit=4))
    >>> t.payouts, t.weights, t.table_rtp, t.split
    ((0, 20, 30, 250), (4, 1, 1, 2), Fraction(11, 16), 1)
    """
    unit = law.unit
    values = [int(v) for v in law.values]
    if law.counts is not None:
        raw = [int(c) for c in law.counts]
        exact = True
        dropped = 0.0
    else:
        probs = np.clip(np.asarray(law.probs, dtype=np.float64), 0.0, None)
        raw = [round(p * FLOAT_TOTAL) for p in probs.tolist()]
        exact = False
        dropped = float(law.lost_mass) + float(sum(p for p, w in zip(probs.tolist(), raw, strict=True) if w == 0))
    denom = 10 * unit
    acc: dict[int, int] = {}
    src: dict[int, list[int]] = {}
    split = 0
    shift = Fraction(0)
    total_raw = sum(raw)
    for v, w in zip(values, raw, strict=True):
        if w == 0:
            continue
        x100 = 100 * v  # payout × unit
        a = (x100 // denom) * 10  # the grid step at or below the payout (× 100)
        rem = x100 - a * unit  # 0 .. 10·unit − 1
        if rem == 0:
            acc[a] = acc.get(a, 0) + w * denom
            src.setdefault(a, []).append(v)
            continue
        split += 1
        b = a + 10
        acc[a] = acc.get(a, 0) + w * (denom - rem)
        acc[b] = acc.get(b, 0) + w * rem
        src.setdefault(a, []).append(v)
        src.setdefault(b, []).append(v)
        nearest = a if 2 * rem < denom else b
        shift += Fraction(w, total_raw) * (Fraction(nearest, 100) - Fraction(x100, 100 * unit)) / cost
    payouts = sorted(acc)
    weights = [acc[p] for p in payouts]
    g = 0
    for w in weights:
        g = math.gcd(g, w)
    weights = [w // g for w in weights]
    total = sum(weights)
    precision = "exact: the cycle's integer counts, reduced by their common divisor"
    if not exact:
        precision = f"float probabilities scaled to integers of total {total:.4g} (each within ½)"
    if total > MAX_WEIGHT_SUM:
        scaled = [int(Fraction(w * FLOAT_TOTAL, total).__round__()) for w in weights]
        dropped += sum(w / total for w, s in zip(weights, scaled, strict=True) if s == 0)
        weights = scaled
        precision = (f"{'exact counts' if exact else 'probabilities'} rescaled to a total of 2^63 "
                     f"(each weight within ½: 1.1e-19 of its probability)")
        exact = False
    keep = [i for i, w in enumerate(weights) if w > 0]
    payouts = [payouts[i] for i in keep]
    weights = [weights[i] for i in keep]
    total = sum(weights)
    table_rtp = Fraction(sum(w * p for w, p in zip(weights, payouts, strict=True)), 100 * cost * total)
    return StakeTable(tuple(payouts), tuple(weights), tuple(tuple(src[p]) for p in payouts), exact, table_rtp,
                      float(shift), split, dropped, precision)


@dataclass(frozen=True)
class StakeMode:
    """One bet mode ready to write: rows (id from 1, weight, payout) and their books."""

    name: str
    cost: int | Fraction
    table: StakeTable
    exact_rtp: Fraction | float
    rows: tuple[tuple[int, int, int], ...]
    books: tuple[dict[str, Any], ...]
    unwitnessed: int
    witness_method: str

    @property
    def rtp_gap(self) -> float:
        """|table RTP − exact RTP|."""
        return abs(float(self.table.table_rtp - Fraction(self.exact_rtp)))

    def summary(self) -> dict[str, Any]:
        """The mode's figures as strict JSON data."""
        t = self.table
        return {"name": self.name, "cost": self.cost, "rows": len(self.rows), "distinct_payouts": len(t.payouts),
                "weight_sum": str(sum(w for _, w, _ in self.rows)), "weights_exact": t.exact,
                "precision": t.precision, "exact_rtp": float(self.exact_rtp), "table_rtp": float(t.table_rtp),
                "rtp_gap": self.rtp_gap, "rounding_shift_compensated": t.rounding_shift, "wins_split": t.split,
                "dropped_mass": t.dropped_mass, "unwitnessed_rows": self.unwitnessed,
                "witnesses": self.witness_method}


def _book(row_id: int, payout: int, events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"id": row_id, "payoutMultiplier": payout, "events": list(events)}


def stake_mode(game: Game, law: WinLaw, exact_rtp: Fraction | float, *, name: str = "base", cost: int | Fraction = 1,
               reels: str | None = None, lines: int | None = None, coins: int | None = None, witnesses: int = 2,
               seed: int = 1, draws: int = 2_000_000) -> StakeMode:
    """One mode's table and books from the round's law ``law`` (refused when it misses a condition of the RGS).

    ``witnesses`` is the most witnesses (rows) a payout gets; ``draws`` the most spins drawn when
    the witnesses are sampled rather than enumerated.
    """
    from .witness import BaseWitnesses, unwitnessed_events

    table = stake_table(law, cost=cost)
    if len(table.payouts) < 3:
        msg = f"the {name} mode has {len(table.payouts)} distinct payouts; the RGS's statistics need at least 3"
        raise ModelError(msg, field="payouts", fix="give the game more distinct wins")
    gap = abs(float(table.table_rtp - Fraction(exact_rtp)))
    if gap > RTP_TOLERANCE:
        msg = f"the {name} table's RTP {float(table.table_rtp):.9f} is {gap:.3g} from the exact {float(exact_rtp):.9f}"
        raise ModelError(msg, field="rtp", fix="report this: the table must hold the exact RTP within 1e-6")
    finder = BaseWitnesses.for_game(game, reels=reels, lines=lines, coins=coins, law=law, seed=seed,
                                    draws=draws, want=witnesses, cost=cost) if not game.features else None
    rows: list[tuple[int, int, int]] = []
    books: list[dict[str, Any]] = []
    unwitnessed = 0
    for payout, weight, sources in zip(table.payouts, table.weights, table.sources, strict=True):
        found = finder.witnesses(payout, sources) if finder is not None else []
        found = found[: max(1, min(len(found), weight))]
        if not found:
            rows.append((len(rows) + 1, weight, payout))
            books.append(_book(len(rows), payout, unwitnessed_events(payout, game)))
            unwitnessed += 1
            continue
        k = len(found)
        shares = [weight // k + (1 if i < weight % k else 0) for i in range(k)]
        for share, w in zip(shares, found, strict=True):
            rows.append((len(rows) + 1, share, payout))
            books.append(_book(len(rows), payout, w.events(payout)))
    method = finder.method if finder is not None else "none: feature rounds are not drawn yet"
    return StakeMode(name, cost, table, exact_rtp, tuple(rows), tuple(books), unwitnessed, method)


@dataclass(frozen=True)
class StakeExport:
    """What :func:`write_stake` wrote: the folder, the files and each mode."""

    folder: Path
    files: tuple[Path, ...]
    modes: tuple[StakeMode, ...]

    @property
    def unwitnessed(self) -> int:
        """Rows whose book holds no concrete round (feature rounds not drawn yet)."""
        return sum(m.unwitnessed for m in self.modes)

    def summary(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "files": [p.name for p in self.files],
                "modes": [m.summary() for m in self.modes], "unwitnessed_rows": self.unwitnessed}


def table_text(rows: Sequence[tuple[int, int, int]]) -> str:
    """The lookup table's CSV text: no header, ``id,weight,payout`` plain integers, ``\\n`` line ends."""
    return "".join(f"{i},{w},{p}\n" for i, w, p in rows)


def books_bytes(books: Sequence[dict[str, Any]]) -> bytes:
    """The books as zstandard-compressed JSON lines (one book a line, compact, strict JSON)."""
    import zstandard

    text = "".join(json.dumps(b, separators=(",", ":"), allow_nan=False) + "\n" for b in books)
    return zstandard.ZstdCompressor(level=9).compress(text.encode("utf-8"))


def write_stake(game: Game, folder: Path, modes: Sequence[StakeMode], *, overwrite: bool = False) -> StakeExport:
    """Write every mode's table and books and the ``index.json`` into ``folder``, then verify them.

    Each file is written atomically (:func:`mathkit.gamefile.io.write_atomic`); the folder is
    created when missing.  The RGS checks (:func:`mathkit.export.stake_verify.verify_stake`) run on
    what was written; a failure raises :class:`~mathkit.errors.ModelError`.
    """
    from ..gamefile.io import write_atomic
    from .stake_verify import verify_stake

    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    index = {"modes": []}  # type: dict[str, list[dict[str, Any]]]
    planned = []
    for m in modes:
        planned += [folder / f"lookUpTable_{m.name}_0.csv", folder / f"books_{m.name}.jsonl.zst"]
    planned.append(folder / "index.json")
    if not overwrite:
        existing = [p for p in planned if p.exists()]
        if existing:
            msg = f"{existing[0]} exists"
            raise ModelError(msg, field="--stake", fix="pass --force to replace it, or choose another folder")
    for m in modes:
        lut = folder / f"lookUpTable_{m.name}_0.csv"
        books = folder / f"books_{m.name}.jsonl.zst"
        write_atomic(lut, table_text(m.rows).encode("ascii"))
        write_atomic(books, books_bytes(m.books))
        files += [lut, books]
        index["modes"].append({"name": m.name, "cost": float(m.cost), "events": books.name, "weights": lut.name})
    idx = folder / "index.json"
    write_atomic(idx, (json.dumps(index, indent=2) + "\n").encode("utf-8"))
    files.append(idx)
    verify_stake(folder)
    return StakeExport(folder, tuple(files), tuple(modes))
