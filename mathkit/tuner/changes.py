"""What a tuning changed, grouped by reel, and the before/after figures table.

:func:`diff` lists the stop edits of each reel (stop, symbol before, symbol
after) with the counts of the symbols that changed, the weight edits of
weighted reels and the pay edits; :func:`figures_table` gives the rows of the
before/after table (every figure exact, σ and VI from the exact variance).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.edits import pay_cells, pay_values
from ..model.game import Game
from .measure import Figures
from .place import edits_between
from .targets import Target, label_of

__all__ = ["Edits", "PayEdit", "ReelEdits", "diff", "figures_table", "table_text"]


@dataclass(frozen=True)
class ReelEdits:
    """The edits of one reel: ``stops`` as ``(stop, before, after)`` (0-based stops; a weighted reel's ``before``
    and ``after`` are ``SYMBOL×weight``), ``counts`` as ``(symbol, before, after)`` for every symbol whose count
    (or total weight) changed, and the number of edits."""

    reels: str
    reel: int
    stops: tuple[tuple[int, str, str], ...]
    counts: tuple[tuple[str, int, int], ...]
    edits: int

    def text(self) -> str:
        counts = ", ".join(f"{s} {a}→{b}" for s, a, b in self.counts)
        return f"{self.reels} reel {self.reel + 1}: {self.edits} edit{'s' * (self.edits != 1)} — {counts}"


@dataclass(frozen=True)
class PayEdit:
    """One pay changed: its label (``5 × DRAGON``) and its value(s) per coin option before and after."""

    pay: str
    before: tuple[int, ...]
    after: tuple[int, ...]

    def text(self) -> str:
        def show(v: tuple[int, ...]) -> str:
            return str(v[0]) if len(v) == 1 else "/".join(map(str, v))

        return f"pay {self.pay}: {show(self.before)} → {show(self.after)}"


@dataclass(frozen=True)
class Edits:
    """Every edit between two versions of a game, grouped by reel, then the pays."""

    reels: tuple[ReelEdits, ...]
    pays: tuple[PayEdit, ...]

    @property
    def count(self) -> int:
        """Stop edits (changed, inserted or deleted stops; changed weights) plus changed pays."""
        return sum(r.edits for r in self.reels) + len(self.pays)

    def lines(self) -> list[str]:
        out = []
        for r in self.reels:
            out.append(r.text())
            out += [f"    stop {i}: {a} → {b}" for i, a, b in r.stops]
        out += [p.text() for p in self.pays]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count,
                "reels": [{"reels": r.reels, "reel": r.reel + 1, "edits": r.edits,
                           "counts": [{"symbol": s, "before": a, "after": b} for s, a, b in r.counts],
                           "stops": [{"stop": i, "before": a, "after": b} for i, a, b in r.stops]} for r in self.reels],
                "pays": [{"pay": p.pay, "before": list(p.before), "after": list(p.after)} for p in self.pays]}


def diff(before: Game, after: Game) -> Edits:
    """The edits turning ``before`` into ``after`` (same symbols and reel sets)."""
    reels = []
    for rs in before.reel_sets:
        new = after.reel_set(rs.name)
        for r, (a, b) in enumerate(zip(rs.strips, new.strips, strict=True)):
            wa, wb = rs.stop_weights(r), new.stop_weights(r)
            if a == b and wa == wb:
                continue
            ca: Counter[str] = Counter()
            cb: Counter[str] = Counter()
            for s, w in zip(a, wa, strict=True):
                ca[s] += w
            for s, w in zip(b, wb, strict=True):
                cb[s] += w
            counts = tuple((s, ca[s], cb[s]) for s in before.symbol_names if ca[s] != cb[s])
            if rs.weights is not None and a == b:
                stops = tuple((i, f"{s}×{x}", f"{s}×{y}") for i, (s, x, y) in enumerate(zip(a, wa, wb, strict=True))
                              if x != y)
                n = len(stops)
            elif len(a) == len(b):
                stops = tuple((i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
                n = len(stops)
            else:
                stops = ()
                n = edits_between(a, b)
            reels.append(ReelEdits(rs.name, r, stops, counts, n))
    pays = []
    for cell in pay_cells(before):
        va, vb = pay_values(before, cell), pay_values(after, cell)
        if va != vb:
            pays.append(PayEdit(cell.label(), va, vb))
    return Edits(tuple(reels), tuple(pays))


def _fmt(figure: str, x: Any) -> str:
    if x is None:
        return "—"
    if figure in ("rtp", "hit_frequency") or figure.startswith("component:"):
        return f"{100 * float(x):.4f}%"
    if figure in ("feature_frequency", "top_award"):
        return f"1 in {float(x):,.1f}" if figure == "feature_frequency" else f"1 in {float(x):,.0f}"
    return f"{float(x):.4f}"


FIGURE_ORDER = ("rtp", "sd", "vi", "hit_frequency", "feature_frequency", "top_award")


def figures_table(before: Figures, after: Figures, targets: Sequence[Target]) -> list[dict[str, Any]]:
    """Rows ``figure, label, before, after, target (low, high), met`` of the before/after table."""
    wanted = {t.figure.removeprefix("kept:"): t for t in targets}
    names = [f for f in FIGURE_ORDER if before.value(f) is not None or f in wanted]
    names += [f"component:{k}" for k, _ in before.components]
    names += [f for f in wanted if f not in names]
    rows = []
    for f in names:
        t = wanted.get(f)
        a, b = before.value(f), after.value(f)
        rows.append({"figure": f, "label": label_of(f),
                     "before": a, "after": b, "low": None if t is None else t.low, "high": None if t is None else t.high,
                     "met": None if t is None or b is None else t.contains(b)})
    return rows


def table_text(rows: list[dict[str, Any]]) -> str:
    """The before/after table as text."""
    out = [f"  {'figure':<22} {'before':>14} {'after':>14}   target"]
    for r in rows:
        f = r["figure"]
        target = "" if r["low"] is None else (f"{_fmt(f, r['low'])} … {_fmt(f, r['high'])}  "
                                              + ("ok" if r["met"] else "OUT OF REACH"))
        out.append(f"  {r['label']:<22} {_fmt(f, r['before']):>14} {_fmt(f, r['after']):>14}   {target}")
    return "\n".join(out)
