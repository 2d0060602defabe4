"""A game's bet modes on the PAR sheet: each mode's figures per unit of what its round costs.

A mode (``[modes.NAME]``) is the game :func:`mathkit.features.modes.mode_game` builds plus a cost
in units of the base bet.  Its sheet is that game's PAR sheet (:func:`mathkit.report.par.build_sheet`),
read per ``cost × base bet``: RTP = E[win] / (cost × bet), σ and the max win divided by the cost;
the hit frequency, P(cap) and the feature frequency are probabilities per round, unchanged.

:func:`mode_table` lists the base game (mode ``"base"``, cost 1) and every mode, each with its name,
cost, figures and whole-round win law — what an export loops over.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> toy = load_game("tests/data/modes_toy.toml")
>>> buy = mode_figures(toy, "buy")
>>> buy.cost, buy.rtp.exact            # (3/4 · 2 + 1/4 · 9) / 10, derived in tests/test_modes.py
(Fraction(10, 1), Fraction(3, 8))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..features.bought_entry import BoughtEntry
from ..features.modes import mode_game
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure
from ..model.game import Game
from .par import ParSheet, RoundSheet, Sampler, build_sheet

__all__ = ["BASE_MODE", "ModeFigures", "mode_figures", "mode_section", "mode_table", "mode_to_dict", "mode_to_text",
           "modes_to_text", "per_cost"]

BOUGHT = BoughtEntry.title
BASE_MODE = "base"
"""The name :func:`mode_table` gives the base game (cost 1)."""


def per_cost(f: Figure | None, cost: Fraction) -> Figure | None:
    """A figure per unit of the base bet, read per unit of ``cost`` × the base bet.

    Examples
    --------
    >>> per_cost(Figure.of(Fraction(3, 2)), Fraction(3)).exact
    Fraction(1, 2)
    """
    if f is None:
        return None
    return Figure(f.value / float(cost), f.method, None if f.exact is None else f.exact / cost)


@dataclass(frozen=True, eq=False)
class ModeFigures:
    """One bet mode's figures: ``rtp``, ``sd`` and ``max_win`` per unit of what a round costs (``cost`` × base bet).

    ``sheet`` is the PAR sheet of the game the mode plays, per unit of the base bet (its
    :attr:`~mathkit.report.par.ParSheet.distribution`, when it has one, is the whole round's win law in
    credits: :attr:`law`); ``cap`` is × the base bet, as the file declares it.
    """

    name: str
    cost: Fraction
    declared_rtp: Fraction | None
    sheet: RoundSheet

    @property
    def rtp(self) -> Figure:
        out = per_cost(self.sheet.rtp, self.cost)
        assert out is not None
        return out

    @property
    def components(self) -> dict[str, Figure]:
        return {k: f for k, v in self.sheet.components.items() if (f := per_cost(v, self.cost)) is not None}

    @property
    def sd(self) -> Figure | None:
        s = self.sheet
        return per_cost(s.sd if isinstance(s, ParSheet) else s.sd_moments, self.cost)

    @property
    def hit_frequency(self) -> Figure | None:
        s = self.sheet
        return s.hit_frequency if isinstance(s, ParSheet) else None

    @property
    def max_win(self) -> Figure | None:
        """The largest win of a round, × what the round costs."""
        s = self.sheet
        return per_cost(s.max_win, self.cost) if isinstance(s, ParSheet) else None

    @property
    def max_win_probability(self) -> Figure | None:
        s = self.sheet
        return s.max_win_probability if isinstance(s, ParSheet) else None

    @property
    def cap(self) -> Figure | None:
        return self.sheet.cap

    @property
    def cap_probability(self) -> Figure | None:
        return self.sheet.cap_probability

    @property
    def feature_frequency(self) -> Figure | None:
        """P(a round enters any feature)."""
        return self.sheet.trigger_probability

    @property
    def law(self) -> WinLaw | None:
        """The whole round's win law (values in credits, per unit of the base bet), when the sheet has it."""
        s = self.sheet
        return s.distribution if isinstance(s, ParSheet) else None

    @property
    def stake(self) -> Fraction:
        """What a round costs in credits: ``cost`` × the base bet."""
        return self.cost * self.sheet.total_bet


SamplerFor = Callable[[Game], Sampler | None]
"""The sampler of what the exact analysis of a game leaves out (the game a mode plays), or ``None``."""


def mode_figures(game: Game, name: str, *, sampler_for: SamplerFor | None = None, parallel: bool = False,
                 reels: str | None = None, lines: int | None = None, coins: int | None = None) -> ModeFigures:
    """The figures of bet mode ``name`` of ``game`` (``"base"``: the base game, cost 1).

    ``sampler_for(played)`` samples what the exact analysis of the game played leaves out (as the
    ``sampler`` of :func:`~mathkit.report.par.build_sheet`).
    """
    if name == BASE_MODE:
        played, cost, declared = game, Fraction(1), game.declared_for(reels)
    else:
        mode = game.mode(name)
        played, cost, declared = mode_game(game, name), mode.cost, mode.declared_rtp
    sampler = None if sampler_for is None else sampler_for(played)
    sheet = build_sheet(played, reels, lines=lines, coins=coins, parallel=parallel, sampler=sampler)
    return ModeFigures(name, cost, declared, sheet)


def mode_table(game: Game, *, sampler_for: SamplerFor | None = None, parallel: bool = False,
               base: bool = True) -> tuple[ModeFigures, ...]:
    """The base game (``"base"``, cost 1) and every bet mode of ``game``, in the file's order: what an export loops over.

    ``base=False`` leaves the base game out.  Each entry has its name, its cost (× the base bet), its
    figures and, where the exact analysis gives it, its whole-round win law (:attr:`ModeFigures.law`).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> [(m.name, str(m.cost)) for m in mode_table(load_game("tests/data/modes_toy.toml"))]
    [('base', '1'), ('ante', '5/4'), ('buy', '10'), ('buy_capped', '10')]
    """
    names = (*((BASE_MODE,) if base else ()), *(m.name for m in game.modes))
    return tuple(mode_figures(game, n, sampler_for=sampler_for, parallel=parallel) for n in names)


def _rows(m: ModeFigures) -> list[tuple[str, Figure | None]]:
    return [("cost (× base bet)", Figure.of(m.cost)),
            ("declared RTP", None if m.declared_rtp is None else Figure.of(m.declared_rtp)),
            ("RTP (win / cost × bet)", m.rtp),
            ("σ (× cost × bet)", m.sd),
            ("hit frequency", m.hit_frequency),
            ("max win (× cost × bet)", m.max_win),
            ("max win probability", m.max_win_probability),
            ("cap (× base bet)", m.cap),
            ("P(cap)", m.cap_probability),
            ("feature frequency", m.feature_frequency),
            ("feature frequency (1 in N)", None if m.feature_frequency is None else Figure.odds(
                m.feature_frequency.exact if m.feature_frequency.exact is not None else m.feature_frequency.value))]


def mode_section(m: ModeFigures) -> FeatureSection:
    """The mode's section of the PAR sheet: its figures per cost × bet, its RTP by component, the buy's entry law."""
    figures = tuple((k, f) for k, f in _rows(m) if f is not None)
    table = (("component", "RTP (win / cost × bet)"), *((k, f"{f.value:.6%}") for k, f in m.components.items()))
    stake = f"{float(m.stake):g}"
    notes = [f"a round of mode {m.name!r} costs {m.cost} × the base bet ({stake} credits); its RTP is the expected "
             "win over that cost; σ and the max win are per unit of it too; probabilities are per round"]
    for sec in m.sheet.features:  # the bought spin's entry law (probabilities only: nothing per base bet)
        if sec.name.startswith(BOUGHT):
            figures += sec.figures
            notes += sec.notes
    title = "Bet mode: base game" if m.name == BASE_MODE else f"Bet mode: {m.name}"
    return FeatureSection(title, figures, table, tuple(notes))


def mode_to_text(m: ModeFigures) -> str:
    """The mode's section as text (``mathkit par GAME --mode NAME``)."""
    sec = mode_section(m)
    w = [sec.name]
    for k, f in sec.figures:
        v = "never" if f.value == float("inf") else f"{f.value:.6g}"
        exact = f"  = {f.exact_str()}" if f.exact is not None and len(f.exact_str() or "") < 30 else ""
        w.append(f"  {k:<44} {v:>14}   [{f.method}]{exact}")
    for row in sec.table:
        w.append("  " + " | ".join(row))
    w += [f"  note: {n}" for n in sec.notes]
    return "\n".join(w) + "\n"


def modes_to_text(game: Game, modes: tuple[ModeFigures, ...]) -> str:
    """Every mode's section, with the check the modes answer (within the band of one another)."""
    line = "=" * 78
    head = [line, f"Bet modes — {game.name}", line]
    return "\n".join(head) + "\n" + "\n".join(mode_to_text(m) for m in modes)


def _fig(f: Figure | None) -> Any:
    if f is None:
        return None
    out: dict[str, Any] = {"value": f.value if f.value != float("inf") else None, "method": f.method}
    if f.exact is not None:
        out["exact"] = f.exact_str()
    return out


def mode_to_dict(m: ModeFigures, *, distribution: bool = True) -> dict[str, Any]:
    """The mode's figures as JSON-ready data (``mathkit par --mode NAME --json``); ``distribution``: with its win law."""
    out: dict[str, Any] = {"mode": m.name, "cost": f"{m.cost.numerator}/{m.cost.denominator}"
                           if m.cost.denominator != 1 else m.cost.numerator,
                           "stake_credits": float(m.stake)}
    keys = ("declared_rtp", "rtp", "sd", "hit_frequency", "max_win", "max_win_probability", "cap", "cap_probability",
            "feature_frequency")
    for k in keys:
        v = getattr(m, k)
        out[k] = _fig(Figure.of(v) if isinstance(v, Fraction) else v)
    out["components"] = {k: _fig(f) for k, f in m.components.items()}
    out["sections"] = [{"name": sec.name, "figures": {k: _fig(f) for k, f in sec.figures}, "notes": list(sec.notes)}
                       for sec in (mode_section(m),)]
    law = m.law
    if law is not None and distribution:
        out["distribution"] = {"values_credits": [int(x) for x in law.values.tolist()],
                               "probabilities": [float(p) for p in law.probs.tolist()],
                               "method": law.method, "lost_mass": float(law.lost_mass)}
    return out
