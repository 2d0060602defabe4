"""What every check shares: jurisdiction profiles, the :class:`Check` result, the game-under-check context.

:data:`PROFILES` holds the numbers of ``gli11``, ``anz`` and ``ukgc`` (their
sources are in the :mod:`mathkit.checks` notes); :class:`_Ctx` computes the
figures several checks need once per run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..exact.components import component_rtp
from ..model.game import Game
from ..report.sensitivity import exact_rtp
from ..round import RoundAnalysis, analyse

__all__ = ["INT64", "MINOR_UNITS", "PROFILES", "TOLERANCE", "Check", "Profile"]

INT64 = 2**63 - 1
TOLERANCE = Fraction(5, 100_000)  # ±0.005 pp
MINOR_UNITS = 100


@dataclass(frozen=True)
class Profile:
    """A jurisdiction's numbers (see the module notes for their sources)."""

    name: str
    title: str
    rtp_min: Fraction
    rtp_max: Fraction
    odds_limit: int
    max_gambles: int = 5
    near_miss_limit: Fraction = Fraction(5, 4)
    """The largest near-miss factor a reel may show (:mod:`mathkit.checks.nearmiss`): 1 is an unweighted strip."""
    mode_band: Fraction = Fraction(5, 1000)
    """How far apart the RTPs of a game's bet modes may be (0.5 pp; :mod:`mathkit.checks.modes`)."""


PROFILES = {
    "gli11": Profile("gli11", "GLI-11 v3.0", Fraction(75, 100), Fraction(1), 100_000_000),
    "anz": Profile("anz", "ANZ Gaming Machine National Standard", Fraction(85, 100), Fraction(1), 50_000_000),
    "ukgc": Profile("ukgc", "UKGC Remote Technical Standards", Fraction(0), Fraction(1), 7_000_000),
}


@dataclass(frozen=True)
class Check:
    """One certification check and its outcome."""

    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


def _pct(x: Fraction | float, digits: int = 4) -> str:
    return f"{100 * float(x):.{digits}f}%"


def _one_in(p: Fraction | float) -> str:
    if p <= 0:
        return "never"
    n = 1 / float(p)
    return f"1 in {n:,.2f}" if n < 1000 else f"1 in {n:,.0f}"


@dataclass
class _Ctx:
    """A game under check, with the figures several checks share (computed once)."""

    game: Game
    profile: Profile
    reels: str
    memo: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, fn: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = fn()
        return self.memo[key]

    def rtp(self) -> Fraction:
        value: Fraction = self.once("rtp", lambda: exact_rtp(self.game, self.reels))
        return value

    def analysis(self) -> RoundAnalysis:
        """The round composed at the mean level (raised where the cap needs the distribution)."""
        value: RoundAnalysis = self.once("analysis", lambda: analyse(self.game, self.reels, level="mean"))
        return value

    def play_rtp(self) -> tuple[Fraction | float, str]:
        """The RTP a declared figure must equal: the whole round's, with the cap applied when there is one."""
        a = self.analysis()
        value = a.rtp()
        return (value if isinstance(value, Fraction) else float(value)), a.outcome.method

    @property
    def capped(self) -> bool:
        """Whether a transform limits a round's win (a cap)."""
        return self.analysis().limit is not None

    def components(self, game: Game, reels: str) -> Any:
        return self.once(f"comp:{reels}:{game.bet.coins[0]}", lambda: component_rtp(game, reels))
