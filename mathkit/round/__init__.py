"""The round composer: a game's blocks played along a round, exactly where they can be.

:func:`analyse` composes the base spin (under its modifiers), the sequence
features it leads to and the transforms into a :class:`RoundAnalysis`;
:func:`rtp_breakdown` is its fast mean-only path.  :class:`Engine` is the exact
engine as the blocks see it (their :class:`~mathkit.features.Context`).
"""

from .compose import RoundAnalysis, analyse, rtp_breakdown
from .engine import Engine

__all__ = ["Engine", "RoundAnalysis", "analyse", "rtp_breakdown"]
