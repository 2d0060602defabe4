"""The families of the fuzz suite (``tests/fuzz.py``): which base games each mutates, how many, and how deep it checks.

A family is one line of :data:`FAMILIES`.  Adding the games of a new mechanic (cascades,
Megaways, bet modes ...) is adding a line: its base games (shipped in ``data/games/`` or
small ones in ``tests/fuzz_games/``) with their weights, how many mutants ``make fuzz``
runs and how many ``make test`` samples, and — for a game whose whole PAR sheet costs tens
of CPU seconds — ``level = "mean"`` (the RTP by component and the features' sections, with
the whole sheet at ``--sample-rounds 0`` on the cases whose index is a multiple of :data:`SHEET_EVERY`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["FAMILIES", "SHEET_EVERY", "Family", "family"]

SHEET_EVERY = 8
"""In a family checked at the means, one case in this many also gets its whole sheet (no sampling) if accepted."""


@dataclass(frozen=True)
class Family:
    """A family of mutants: base games by weight; mutants in ``make fuzz`` and in ``make test``; how checked.

    ``level``: ``"sheet"`` analyses every accepted mutant's PAR sheet as ``mathkit par --sample-rounds 0``
    does; ``"mean"`` the round's means and sections (see the module notes).  ``simulate``: rounds the
    simulator plays to cross-check the RTP and hit frequency (0: none).  ``timeout``: CPU seconds a case
    may take before it counts as a hang.  ``gentle``: the share of cases whose mutations usually keep the game
    valid (a number nudged, stops swapped), so that enough mutants reach the invariants; the others mutate any
    field, a range or the text.  ``limits``: resource limits beside :data:`fuzz.LIMITS`.
    """

    name: str
    bases: Mapping[str, int]
    cases: int = 300
    sample: int = 3
    level: Literal["sheet", "mean"] = "sheet"
    simulate: int = 100_000
    timeout: float = 20.0
    gentle: float = 0.6
    limits: Mapping[str, str] = field(default_factory=dict)


CLASSIC = {"small_lines": 12, "small_ways": 8, "small_free": 12, "small_limited": 8, "classic_3reel": 6,
           "sizzling_hot": 4, "benchmark_5x3": 2, "dynasty_small": 4, "dynasty": 1, "small_classic": 6,
           # the classic steppers: [ordered], [pick_bonus], multiplier symbols, flat entries, line-bet scatters
           "red_white_blue": 4, "pick_bonus_3reel": 4, "double_sevens": 3, "line_bet_scatters": 3,
           # issue 30: a wild counting as the scatter, wild multipliers not stacking, ways rules, scatter units
           "wild_scatter_5x3": 2, "multiplier_wilds_3reel": 3, "ways_rules_243": 2, "book_5x3": 2}
"""The classic games: lines with a multiplying wild, mixed groups, weights, per-option top awards; ways; free spins
with retriggers, a cap and a gamble; spin limits; the classic steppers (shipped games are larger: picked less)."""

FAMILIES = (
    Family("classic", CLASSIC, cases=10_000, sample=140, gentle=0.35),
    Family("warlords", {"warlords": 1}, sample=2, level="mean", timeout=90.0),
    Family("prince", {"prince_of_riches": 1}, sample=2, timeout=60.0),
    Family("heights", {"heights_3to7": 2, "small_heights": 1}, timeout=40.0),
    Family("hold_respin", {"hold_respin_5x3": 2, "small_hold": 1}, timeout=40.0),
    Family("three_scatter", {"three_scatter_5x3": 1}, timeout=40.0),
    # issue 32's bet modes: an ante (a reel swap, a cost) and a buy (a forced entry law, a cap); every mode's sheet
    Family("modes", {"modes_5x3": 1}, sample=2, timeout=60.0),
)
"""Every family, one a line (bases, ``make fuzz`` mutants, ``make test`` sample, how deep)."""


def family(name: str) -> Family:
    """The family called ``name``."""
    for f in FAMILIES:
        if f.name == name:
            return f
    msg = f"no fuzz family {name!r} (one of: {', '.join(f.name for f in FAMILIES)})"
    raise KeyError(msg)
