"""What a tuning aims at: :class:`Target` bands on exact figures, their defaults, and where they come from.

Every target is a band ``[low, high]`` on one figure of the whole play, given
as a value with a tolerance (the default below when none is given) or as the
band itself:

============================  ==========================================  ====================
figure                        meaning                                     default tolerance
============================  ==========================================  ====================
``rtp``                       total RTP (lines, scatters, features)       ±0.005 pp
``component:NAME``            the RTP of one component (``lines``,        ±0.1 pp
                              ``scatter``, ``free spins`` ...)
``sd``                        σ of a whole play per unit of total bet     ±5%
``vi``                        volatility index 1.645·σ (90%)              ±5%
``hit_frequency``             P(a base spin pays)                         ±0.5 pp
``feature_frequency``         1 in N base spins starts a feature          ±5% of N
``top_award``                 1 in N games per line at one line played    ±10% of N
                              for the top line award (as ``mathkit
                              check`` counts award odds)
============================  ==========================================  ====================

Figures written "1 in N" are given and reported as N; internally the band is
on the probability.  The game's ``[targets]`` table (:class:`mathkit.model.game.Targets`)
declares the RTP and the σ and hit-frequency bands; the others come from the
command line or the caller.

Examples
--------
>>> t = Target.of("sd", Fraction(13, 2))
>>> float(t.low), float(t.high), t.contains(6.4)
(6.175, 6.825, True)
>>> Target.of("feature_frequency", band=(Fraction(140), Fraction(160))).prob_band == (Fraction(1, 160), Fraction(1, 140))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..errors import ModelError, UnknownNameError
from ..model.game import Game

__all__ = ["DEFAULT_TOLERANCE", "ONE_IN", "TOLERANCE", "VI_Z", "Target", "TargetSet", "label_of", "parse_band"]

#: ±0.005 percentage points: the default RTP tolerance
TOLERANCE = Fraction(5, 100_000)
#: z of the volatility index (90%)
VI_Z = Fraction(1645, 1000)
#: figures written as "1 in N"
ONE_IN = ("feature_frequency", "top_award")
#: figure -> ("abs" | "rel", tolerance)
DEFAULT_TOLERANCE: dict[str, tuple[str, Fraction]] = {
    "rtp": ("abs", TOLERANCE),
    "component": ("abs", Fraction(1, 1000)),
    "sd": ("rel", Fraction(1, 20)),
    "vi": ("rel", Fraction(1, 20)),
    "hit_frequency": ("abs", Fraction(5, 1000)),
    "feature_frequency": ("rel", Fraction(1, 20)),
    "top_award": ("rel", Fraction(1, 10)),
}
LABELS = {"rtp": "RTP", "sd": "σ (whole play)", "vi": "VI 90%", "hit_frequency": "hit frequency",
          "feature_frequency": "feature 1 in N", "top_award": "top award 1 in N"}


def label_of(figure: str) -> str:
    """How a figure is named in tables: ``RTP``, ``σ (whole play)``, ``RTP free spins`` ..."""
    if figure.startswith("component:"):
        return "RTP " + figure.partition(":")[2]
    return LABELS.get(figure, figure)


def _kind(figure: str) -> str:
    return "component" if figure.startswith("component:") else figure


@dataclass(frozen=True)
class Target:
    """A band ``[low, high]`` on one figure, and the value aimed at inside it.

    ``low``/``high``/``value`` are in the figure's own units (N for "1 in N").
    """

    figure: str
    low: Fraction
    high: Fraction
    value: Fraction

    @classmethod
    def of(cls, figure: str, value: Fraction | None = None, tolerance: Fraction | None = None,
           band: tuple[Fraction, Fraction] | None = None) -> Target:
        """A target from a value (± ``tolerance``, default per figure) or a band."""
        kind = _kind(figure)
        if kind not in DEFAULT_TOLERANCE:
            msg = f"unknown target figure {figure!r} (one of: {', '.join((*LABELS, 'component:NAME'))})"
            raise ModelError(msg)
        if band is not None:
            low, high = band
            if low > high:
                msg = f"target {figure}: band [{float(low):g}, {float(high):g}] is empty"
                raise ModelError(msg)
            return cls(figure, low, high, (low + high) / 2 if value is None else value)
        if value is None:
            msg = f"target {figure}: give a value or a band"
            raise ModelError(msg)
        how, default = DEFAULT_TOLERANCE[kind]
        tol = tolerance if tolerance is not None else (default * abs(value) if how == "rel" else default)
        return cls(figure, value - tol, value + tol, value)

    @property
    def label(self) -> str:
        return label_of(self.figure)

    @property
    def one_in(self) -> bool:
        return self.figure in ONE_IN

    @property
    def prob_band(self) -> tuple[Fraction, Fraction]:
        """The band on the probability, for a "1 in N" figure."""
        if self.low <= 0:
            msg = f"target {self.figure}: 1 in N needs N > 0"
            raise ModelError(msg)
        return 1 / self.high, 1 / self.low

    def contains(self, x: Fraction | float) -> bool:
        return bool(self.low <= x <= self.high)

    def miss(self, x: Fraction | float) -> float:
        """How far ``x`` lies outside the band, in half-widths (0 inside)."""
        half = max(float(self.high - self.low) / 2, 1e-15)
        if x < self.low:
            return float(self.low - Fraction(x)) / half
        if x > self.high:
            return float(Fraction(x) - self.high) / half
        return 0.0


@dataclass(frozen=True)
class TargetSet:
    """The targets of one tuning: exactly one RTP target, any others."""

    items: tuple[Target, ...]

    def __post_init__(self) -> None:
        names = [t.figure for t in self.items]
        if "rtp" not in names:
            msg = "a tuning needs an RTP target (--target-rtp, or declared_rtp in the game)"
            raise ModelError(msg)
        if len(set(names)) != len(names):
            msg = f"a figure is targeted twice: {names}"
            raise ModelError(msg)

    @property
    def rtp(self) -> Target:
        return self["rtp"]

    def __getitem__(self, figure: str) -> Target:
        for t in self.items:
            if t.figure == figure:
                return t
        msg = f"no target for {figure!r}: {', '.join(t.figure for t in self.items)}"
        raise UnknownNameError(msg)

    def get(self, figure: str) -> Target | None:
        return next((t for t in self.items if t.figure == figure), None)

    @property
    def secondary(self) -> tuple[Target, ...]:
        """Targets that need the whole play's moments (σ, VI, hit frequency)."""
        return tuple(t for t in self.items if t.figure in ("sd", "vi", "hit_frequency"))

    def with_rtp(self, rtp: Fraction, tolerance: Fraction | None = None) -> TargetSet:
        """The same targets aiming at RTP ``rtp`` (tolerance kept unless given)."""
        old = self.rtp
        tol = (old.high - old.low) / 2 if tolerance is None else tolerance
        return TargetSet(tuple(Target.of("rtp", rtp, tol) if t.figure == "rtp" else t for t in self.items))

    @classmethod
    def build(cls, game: Game, overrides: Mapping[str, Target] | Iterable[Target] = (),
              reels: str | None = None) -> TargetSet:
        """The game's targets (``[targets]``: the RTP, default ``declared_rtp``, and the σ and hit-frequency
        bands; :class:`mathkit.model.game.Targets`) on reel set ``reels``, then ``overrides``."""
        items: dict[str, Target] = {}
        declared = game.targets
        rtp = game.target_rtp(reels)
        if rtp is not None:
            items["rtp"] = Target.of("rtp", rtp, declared.rtp_tolerance)
        for figure, band in (("sd", declared.sd), ("hit_frequency", declared.hit_frequency)):
            if band is not None:
                items[figure] = Target.of(figure, band=(Fraction(str(band[0])), Fraction(str(band[1]))))
        given = overrides.values() if isinstance(overrides, Mapping) else overrides
        for t in given:
            items[t.figure] = t
        return cls(tuple(items.values()))


def parse_band(figure: str, text: str, tolerance: str | None = None) -> Target:
    """A target from command-line text: ``6.5``, ``6.2..6.8``, ``94%`` or ``94%..94.01%`` (``tolerance`` likewise).

    Examples
    --------
    >>> t = parse_band("rtp", "94%")
    >>> t.value, float(t.high - t.low)
    (Fraction(47, 50), 0.0001)
    >>> parse_band("sd", "6.2..6.8").value
    Fraction(13, 2)
    """

    def num(x: str) -> Fraction:
        x = x.strip()
        try:
            return Fraction(x[:-1]) / 100 if x.endswith("%") else Fraction(x)
        except (ValueError, ZeroDivisionError):
            msg = f"--{figure.replace('_', '-')}: not a number: {x!r}"
            raise ModelError(msg) from None

    if ".." in text:
        lo, _, hi = text.partition("..")
        return Target.of(figure, band=(num(lo), num(hi)))
    return Target.of(figure, num(text), None if tolerance is None else num(tolerance))
