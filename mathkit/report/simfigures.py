"""The PAR sheet's figures by the simulator's names: what a simulation of the same game and bet is checked against.

A sheet (:mod:`mathkit.report.par`) keeps, besides its figures, how a round enters its
sequence features (:func:`entry_figures`: plain :class:`~mathkit.laws.provenance.Figure` s, so
the sheet pickles); :func:`checked_figures` names them as
:class:`~mathkit.sim.results.SimResult` does.  Both ``mathkit simulate``
(:mod:`mathkit.cli.simulate`) and :func:`mathkit.dev.render.cross_check` read them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..laws.provenance import Figure

if TYPE_CHECKING:
    from ..round import RoundAnalysis

__all__ = ["block_figures", "checked_figures", "entry_figures", "par_figures"]


def entry_figures(analysis: RoundAnalysis) -> dict[str, Any]:
    """How a round of ``analysis`` enters its features, as sheet fields.

    ``trigger_probability``: P(a base spin starts any feature); ``p_enter``: each feature's
    entries per round, by the feature's name.
    """
    p_none = sum((b.p for key, b in analysis.base.branches.items() if not key), Fraction(0))
    return {"trigger_probability": Figure.of(1 - p_none),
            "p_enter": {name: Figure.of(s.p_enter) for name, s in analysis.stats.items()}}


def checked_figures(par: Any, sequences: tuple[str, ...]) -> dict[str, Figure]:
    """A PAR sheet's figures a simulation can check, by the simulation's names (σ apart).

    RTP, its components, hit frequencies; with sequence features (``sequences``), the
    probability that a base spin starts one (``trigger_probability``: any of them) and
    each one's entries per round (``p_enter:NAME``); with a cap, ``p_cap`` (unless only bounded); the figures
    of the blocks' sections the simulator counts too (:func:`block_figures`).
    """
    figures: dict[str, Figure] = {"rtp": par.rtp}
    for name in ("hit_frequency", "hit_frequency_bet"):  # a sheet of the means has none
        if getattr(par, name, None) is not None:
            figures[name] = getattr(par, name)
    figures |= par.components
    trigger: Figure | None = par.trigger_probability
    p_enter: Mapping[str, Figure] = par.p_enter
    if trigger is not None and sequences:
        figures["trigger_probability"] = trigger
        for name in sequences:
            if name in p_enter:
                figures[f"p_enter:{name}"] = p_enter[name]
    if par.cap_probability is not None and not getattr(par, "cap_probability_bound", False):
        figures["p_cap"] = par.cap_probability  # (a bound only is no figure to check)
    return figures | block_figures(par)


def block_figures(par: Any) -> dict[str, Figure]:
    """The figures of the blocks' PAR sections that the simulator estimates (each block's ``sim_checks``).

    Prince of Riches' mean length of the free games, the height of their last game and how
    often the cash stacks play, by the simulator's names.
    """
    out: dict[str, Figure] = {}
    game = par.game
    for block in game.features:
        checks = block.sim_checks(game) if hasattr(block, "sim_checks") else {}
        for section in par.features:
            found = {name: f for name, f in section.figures if name in checks}
            if section.name in (block.title, block.heading) and found:
                out |= {checks[name]: f for name, f in found.items()}
                break
    return out


def par_figures(par: Any, sequences: tuple[str, ...]) -> dict[str, float]:
    """:func:`checked_figures` as floats."""
    return {k: f.value for k, f in checked_figures(par, sequences).items()}
