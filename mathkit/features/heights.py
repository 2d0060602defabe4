"""Variable reels: at the start of each spin the window height is drawn; more rows, more lines.

TOML::

    [variable_heights]
    heights = { 3 = 40, 4 = 25, 5 = 18, 6 = 10, 7 = 7 }   # height = weight (drawn per spin)
    lines_per_row = 10                                      # 10·h lines active at height h

At height ``h`` every reel shows ``h`` consecutive stops and the first
``lines_per_row · h`` paylines are active.  The total bet does not change with
the height (``bet.total`` must be set): a line pays its credits whatever the
number of lines, so the RTP grows with the height and the height law weights it.
The exact maths is a mixture: each height is its own spin (its own cycle).
A spin whose height is already set (a feature that holds or grows the height)
is not drawn again: it gets the lines of its height.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar, Self

from ..errors import GameError
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Number, SpinModel, visits
from ..model.bounds import MAX_PAYLINES, MAX_ROWS, MAX_WEIGHT
from ..model.fields import check_keys, count_key, integer
from ..model.game import Game, Role
from ..play.vocabulary import Stake, Variant, Variants
from .base import Block, Context, FeatureStats, RoundContext

__all__ = ["VariableHeights"]


@dataclass(frozen=True, kw_only=True)
class VariableHeights(Block):
    """The window height drawn per spin, with ``lines_per_row`` lines per row.

    Examples
    --------
    >>> v = VariableHeights(name="variable_heights", heights=((3, 3), (4, 1)), lines_per_row=10)
    >>> v.probability(3), v.lines(4)
    (Fraction(3, 4), 40)
    """

    kind: ClassVar[str] = "variable_heights"
    role: ClassVar[Role] = "modifier"
    title: ClassVar[str] = "Variable reels"

    heights: tuple[tuple[int, int], ...]
    lines_per_row: int

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "heights", "lines_per_row"), where)
        raw = data.get("heights")
        if not isinstance(raw, dict) or not raw:
            msg = "expected a table of height = weight"
            raise GameError(msg, field=f"{where}.heights", fix="write e.g. { 3 = 40, 4 = 25, 5 = 18, 6 = 10, 7 = 7 }")
        heights = tuple(sorted((count_key(k, f"{where}.heights.{k}"),
                                integer(v, f"{where}.heights.{k}", minimum=0, maximum=MAX_WEIGHT)) for k, v in raw.items()))
        for h, _ in heights:
            if h > MAX_ROWS:
                msg = f"a window {h} rows high, more than the {MAX_ROWS} a reel may show"
                raise GameError(msg, field=f"{where}.heights.{h}", fix=f"use heights from 1 to {MAX_ROWS}")
        return cls(name=name, heights=heights,
                   lines_per_row=integer(data.get("lines_per_row"), f"{where}.lines_per_row", minimum=1,
                                         maximum=MAX_PAYLINES))

    def window_heights(self) -> tuple[int, ...]:
        """The heights a spin can draw (weight > 0), lowest first (the near-miss check looks at each).

        Examples
        --------
        >>> VariableHeights(name="variable_heights", heights=((3, 2), (4, 0), (5, 1)), lines_per_row=10).window_heights()
        (3, 5)
        """
        return tuple(h for h, w in self.heights if w > 0)

    def table(self) -> dict[str, Any]:
        return {"heights": {str(h): w for h, w in self.heights}, "lines_per_row": self.lines_per_row}

    def validate(self, game: Game, where: str) -> None:
        total = sum(w for _, w in self.heights)
        if total <= 0:
            msg = "every height has weight 0"
            raise GameError(msg, field=f"{where}.heights", fix="give at least one height a positive weight")
        if game.bet.total is None:
            msg = "the total bet must not change with the height"
            raise GameError(msg, field="bet.total", fix="set bet.total (credits per spin at one coin)")
        if game.pay_mode != "lines":
            msg = "variable heights need a lines game"
            raise GameError(msg, field=where, fix='set pay_mode = "lines"')
        for h, w in self.heights:
            if w == 0:
                continue
            n = self.lines(h)
            if n > len(game.paylines):
                msg = f"height {h} needs {n} paylines, the game has {len(game.paylines)}"
                raise GameError(msg, field="paylines", fix=f"add paylines up to {n}, or lower lines_per_row")
            for i, line in enumerate(game.paylines[:n]):
                for r, row in enumerate(line):
                    if row >= h:
                        msg = f"row {row} is outside the window at height {h}, where line {i + 1} is active"
                        raise GameError(msg, field=f"paylines[{i}][{r}]",
                                        fix=f"the first {n} lines may use rows 0 to {h - 1}")
            for rs in game.reel_sets:
                short = [r + 1 for r, s in enumerate(rs.strips) if len(s) < h]
                if short:
                    msg = f"reel(s) {short} of reel set {rs.name!r} have fewer stops than a window {h} rows high"
                    raise GameError(msg, field=f"reels.{rs.name}.strips", fix="lengthen the strips")

    def probability(self, height: int) -> Fraction:
        """P(a spin is ``height`` rows high)."""
        total = sum(w for _, w in self.heights)
        return Fraction(dict(self.heights).get(height, 0), total)

    def lines(self, height: int) -> int:
        """Lines active at ``height``."""
        return self.lines_per_row * height

    def spin_models(self, ctx: Context, model: SpinModel) -> tuple[tuple[Fraction, SpinModel, str], ...]:
        if model.rows is not None:
            lines = self.lines(model.rows) if model.lines is None else model.lines
            return ((Fraction(1), replace(model, lines=lines), ""),)
        return tuple((self.probability(h), replace(model, rows=h, lines=self.lines(h)), "")
                     for h, w in self.heights if w > 0)

    def starts(self, stats: FeatureStats, height: int) -> tuple[Number, dict[str, Number]]:
        """A round that starts at ``height``: its probability, and each sequence feature's entries per such round.

        The base spin's law at that height (``stats.extra["parts"]``: the composer's law of every spin the
        modifiers make of the base spin) leads through the round's stage laws (``stats.extra["laws"]``)
        to every feature it can reach (:func:`~mathkit.laws.stage.visits`), so the entries weighted by the
        height law add up to each feature's entries per round, exactly.

        Examples
        --------
        >>> from mathkit.gamefile.io import load_game
        >>> from mathkit.round import analyse
        >>> a = analyse(load_game("data/games/prince_of_riches.toml"), level="mean")
        >>> v = a.game.feature("variable_heights")
        >>> p, entries = v.starts(a.stats["variable_heights"], 3)
        >>> p, sorted(entries)
        (Fraction(21, 50), ['free_games', 'jackpots'])
        """
        parts = [(p, law) for p, spin, law in stats.extra.get("parts", ()) if spin.rows == height]
        p_h: Number = sum((p for p, _ in parts), Fraction(0))
        if not p_h:
            return p_h, {}
        start = [(p * br.p / p_h, key) for p, law in parts for key, br in law.branches.items()]
        out: dict[str, Number] = {}
        for (name, _), v in visits(stats.extra["laws"], start).items():
            out[name] = out.get(name, Fraction(0)) + v
        return p_h, out

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        """Per starting height: its probability and lines, the RTP of a round from it by component, how often it
        enters each feature, and what each other modifier returns over the whole round.

        With the round composer's context the spin is played as the round plays it (its other
        modifiers, and the features it starts, count); components are grouped by the part of
        their name before the first ``": "`` (``jackpots: Grand`` under ``jackpots``).  A modifier
        acts on every spin of the round (cash stacks in the free games too): its column sums its
        component wherever it is paid (``cash stacks``, ``free games: cash stacks``).  A feature's
        entries per round from each height, weighted by the height law, add up to its trigger
        probability (:meth:`starts`).
        """
        bet = ctx.total_bet
        game = ctx.game
        figures: list[tuple[str, Figure]] = []
        spins = []
        others = [f for f in game.features_of("modifier") if f.name != self.name and isinstance(f, Block)]
        features = [f for f in game.features_of("sequence") if isinstance(f, Block)]
        for h, w in self.heights:
            if w == 0:
                continue
            model = replace(ctx.base_model(), rows=h, lines=self.lines(h))
            if isinstance(ctx, RoundContext):
                play = ctx.play_spin(model, (), _whole, (), "mean")
                parts, method = play.components, play.method
            else:
                parts, method = ctx.means(model), "exact"
            groups: dict[str, Number] = {}
            for c, v in parts.items():
                key = c.partition(": ")[0]
                groups[key] = groups.get(key, Fraction(0)) + v
            total = sum(parts.values(), Fraction(0))
            acts = {m.component: sum((v for c, v in parts.items() if c == m.component or c.endswith(f": {m.component}")),
                                     Fraction(0)) for m in others}
            entries = self.starts(stats, h)[1]
            figures.append((f"RTP of a round starting at height {h}", Figure.of(total / bet, method)))
            figures += [(f"{m} at height {h} (whole round, × bet)", Figure.of(v / bet, method)) for m, v in acts.items()]
            figures += [(f"{f.heading}: trigger probability at height {h}", Figure.of(entries.get(f.name, Fraction(0))))
                        for f in features]
            spins.append((h, total, groups, acts, entries))
        names = list(dict.fromkeys(k for _, _, g, _, _ in spins for k in g))
        shown = [f for f in features if any(e.get(f.name) for *_, e in spins)]
        rows: list[tuple[str, ...]] = [("height", "lines", "probability", "RTP of a round from this height", *names,
                                        *(f"{m} (whole round)" for m in (o.component for o in others)),
                                        *(f"{f.heading}: 1 in" for f in shown))]
        for h, total, groups, acts, entries in spins:
            rows.append((str(h), str(self.lines(h)), str(self.probability(h)), f"{float(total / bet):.6%}",
                         *(f"{float(groups.get(k, 0) / bet):.6%}" for k in names),
                         *(f"{float(v / bet):.6%}" for v in acts.values()),
                         *(f"{1 / float(e):,.2f}" if (e := entries.get(f.name, 0)) else "never" for f in shown)))
        notes = (f"the window is drawn {', '.join(f'{h} rows high with weight {w}' for h, w in self.heights)}; "
                 f"{self.lines_per_row} lines per row are active; the total bet is fixed, so a line pays its credits "
                 "at every height",
                 "per starting height: the whole round from a base spin that tall (the features it starts, free games "
                 "from that height ...); a modifier's column sums its return over the whole round; a feature's "
                 "'1 in' is its entries per round from that height, which weighted by the height law give its trigger "
                 "probability")
        return FeatureSection(self.title, tuple(figures), tuple(rows), notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("heights", "lines_per_row"))

    def sim_table(self, game: Game, stake: Stake) -> Variants:
        """One base variant per height, drawn by its weight: ``h`` rows, the first ``lines_per_row · h`` lines.

        A spin whose height a feature holds plays the lines of its height (``held``), at every
        height whose lines fit its window.
        """
        tallest = max(max(rs.rows) for rs in game.reel_sets)
        held = tuple((h, self.lines(h)) for h in range(1, tallest + 1)
                     if self.lines(h) <= len(game.paylines)
                     and all(row < h for line in game.paylines[: self.lines(h)] for row in line))
        return Variants(tuple(Variant(w, rows=h, lines=self.lines(h)) for h, w in self.heights if w > 0), held)


def _whole(digits: Mapping[str, int]) -> None:
    """Every outcome of a spin in one group."""
    return None
