"""Features as pluggable blocks: free spins, re-spins, the gamble, the cap ...

Each mechanic is one module here: a frozen block holding its data, reading and
writing its own TOML table, validating itself against the game, and answering
the questions every block answers (its PAR section, termination, max win, its
law along the round; see :mod:`mathkit.features.base`).  :mod:`mathkit.features.registry`
maps TOML tables to blocks; :mod:`mathkit.laws.stage` is the vocabulary the
blocks and the round composer (:mod:`mathkit.round`) share.  How to add one:
``docs/extending.md``.
"""

from ..laws.law import WinLaw
from ..laws.stage import Branch, Entry, Exit, JointLaw, Level, Outcome, SpinModel, StageLaw
from .base import Block, Context, FeatureStats, Finding, MaxWin, Termination
from .registry import KINDS, block_class, features_from_dict, features_to_dict

__all__ = [
    "KINDS",
    "Block",
    "Branch",
    "Context",
    "Entry",
    "Exit",
    "FeatureStats",
    "Finding",
    "JointLaw",
    "Level",
    "MaxWin",
    "Outcome",
    "SpinModel",
    "StageLaw",
    "Termination",
    "WinLaw",
    "block_class",
    "features_from_dict",
    "features_to_dict",
]
