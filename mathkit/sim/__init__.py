"""The simulator: a literal player of a game's rules, independent of the exact engine.

:mod:`~mathkit.sim.run` plays (:func:`~mathkit.sim.run.simulate`), :mod:`~mathkit.sim.results`
holds what it found (:class:`~mathkit.sim.results.SimResult`), :mod:`~mathkit.cli.simulate` is the
command line.  Underneath, :mod:`~mathkit.sim.spec` compiles a game to arrays
(:func:`~mathkit.sim.spec.compile_game`, with the line walk of :mod:`~mathkit.sim.lines`) and
:mod:`~mathkit.sim.kernels` plays blocks of it, drawing from the streams of
:mod:`~mathkit.sim.rng`; :mod:`~mathkit.sim.layout` names the slots they share.
:mod:`mathkit.sim.cluster` spreads the blocks over processes; :mod:`mathkit.sim`
re-exports the public names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .results import TAILS, Z95, Z99, Estimate, GambleResult, Proportion, SimResult
    from .run import BLOCK, CHUNK, GambleStrategy, run, simulate

__all__ = ["BLOCK", "CHUNK", "TAILS", "Z95", "Z99", "Estimate", "GambleResult", "GambleStrategy", "Proportion",
           "SimResult", "run", "simulate"]

# loaded on first use: ``mathkit.sim.sampling`` (imported by ``mathkit par``) must not load the compiled driver
_LAZY = {**dict.fromkeys(("TAILS", "Z95", "Z99", "Estimate", "GambleResult", "Proportion", "SimResult"), "results"),
         **dict.fromkeys(("BLOCK", "CHUNK", "GambleStrategy", "run", "simulate"), "run")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    msg = f"module 'mathkit.sim' has no attribute {name!r}"
    raise AttributeError(msg)
