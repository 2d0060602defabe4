"""The outcome of a tuning: :class:`Candidate` solutions and the :class:`TuneResult` that holds them.

Every figure of a candidate is exact (:class:`~mathkit.tuner.measure.Figures`);
its edits are grouped by reel (:class:`~mathkit.tuner.changes.Edits`); the result
keeps the start game's figures for the before/after table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..model.game import Game
from .changes import Edits, figures_table, table_text
from .constraints import Constraints
from .measure import Figures
from .targets import Target, TargetSet

__all__ = ["Candidate", "TuneResult", "declared_after", "rank"]


@dataclass(frozen=True)
class Candidate:
    """One tuned game: its exact figures, its edits from the start game, and which targets it meets."""

    game: Game
    figures: Figures
    edits: Edits
    met: tuple[tuple[str, bool], ...]

    @property
    def reached(self) -> bool:
        """Whether every target and kept constraint is met."""
        return all(ok for _, ok in self.met)

    def as_dict(self) -> dict[str, Any]:
        f = self.figures
        return {"reached": self.reached, "met": dict(self.met), "rtp": float(f.rtp),
                "rtp_exact": f"{Fraction(f.rtp).numerator}/{Fraction(f.rtp).denominator}",
                "components": {k: float(v) for k, v in f.components}, "sd": f.sd, "vi": f.vi,
                "hit_frequency": None if f.hit_frequency is None else float(f.hit_frequency),
                "feature_one_in": f.feature_one_in if f.feature_p else None,
                "top_award_one_in": f.top_one_in if f.top_award else None, "edits": self.edits.as_dict()}


@dataclass(frozen=True)
class TuneResult:
    """The outcome of :func:`tune`: its candidates, by σ from low to high, and the best of them.

    ``before`` holds the start game's exact figures; ``kept`` the bands the
    constraints add (the feature frequency kept within ±5%); ``notes`` say what
    was out of reach and why.
    """

    original: Game
    start: Game
    reels: tuple[str, ...]
    vary: str
    targets: TargetSet
    constraints: Constraints
    kept: tuple[Target, ...]
    before: Figures
    candidates: tuple[Candidate, ...]
    notes: tuple[str, ...]
    evaluations: int
    seconds: float
    cpu_seconds: float

    @property
    def best(self) -> Candidate:
        """The candidate meeting the most targets with the fewest edits (candidates are listed by σ)."""
        return min(self.candidates, key=rank)

    @property
    def game(self) -> Game:
        return self.best.game

    @property
    def reached(self) -> bool:
        return self.best.reached

    @property
    def rtp(self) -> Fraction:
        return Fraction(self.best.figures.rtp)

    def table(self, candidate: int = 0) -> list[dict[str, Any]]:
        """The before/after figures table of one candidate."""
        return figures_table(self.before, self.candidates[candidate].figures, (*self.targets.items, *self.kept))

    def text(self) -> str:
        """Every candidate's figures table and edits, as text."""
        out = []
        for i, c in enumerate(self.candidates):
            head = f"candidate {i + 1} of {len(self.candidates)}: " if len(self.candidates) > 1 else ""
            out.append(f"{head}{'every target met' if c.reached else 'NOT every target met'}; "
                       f"{c.edits.count} edit{'s' * (c.edits.count != 1)}")
            out.append(table_text(self.table(i)))
            out += [f"  {line}" for line in c.edits.lines()]
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


def rank(c: Candidate) -> tuple[bool, int]:
    """Candidates rank by whether they meet every target, then by their edits."""
    return not c.reached, c.edits.count


def declared_after(game: Game, reels: str, rtp: Fraction, target: Target, reached: bool) -> Game:
    """``game`` declaring the RTP it was tuned to: the target when reached, else the RTP reached to 0.0001 pp."""
    value = target.value if reached else Fraction(round(rtp * 1_000_000), 1_000_000)
    if reels == game.default_reels:
        return dataclasses.replace(game, declared_rtp=value)
    rs = game.reel_set(reels)
    return dataclasses.replace(game, reel_sets=tuple(dataclasses.replace(x, declared_rtp=value) if x is rs else x
                                                     for x in game.reel_sets))
