"""A bonus buy's forced entry: the trigger spin of a bought round, as a modifier of the base spin.

A bet mode with ``buy = { feature = ..., counts = { 3 = 90, 4 = 10 } }`` (``[modes.NAME]``,
:mod:`mathkit.features.modes`) plays, instead of the base spin, one *bought trigger spin*: a
window showing exactly ``k`` of the feature's trigger symbol and a blank (a bonus symbol that
never pays, :data:`BLANK`) on every other cell, ``k`` drawn with the integer weights of ``counts``.
The spin is then read as any base spin is: its scatter pays for ``k`` triggers are paid, and
every feature its ``k`` triggers start is played as the rules say (the bought feature's award for
``k``, its retriggers, its cap).

This block is not written in a game file: :func:`mathkit.features.modes.mode_game` adds it to the
game a buy mode plays.  The exact engine plays each ``k`` as the base spin with every cell forced
(:attr:`~mathkit.laws.stage.SpinModel.forced`); the simulator as a base variant of weight ``w_k``
with the same forced cells — nothing new in either.

Examples
--------
>>> b = BoughtEntry(name="buy", trigger="S", counts=((3, 9), (4, 1)), blank="BLANK")
>>> b.cells(4, (3, 3, 3))
((0, 0), (1, 0), (2, 0), (0, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar

from ..errors import GameError
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Spin, SpinModel
from ..model.game import Game, Role
from ..play.vocabulary import Const, Force, Stake, Variant, Variants
from .base import Block, Context, FeatureStats

__all__ = ["BLANK", "LABEL", "BoughtEntry"]

LABEL = "bought spin"
"""The PAR components of the bought trigger spin's own pays: ``bought spin: scatter`` (its lines pay nothing)."""

BLANK = "BUY_BLANK"
"""The name of the blank a bought trigger spin shows beside its triggers (another name when the game has it)."""


@dataclass(frozen=True, kw_only=True)
class BoughtEntry(Block):
    """The bought trigger spin: ``k`` cells of ``trigger`` (``k`` drawn by ``counts``), ``blank`` on the others.

    Parameters
    ----------
    trigger
        The trigger symbol of the feature bought.
    counts
        ``(k, weight)``: the bought spin shows ``k`` triggers with probability ``weight / Σ weights``.
    blank
        A bonus symbol of the game that never pays (added by the mode's transform).
    """

    kind: ClassVar[str] = "bought_entry"
    role: ClassVar[Role] = "modifier"
    title: ClassVar[str] = "Bonus buy"

    trigger: str
    counts: tuple[tuple[int, int], ...]
    blank: str

    def table(self) -> dict[str, Any]:
        return {"trigger": self.trigger, "counts": {str(k): w for k, w in self.counts}, "blank": self.blank}

    def symbols(self) -> tuple[str, ...]:
        return (self.trigger, self.blank)

    @staticmethod
    def cells(k: int, rows: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """Where the ``k`` triggers stand: one per reel from reel 1 on the top row, then the next row, and so on."""
        every = [(r, q) for q in range(max(rows)) for r in range(len(rows)) if q < rows[r]]
        return tuple(every[:k])

    def p(self, k: int) -> Fraction:
        """P(the bought spin shows ``k`` triggers)."""
        return Fraction(sum(w for c, w in self.counts if c == k), sum(w for _, w in self.counts))

    def validate(self, game: Game, where: str) -> None:
        rows = game.reel_set().rows
        for k, w in self.counts:
            if w and k > sum(rows):
                msg = f"{k} triggers on a window of {sum(rows)} cells"
                raise GameError(msg, field=f"{where}.counts.{k}", fix=f"give counts of at most {sum(rows)}")

    def forced_window(self, k: int, rows: tuple[int, ...]) -> tuple[tuple[int, int, str], ...]:
        """Every cell of the window: ``trigger`` on :meth:`cells` of ``k``, ``blank`` elsewhere."""
        hit = set(self.cells(k, rows))
        return tuple((r, q, self.trigger if (r, q) in hit else self.blank) for r in range(len(rows)) for q in range(rows[r]))

    def spin_models(self, ctx: Context, model: SpinModel) -> tuple[tuple[Fraction, Spin, str], ...]:
        rows = ctx.game.reel_set(model.reels).rows if model.rows is None else (model.rows,) * ctx.game.n_reels
        return tuple((self.p(k), replace(model, forced=self.forced_window(k, rows)), LABEL)
                     for k, w in self.counts if w)

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        figures = [(f"P(the bought spin shows {k} × {self.trigger})", Figure.of(self.p(k))) for k, w in self.counts if w]
        mean = sum((k * self.p(k) for k, _ in self.counts), Fraction(0))
        figures.append(("triggers shown (average)", Figure.of(mean)))
        notes = (f"a bought round plays one trigger spin showing exactly k × {self.trigger} (k drawn by the weights "
                 f"{', '.join(f'{k}: {w}' for k, w in self.counts)}) and nothing else that pays; its scatter pay "
                 "for k is paid and the features k triggers start are played",)
        return FeatureSection(self.heading, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("trigger", "counts", "blank"))

    def sim_table(self, game: Game, stake: Stake) -> Variants:
        """One base variant per ``k`` (weight ``w_k``): the triggers' cells and the blank's forced."""
        rows = game.reel_set().rows
        choices = []
        for k, w in self.counts:
            if not w:
                continue
            hit = set(self.cells(k, rows))
            rest = [(r, q) for r in range(len(rows)) for q in range(rows[r]) if (r, q) not in hit]
            forced: tuple[Force, ...] = (Force(Const(stake.mask(hit)), self.trigger),)
            if rest:
                forced += (Force(Const(stake.mask(rest)), self.blank),)
            choices.append(Variant(w, forced=forced, label=LABEL))
        return Variants(tuple(choices))
