"""The PAR sheet's figures by the simulator's names: what a simulation of the same game and bet is checked against.

A sheet (:mod:`mathkit.report.par`) keeps, besides its figures, how a round enters its
sequence features (:func:`entry_figures`: plain :class:`~mathkit.laws.provenance.Figure` s, so
the sheet pickles) and, where several sequence features share a title (Warlords' three free-spin
games), how often a round enters any of them (:func:`with_any_type`); :func:`checked_figures` names them as
:class:`~mathkit.sim.results.SimResult` does.  Both ``mathkit simulate``
(:mod:`mathkit.cli.simulate`) and :func:`mathkit.dev.render.cross_check` read them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..laws.provenance import FeatureSection, Figure
from ..round.compose import as_block

if TYPE_CHECKING:
    from ..round import RoundAnalysis

__all__ = ["ANY_TYPE", "block_figures", "checked_figures", "entry_figures", "par_figures", "with_any_type"]

ANY_TYPE = "any type"
"""The name of a combined section after its title: ``Free spins: any type``."""


def entry_figures(analysis: RoundAnalysis) -> dict[str, Any]:
    """How a round of ``analysis`` enters its features, as sheet fields.

    ``trigger_probability``: P(a base spin starts any feature); ``p_enter``: each feature's
    entries per round, by the feature's name.
    """
    p_none = sum((b.p for key, b in analysis.base.branches.items() if not key), Fraction(0))
    return {"trigger_probability": Figure.of(1 - p_none),
            "p_enter": {name: Figure.of(s.p_enter) for name, s in analysis.stats.items()}}


def with_any_type(analysis: RoundAnalysis) -> tuple[FeatureSection, ...]:
    """The analysis' sections, each title several sequence features share followed by its section ``TITLE: any type``.

    That section (after the last of the features' own) gives P(a round enters at least one of them) —
    the union of their entry events (:meth:`~mathkit.round.RoundAnalysis.enter_any`), exact — beside each
    feature's own trigger probability and their sum: equal when no round can enter two of them (Warlords'
    free-spin games, one per re-spin battle), above the union otherwise.
    """
    sections = list(analysis.sections)
    groups: dict[str, list[str]] = {}
    for f in analysis.game.features:
        if as_block(f).role == "sequence" and f.name in analysis.stats:
            groups.setdefault(as_block(f).title, []).append(f.name)
    for title, names in groups.items():
        headings = {as_block(analysis.game.feature(n)).heading for n in names}
        at = [i for i, s in enumerate(sections) if s.name in headings]
        if len(names) < 2 or not at:
            continue
        union = analysis.enter_any(names)
        each = {n: analysis.stats[n].p_enter for n in names}
        total = sum(each.values(), Fraction(0))
        rows = [("type", "trigger probability", "1 in"),
                *((n, f"{float(p):.6g}", f"{1 / float(p):,.2f}" if p else "never") for n, p in each.items()),
                (ANY_TYPE, f"{float(union):.6g}", f"{1 / float(union):,.2f}" if union else "never")]
        gap = total - union
        how = ("no round enters two of them, so it is their sum" if gap == 0 else
               f"a round may enter several, so it is below their sum by {float(gap):.6g} (E[types entered] − P(any))")
        notes = (f"P(a round enters at least one of {', '.join(names)}): the union of their entry events, from the "
                 f"round's stage laws (the features one exit plays counted once); {how}",)
        section = FeatureSection(f"{title}: {ANY_TYPE}", (
            (f"trigger probability ({ANY_TYPE})", Figure.of(union)),
            ("trigger frequency (1 in N)", Figure.odds(union)),
            ("sum of the types' trigger probabilities", Figure.of(total)),
        ), tuple(rows), notes)
        sections.insert(at[-1] + 1, section)
    return tuple(sections)


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
