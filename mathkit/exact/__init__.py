"""Exact maths of a spin: RTP by component from per-reel counts, line pairs, and the full cycle.

:mod:`.base` (one base spin: :func:`spin`, :func:`rtp`, :class:`SpinMaths`), :mod:`.components`
(RTP by component, no enumeration), :mod:`.pairs` (second moments from line pairs),
:mod:`.cycle` (the full-cycle win distribution by meeting in the middle).
"""

from .base import SpinMaths, rtp, spin

__all__ = ["SpinMaths", "rtp", "spin"]
