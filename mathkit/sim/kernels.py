"""The generic driver: one compiled loop plays blocks of whole rounds of any compiled game.

The driver's code is :mod:`mathkit.sim.frame` (the base loop and the round loop: what it does per spin, and
why, is said there) with its instruction dispatch written from the words of :mod:`mathkit.sim.words` by
:mod:`mathkit.sim.driver`; this module loads it (generating it first when no warm-up has) and calls the build
a game needs: lines or ways, one base variant or several.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from . import layout as K
from .driver import load
from .layout import FloatArray, IntArray, UIntArray

if TYPE_CHECKING:
    from .spec import SimSpec

__all__ = ["play_block"]

_KERNELS = load().KERNELS


def play_block(n_plays: int, st: UIntArray, kind: int, spec: SimSpec, acc: IntArray, facc: FloatArray,
               wins: IntArray) -> None:
    """Play ``n_plays`` whole rounds of ``spec`` into ``acc``/``facc`` (and ``wins``, when not empty).

    ``st`` stacks the states (:func:`~mathkit.sim.rng.generator_state`) of the generators the
    base spins and the features draw from; ``kind`` says which bit generator they are; ``acc``
    holds at least ``spec.n_acc`` slots (:meth:`~mathkit.sim.spec.SimSpec.new_sums`).
    """
    if acc.shape[0] < spec.n_acc or facc.shape[0] < K.N_FACC:
        msg = f"{spec.name}: the sums need {spec.n_acc} integer slots (SimSpec.new_sums), not {acc.shape[0]}"
        raise UsageError(msg)
    kernel = _KERNELS[spec.ways, int(spec.par[K.P_VARIANTS]) == 1]
    kernel(n_plays, st, kind, spec.models, spec.program, spec.ways_tables, spec.par, acc, facc, wins)
