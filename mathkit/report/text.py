"""Rendering a :class:`~mathkit.report.par.ParSheet`: readable text, a JSON-ready dict, CSV rows."""

from __future__ import annotations

import csv
import io
import math
from fractions import Fraction
from typing import Any

from ..gamefile.io import write_atomic
from ..laws.mixture import RESOLUTION, Estimate, MixedLaw
from ..laws.provenance import FeatureSection, Figure
from .basespin import BASE_SPIN_DEFINITION, BaseSpin
from .par import HIT_FREQUENCY_PER_LINE, HIT_FREQUENCY_PER_SPIN, RANGE_SPINS, ParSheet, RoundSheet, Z
from .strict import reason

__all__ = ["NEVER", "PAYTABLE_DEFINITIONS", "one_in", "par_to_csv", "par_to_dict", "par_to_text", "pct", "shown",
           "write_atomic"]


def pct(x: float, digits: int = 4) -> str:
    """``x`` as a percentage with ``digits`` decimals."""
    return f"{100 * x:.{digits}f}%"


def one_in(p: float | Fraction) -> str:
    """Odds ``p`` written as "1 in N"; beyond 1 in 10¹² in scientific notation.

    Examples
    --------
    >>> one_in(0.25), one_in(1 / 11_853_602_509_195_548_672), one_in(0)
    ('1 in 4.00', '1 in 1.185e+19', 'never')
    """
    if p <= 0:
        return "never"
    n = 1 / float(p)
    if n >= 1e12:
        return f"1 in {n:.3e}"
    return f"1 in {n:,.2f}" if n < 1000 else f"1 in {n:,.0f}"


PAYTABLE_DEFINITIONS = {
    "hits": "what pays the combination over the cycle: (outcome, line) pairs for a line combination, outcomes for a "
            "scatter or ways one",
    "hits_per_spin": "hits / cycle: how many times one spin pays the combination on average (above 1 where many "
                     "lines pay it; not a probability)",
    "probability": "per line played for a line combination (hits / (cycle × lines): P(a line pays it)), per spin for "
                   "the others (hits / cycle); probability_per says which",
}
"""What the paytable's columns are (``paytable_definitions`` in the JSON; the text sheet says it in a line)."""
NEVER = "never: its probability is 0, so there is no N"
"""Why odds "1 in N" of an event that never happens are ``null`` in the JSON."""


def _fig(name: str, f: Figure) -> dict[str, Any]:
    if not math.isfinite(f.value):  # strict JSON: null, with the reason
        why = NEVER if "1 in N" in name and f.value > 0 else reason(f.value)
        return {"value": None, "reason": why, "method": f.method}
    out: dict[str, Any] = {"value": f.value, "method": f.method}
    if f.exact is not None:
        out["exact"] = f.exact_str()
    return out


def _section(s: FeatureSection) -> dict[str, Any]:
    return {"name": s.name, "figures": {k: _fig(k, f) for k, f in s.figures}, "table": [list(r) for r in s.table],
            "notes": list(s.notes)}


def shown(name: str, f: Figure) -> float | str:
    """A section figure's value for a sheet: the number, or in words when it has none (``never`` for odds
    "1 in N" of an event that never happens; :func:`~mathkit.report.strict.reason` otherwise).

    Examples
    --------
    >>> shown("trigger frequency (1 in N)", Figure.odds(0)), shown("trigger frequency (1 in N)", Figure.odds(0.5))
    ('never', 2.0)
    """
    if math.isfinite(f.value):
        return f.value
    return "never" if "1 in N" in name and f.value > 0 else reason(f.value)


def _value(name: str, f: Figure, width: int) -> str:
    v = shown(name, f)
    return f"{v:>{width}.6g}" if isinstance(v, float) else f"{v:>{width}}"


def par_to_dict(par: RoundSheet) -> dict[str, Any]:
    """The PAR sheet as a JSON-ready mapping.

    Top-level keys hold plain numbers (``rtp``, ``sd``, ``hit_frequency`` ...);
    ``provenance`` says for each how it was obtained, and ``figures`` repeats
    them with their exact value where there is one.  ``rtp_exact`` is the RTP as
    a fraction, or (a markov figure known to that precision) the decimals that
    are certain.  A sheet of the round's means (:class:`~mathkit.report.par.RoundSheet`)
    has no distribution figures: ``level`` says so and they are ``null``.
    """
    g = par.game
    breakdown = {k: f.value for k, f in par.components.items()}
    out: dict[str, Any] = {
        "game": g.name,
        "reels": par.reels,
        "lines": par.lines,
        "lines_by_height": [{"height": h, "lines": n} for h, n in par.lines_by_height] or None,
        "coins": par.coins,
        "total_bet": par.total_bet,
        "level": par.level,
        "rtp": par.rtp.value,
        "rtp_exact": par.rtp.exact_str() or par.rtp.digits,
        "breakdown": breakdown,
        "breakdown_exact": {k: f.exact_str() for k, f in par.components.items()},
        "sd": None,
        "hit_frequency": None,
        "hit_frequency_win_ge_bet": None,
        "volatility_index": None,
        "max_win": None,
        "max_win_bounded": par.max_win_bounded,
        "max_win_probability": None,
        "p_win_ge": None,
        "cycle": par.cycle,
        "rtp_range": None,
        "provenance": {
            "rtp": par.rtp.method,
            "breakdown": {k: f.method for k, f in par.components.items()},
            "cycle": "exact",
        },
        "paytable": [
            {"component": e.component, "entry": e.entry, "count": e.count, "pay": e.pay, "hits": e.hits,
             "hits_per_spin": e.hits_per_spin.value, "probability": e.probability.value, "probability_per": e.per,
             "rtp": e.rtp.value, "rtp_exact": e.rtp.exact_str(), "combination": e.combination or f"{e.count} × {e.entry}"}
            for e in par.entries
        ],
        "paytable_definitions": PAYTABLE_DEFINITIONS,
        "symbol_counts": {rs: {name: list(c) for name, c in rows} for rs, rows in par.symbol_counts.items()},
        "features": [_section(s) for s in par.features],
        "readings": [{"rule": r.rule, "reading": r.reading, "reason": r.reason} for r in g.readings],
        "hit_frequency_per_line": None,
        "hit_frequency_definitions": {"hit_frequency": HIT_FREQUENCY_PER_SPIN,
                                      "hit_frequency_per_line": HIT_FREQUENCY_PER_LINE},
        "scatter_unit": g.scatter_unit,
        "scatter_unit_credits": par.base.tables.scatter_credits,
        "scatter_bet": g.scatter_bet,
    }
    if par.hit_frequency_per_line is not None:
        out["hit_frequency_per_line"] = par.hit_frequency_per_line.value
        out["hit_frequency_per_line_exact"] = par.hit_frequency_per_line.exact_str()
        out["provenance"]["hit_frequency_per_line"] = par.hit_frequency_per_line.method
    if isinstance(par, ParSheet):
        out.update({
            "sd": par.sd.value,
            "hit_frequency": par.hit_frequency.value,
            "hit_frequency_win_ge_bet": par.hit_frequency_bet.value,
            "volatility_index": {k: f.value for k, f in par.volatility_index.items()},
            **_max_win_fields(par, par.max_win.value, par.max_win_probability.value),
            "p_win_ge": {f"{m}x": f.value for m, f in par.tails.items()},
            "rtp_range": {k: [{"spins": n, "low": lo, "high": hi} for n, lo, hi in rows]
                          for k, rows in par.rtp_range.items()},
        })
        out["provenance"].update({"sd": par.sd.method, "hit_frequency": par.hit_frequency.method,
                                  "volatility_index": par.sd.method, "max_win": par.max_win.method})
    if par.sd_moments is not None:
        sd = par.sd_moments
        out.update({
            "sd": sd.value,
            "volatility_index": {k: z * sd.value for k, z in Z.items()},
            "rtp_range": {k: [{"spins": n, "low": par.rtp.value - z * sd.value / math.sqrt(n),
                               "high": par.rtp.value + z * sd.value / math.sqrt(n)} for n in RANGE_SPINS]
                          for k, z in Z.items()},
            "sd_note": par.sd_note,
        })
        out["provenance"].update({"sd": sd.method, "volatility_index": sd.method, "rtp_range": sd.method})
        out["provenance"].update(par.not_computed)
        if par.not_computed:
            out["not_computed"] = dict(par.not_computed)
    if par.not_computed:  # strict JSON: a figure left out is null, with its reason beside it
        out["not_computed"] = dict(par.not_computed)
        out["provenance"].update(par.not_computed)
        for k, why in par.not_computed.items():
            if out.get(k, "") is None:
                out[f"{k}_reason"] = why
    if par.refused:
        out["refused"] = par.refused
    if par.sessions is not None:
        out["sessions"] = _section(par.sessions)
    if par.base_spin is not None:
        out["base_spin"] = _base_spin_dict(par.base_spin)
    if par.declared_rtp is not None:
        out["declared_rtp"] = float(par.declared_rtp)
    if par.cap is not None:
        out["cap"] = par.cap.value
        out["cap_probability"] = par.cap_probability.value if par.cap_probability else None
        if par.cap_probability is not None:
            out["provenance"]["cap_probability"] = par.cap_probability.method
            if par.cap_probability_bound:
                out["cap_probability_bound"] = True  # an upper bound on P(cap), not its value
    if isinstance(par, ParSheet) and par.distribution.lost_mass:
        out["lost_mass"] = par.distribution.lost_mass
    if par.mixed is not None:  # last: P(cap) is the mixed law's P(W ≥ cap) (or its bound)
        _mixed_dict(par.mixed, out, bounded=max_win_bounded(par))
    return out


def _opt(f: Figure | None) -> Any:
    return None if f is None else f.value


def _base_spin_dict(b: BaseSpin) -> dict[str, Any]:
    """The base spin's own figures (``base_spin`` in the JSON): plain numbers, exact values, methods, what is left out."""
    figs = {"rtp": b.rtp, "sd": b.sd, "hit_frequency": b.hit_frequency, "hit_frequency_win_ge_bet": b.hit_frequency_bet,
            "max_win": b.max_win, "max_win_probability": b.max_win_probability}
    out: dict[str, Any] = {k: _opt(f) for k, f in figs.items()}
    out["p_win_ge"] = {f"{m}x": f.value for m, f in b.tails.items()} or None
    out["exact"] = {k: f.exact_str() for k, f in figs.items() if f is not None and f.exact is not None}
    out["provenance"] = {k: f.method for k, f in figs.items() if f is not None}
    if b.tails:
        out["provenance"]["p_win_ge"] = next(iter(b.tails.values())).method
    if b.not_computed:
        out["not_computed"] = dict(b.not_computed)
    out["definition"] = BASE_SPIN_DEFINITION
    return out


MAX_WIN_UNBOUNDED = ("no maximum: a feature retriggers without limit and no cap applies, so a round's win has no "
                     "upper bound; largest_computed_win is where the computed distribution ends")


def max_win_bounded(par: RoundSheet) -> bool:
    """Whether a round's win has a maximum: every feature bounded, or a cap on the whole round."""
    return bool(par.max_win_bounded or par.cap is not None)


def _max_win_fields(par: RoundSheet, largest: float | None, p_largest: float | None) -> dict[str, Any]:
    """``max_win`` (``None`` when unbounded, with ``max_win_reason``) apart from the largest computed win and its odds.

    With a cap the max win is the cap when some round reaches it (its odds P(cap)), else the largest win.
    """
    bounded = max_win_bounded(par)
    out: dict[str, Any] = {"max_win": largest if bounded else None, "max_win_probability": p_largest if bounded else None,
                           "largest_computed_win": largest, "largest_computed_win_probability": p_largest}
    if not bounded:
        out["max_win_reason"] = MAX_WIN_UNBOUNDED
    return out


def _interval(e: Estimate) -> dict[str, Any]:
    return {"low": e.low, "high": e.high, "resolved": not e.interval, "bound": e.bound}


def _mixed_dict(m: MixedLaw, out: dict[str, Any], *, bounded: bool) -> None:
    """The mixed law's figures into the sheet's mapping: plain numbers, provenance, intervals, the samples.

    A figure its sample does not resolve (:attr:`~mathkit.laws.mixture.Estimate.interval`) is ``null`` where a
    plain number stands, and its 99% interval is beside it (``…_interval``), with ``resolved`` false.
    """
    f = m.figures
    tails = {k.removeprefix("p_win_ge_"): e for k, e in f.items() if k.startswith("p_win_ge_")}
    top = f["largest_computed_win"]
    p_top = f["largest_computed_win_probability"]
    is_cap = m.max_win_kind == "cap"
    out.update({
        "hit_frequency": f["hit_frequency"].point,
        "hit_frequency_interval": _interval(f["hit_frequency"]),
        "hit_frequency_win_ge_bet": f["hit_frequency_win_ge_bet"].point,
        "hit_frequency_win_ge_bet_interval": _interval(f["hit_frequency_win_ge_bet"]),
        "p_win_ge": {k: e.point for k, e in tails.items()},
        "p_win_ge_interval": {k: _interval(e) for k, e in tails.items()},
        "max_win": f["max_win"].value if bounded or is_cap else None,
        "max_win_probability": f["max_win_probability"].point if bounded or is_cap else None,
        "max_win_probability_interval": _interval(f["max_win_probability"]) if bounded or is_cap else None,
        "largest_computed_win": top.value,
        "largest_computed_win_probability": p_top.point,
        "largest_computed_win_probability_interval": _interval(p_top),
    })
    if not (bounded or is_cap):
        out["max_win_reason"] = MAX_WIN_UNBOUNDED
    else:
        out.pop("max_win_reason", None)
    out["p_win_ge_bound"] = {k.removeprefix("p_win_ge_"): e.bound for k, e in f.items() if k.startswith("p_win_ge_")}
    out["max_win_probability_bound"] = f["max_win_probability"].bound
    out["max_win_kind"] = m.max_win_kind
    if "p_win_ge_cap" in f:
        out["cap_probability"] = f["p_win_ge_cap"].point
        out["cap_probability_interval"] = _interval(f["p_win_ge_cap"])
        out["cap_probability_bound"] = f["p_win_ge_cap"].bound
    if "rtp_lost_to_cap" in f:
        out["rtp_lost_to_cap"] = f["rtp_lost_to_cap"].value
        out["rtp_lost_to_cap_bound"] = f["rtp_lost_to_cap"].bound
    prov = out["provenance"]
    for k in ("hit_frequency", "hit_frequency_win_ge_bet", "max_win", "max_win_probability"):
        prov[k] = f[k].method
    prov["p_win_ge"] = {k.removeprefix("p_win_ge_"): e.method for k, e in f.items() if k.startswith("p_win_ge_")}
    if "p_win_ge_cap" in f:
        prov["cap_probability"] = f["p_win_ge_cap"].method
    if "rtp_lost_to_cap" in f:
        prov["rtp_lost_to_cap"] = f["rtp_lost_to_cap"].method
    out["distribution"] = {
        "method": m.method,
        "confidence": 0.99,
        "figures": {k: {"value": e.point, "low": e.low, "high": e.high, "method": e.method, "bound": e.bound,
                        "resolved": not e.interval,
                        **({"exact": f"{e.exact.numerator}/{e.exact.denominator}"} if e.exact is not None else {}),
                        **({"note": e.note} if e.note else {})} for k, _, e in m.rows()},
        "max_win_kind": m.max_win_kind,
        "win_bands": [{"band": b.label, "probability": b.probability.value, "low": b.probability.low,
                       "high": b.probability.high, "rtp": b.rtp.value, "rtp_low": b.rtp.low, "rtp_high": b.rtp.high}
                      for b in m.bands],
        "routes": m.route_rows(),
        "draws": sum(m.draws.values()),
        "seed": m.seed,
        "notes": list(m.notes),
    }


def _mixed_text(m: MixedLaw, w: list[str]) -> None:
    w.append(f"Win distribution of the whole round [{m.method}]")
    for _, label, e in m.rows():
        shown = "interval" if e.interval else f"{e.value:.6g}"
        w.append(f"  {label:<29} {shown:<12} {m.describe(e)}")
    w.append("  max win is " + ("the cap (some round can reach it; its odds are P(cap))" if m.max_win_kind == "cap"
                                else "the largest win of the distribution"))
    if any(e.interval for _, _, e in m.rows()):
        w.append(f"  (an \"interval\" row: its sample does not resolve a point value — a 99% half-width above "
                 f"{RESOLUTION:.0%} of it, or no sampled round reached it — so the figure is the interval shown)")
    w.append("  win band (× bet)   probability   99% interval              RTP part   99% interval")
    for b in m.bands:
        p, r = b.probability, b.rtp
        w.append(f"  {b.label:<17} {p.value:>12.6g}   {p.low:>10.4g} – {p.high:<10.4g}   {pct(r.value, 3):>9}   "
                 f"{pct(r.low, 3)} – {pct(r.high, 3)}")
    for row in m.route_rows():
        w.append(f"  sampled: {row['route']} (P = {row['probability']:.6g}): {row['draws']:,} draws of "
                 f"{row['rounds_played']:,} rounds, {row['how']}, seed {row['seed']}")
    for note in m.notes:
        w.append(f"  ({note})")
    w.append("")


def par_to_text(par: RoundSheet) -> str:
    """A readable PAR sheet."""
    g = par.game
    w: list[str] = []
    line = "=" * 78
    w += [line, f"PAR sheet — {g.name}", line]
    w.append(f"reel set {par.reels!r} · {g.pay_mode} · {_lines_text(par)} × {par.coins} coin(s) "
             f"= total bet {par.total_bet} credits · cycle {par.cycle:,}")
    if g.scatter_pays:
        unit = "line bet (coins per line)" if g.scatter_unit == "line_bet" else g.scatter_unit_name
        w.append(f"scatter pays × the {unit}: {par.base.tables.scatter_credits} credit(s) per unit at this bet")
    w.append("")
    w.append("RTP")
    for name, f in par.components.items():
        w.append(f"  {name:<24} {pct(f.value, 6):>14}   [{f.method}]")
    w.append(f"  {'total':<24} {pct(par.rtp.value, 6):>14}   [{par.rtp.method}]"
             + (f"  = {par.rtp.exact_str()}" if par.rtp.exact is not None and len(par.rtp.exact_str() or "") < 40
                else f"  = {par.rtp.digits}…" if par.rtp.digits else ""))
    if par.declared_rtp is not None:
        delta = par.rtp.value - float(par.declared_rtp)
        w.append(f"  {'declared':<24} {pct(float(par.declared_rtp), 6):>14}   (Δ {100 * delta:+.6f} pp)")
    w.append("")
    if isinstance(par, ParSheet):
        _distribution_text(par, w)
    elif par.sd_moments is not None:
        sd = par.sd_moments
        w.append("Volatility")
        w.append(f"  σ per total bet             {sd.value:.6f}   [{sd.method}]")
        w.append("  volatility index            " + "  ".join(f"{k}: {z * sd.value:.4f}" for k, z in Z.items()))
        w.append(f"  ({par.sd_note})")
        if par.refused:
            _left_out_text(par.not_computed, w)
        for k in par.not_computed if not par.refused else ():
            w.append(f"  {k.replace('_', ' '):<27} {par.not_computed[k]}")
        w.append(_per_line_text(par))
        w.append("")
        if par.mixed is not None:
            _mixed_text(par.mixed, w)
    elif par.refused:
        w.append(f"Analysed to the round's {par.level}s (a resource limit refused the rest)")
        _left_out_text(par.not_computed, w)
        w.append(_per_line_text(par))
        w.append("")
    else:
        w.append(f"Analysed to the round's {par.level}s: σ, the hit frequency per spin, max win and the win "
                 "distribution need the round's distribution, which a feature of this game does not give yet")
        w.append(_per_line_text(par))
        w.append("")
    if par.base_spin is not None and g.features:
        _base_spin_text(par.base_spin, w)
    _tables_text(par, w)
    return "\n".join(w) + "\n"


def _base_spin_text(b: BaseSpin, w: list[str]) -> None:
    """The base spin's own figures beside the whole play's (printed for a game with features)."""
    w.append("Base spin alone (features excluded)")
    w.append(f"  RTP                         {pct(b.rtp.value, 6)}   [{b.rtp.method}]")
    if b.sd is not None:
        w.append(f"  σ per total bet             {b.sd.value:.4f}   [{b.sd.method}]")
    if b.hit_frequency is not None:
        w.append(f"  hit frequency per spin      {pct(b.hit_frequency.value)}  ({one_in(b.hit_frequency.value)})"
                 f"   [{b.hit_frequency.method}]")
    if b.hit_frequency_bet is not None:
        w.append(f"  hit frequency (win ≥ bet)   {pct(b.hit_frequency_bet.value)}  "
                 f"({one_in(b.hit_frequency_bet.value)})")
    if b.max_win is not None and b.max_win_probability is not None:
        w.append(f"  max win                     {b.max_win.value:,.2f} × bet  ({one_in(b.max_win_probability.value)})")
    for m, f in b.tails.items():
        w.append(f"  P(win ≥ {m:>4}× bet)          {f.value:.6g}  ({one_in(f.value)})")
    _left_out_text(b.not_computed, w)
    w.append(f"  ({BASE_SPIN_DEFINITION})")
    w.append("")


def _left_out_text(missing: dict[str, str], w: list[str]) -> None:
    """The figures left out, grouped by their reason: each group named once, then why and how to get them."""
    groups: dict[str, list[str]] = {}
    for k, why in missing.items():
        groups.setdefault(why, []).append(k.replace("_", " "))
    for why, names in groups.items():
        w.append(f"  not computed: {', '.join(names)}")
        w.append(f"    ({why})")


def _lines_text(par: RoundSheet) -> str:
    """``30 lines``; with a window drawn per spin, the lines played at each height (``30–70 lines by height …``)."""
    by = par.lines_by_height
    if not by:
        return f"{par.lines} lines"
    low, high = min(n for _, n in by), max(n for _, n in by)
    span = f"{low}–{high}" if low != high else f"{low}"
    return f"{span} lines by height ({', '.join(f'{h} rows: {n}' for h, n in by)})"


def _per_line_text(par: RoundSheet) -> str:
    f = par.hit_frequency_per_line
    if f is None:
        why = "a ways game has no lines" if par.game.pay_mode == "ways" else "no line is played"
        return f"  hit frequency per line      not given ({why})"
    return f"  hit frequency per line      {pct(f.value)}  ({one_in(f.value)})   [{f.method}]"


def _distribution_text(par: ParSheet, w: list[str]) -> None:
    w.append("Volatility and hits")
    w.append(f"  hit frequency per spin      {pct(par.hit_frequency.value)}  ({one_in(par.hit_frequency.value)})"
             f"   [{par.hit_frequency.method}]")
    w.append(_per_line_text(par))
    w.append(f"  hit frequency (win ≥ bet)   {pct(par.hit_frequency_bet.value)}  "
             f"({one_in(par.hit_frequency_bet.value)})")
    w.append(f"  σ per total bet             {par.sd.value:.4f}   [{par.sd.method}]")
    w.append("  volatility index            " + "  ".join(f"{k}: {f.value:.4f}" for k, f in
                                                          par.volatility_index.items()))
    if max_win_bounded(par):
        w.append(f"  max win                     {par.max_win.value:,.2f} × bet  "
                 f"({one_in(par.max_win_probability.value)})")
    else:
        w.append("  max win                     none (a feature retriggers without limit and no cap applies)")
        w.append(f"  largest computed win        {par.max_win.value:,.2f} × bet ({one_in(par.max_win_probability.value)})"
                 "  (where the computed distribution ends, not a maximum)")
    for m, f in par.tails.items():
        w.append(f"  P(win ≥ {m:>4}× bet)          {f.value:.6g}  ({one_in(f.value)})")
    w.append(f"  ({HIT_FREQUENCY_PER_SPIN}")
    if par.hit_frequency_per_line is not None:
        w.append(f"   {HIT_FREQUENCY_PER_LINE})")
    else:
        w[-1] += ")"
    if par.cap_probability is not None and par.cap is not None:
        w.append(f"  cap {par.cap.value:,.6g}× bet, P(cap)     {par.cap_probability.value:.6g}")
    if par.distribution.lost_mass:
        w.append(f"  truncated probability mass  {par.distribution.lost_mass:.3g}")
    w.append("")
    w.append("RTP range after N spins (90% / 95% / 99%)")
    for i, (n, lo, hi) in enumerate(par.rtp_range["90%"]):
        parts = [f"{pct(lo, 2)} – {pct(hi, 2)}"]
        for lvl in ("95%", "99%"):
            _, l2, h2 = par.rtp_range[lvl][i]
            parts.append(f"{pct(l2, 2)} – {pct(h2, 2)}")
        w.append(f"  {n:>11,}   " + "   ".join(parts))
    w.append("")


def _tables_text(par: RoundSheet, w: list[str]) -> None:
    g = par.game
    w.append("Paytable")
    named = [e.combination or f"{e.count} × {e.entry}" for e in par.entries]
    cw = max([18, *(len(n) for n in named)])  # reel-ordered combinations read longer
    w.append(f"  {'component':<9} {'combination':<{cw}} {'pay':>8} {'hits':>14} {'hits/spin':>11} "
             f"{'probability':>12} {'per':<4} {'1 in':>14} {'RTP':>11}")
    for e, name in zip(par.entries, named, strict=True):
        odds = f"{e.one_in:,.1f}" if math.isfinite(e.one_in) else "never"
        w.append(f"  {e.component:<9} {name:<{cw}} {e.pay:>8} {e.hits:>14,} {e.hits_per_spin.value:>11.6g} "
                 f"{e.probability.value:>12.6g} {e.per:<4} {odds:>14} {pct(e.rtp.value, 4):>11}")
    unit = "the line bet (coins per line)" if g.scatter_unit == "line_bet" else f"the {g.scatter_unit_name}"
    w.append("  (pay: credits at this bet before multipliers; line hits count (outcome, line) pairs; hits/spin = "
             "hits / cycle, not a probability; probability and 1 in N per line played for a line combination, "
             "per spin for the others"
             + (f"; scatter pays × {unit} = {par.base.tables.scatter_credits} credits)" if g.scatter_pays else ")"))
    flat = [e.name for e in g.line_pays if e.flat]
    mults = [f"{s.name} ×{s.multiplier}" for s in g.symbols if s.is_multiplier]
    if mults:
        w.append(f"  (multiplier symbols: {', '.join(mults)}; paid flat, never multiplied: {', '.join(flat) or 'none'})")
    for sec in (*par.features, *((par.sessions,) if par.sessions is not None else ())):
        w.append("")
        w.append(sec.name)
        for k, f in sec.figures:
            w.append(f"  {k:<36} {_value(k, f, 16)}   [{f.method}]")
        for row in sec.table:
            w.append("  " + " | ".join(row))
        for note in sec.notes:
            w.append(f"  note: {note}")
    w.append("")
    w.append("Symbol counts per reel")
    for rs, rows in par.symbol_counts.items():
        w.append(f"  [{rs}]")
        for name, counts in rows:
            w.append(f"    {name:<14}" + "".join(f"{c:>6}" for c in counts))
    if g.readings:
        w.append("")
        w.append("Rule readings")
        for r in g.readings:
            w.append(f"  - {r.rule}: {r.reading} ({r.reason})")


def par_to_csv(par: RoundSheet) -> str:
    """PAR sheet as CSV: a summary block, then the paytable block."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    d = par_to_dict(par)
    out.writerow(["section", "figure", "value", "exact", "method"])
    out.writerow(["summary", "game", d["game"], "", ""])
    out.writerow(["summary", "reels", d["reels"], "", ""])
    out.writerow(["summary", "total_bet", d["total_bet"], "", ""])
    out.writerow(["summary", "scatter_unit", d["scatter_unit"], d["scatter_unit_credits"], "declared"])
    out.writerow(["summary", "cycle", d["cycle"], d["cycle"], "exact"])
    out.writerow(["summary", "rtp", par.rtp.value, par.rtp.exact_str() or par.rtp.digits or "", par.rtp.method])
    for k, f in par.components.items():
        out.writerow(["rtp", k, f.value, f.exact_str() or "", f.method])
    if isinstance(par, ParSheet):
        out.writerow(["summary", "sd", par.sd.value, "", par.sd.method])
        out.writerow(["summary", "hit_frequency", par.hit_frequency.value, par.hit_frequency.exact_str() or "",
                      par.hit_frequency.method])
        if par.hit_frequency_per_line is not None:
            f = par.hit_frequency_per_line
            out.writerow(["summary", "hit_frequency_per_line", f.value, f.exact_str() or "", f.method])
        for k, f in par.volatility_index.items():
            out.writerow(["volatility_index", k, f.value, "", f.method])
        out.writerow(["summary", "max_win_x_bet", par.max_win.value, par.max_win.exact_str() or "", par.max_win.method])
        for m, f in par.tails.items():
            out.writerow(["tail", f"p_win_ge_{m}x", f.value, f.exact_str() or "", f.method])
    if par.sd_moments is not None:
        out.writerow(["summary", "sd", par.sd_moments.value, "", par.sd_moments.method])
    for k, why in par.not_computed.items():
        out.writerow(["summary", k, "", "", why])
    if par.mixed is not None:
        mx = par.mixed
        for k, _, est in mx.rows():
            exact = "" if est.exact is None else f"{est.exact.numerator}/{est.exact.denominator}"
            out.writerow(["distribution", k, est.value, exact, est.method])
            out.writerow(["distribution", f"{k}_99_low", est.low, "", "bound" if est.bound else est.method])
            out.writerow(["distribution", f"{k}_99_high", est.high, "", "bound" if est.bound else est.method])
        for b in mx.bands:
            out.writerow(["win_band", b.label, b.probability.value, "", mx.method])
        for row in mx.route_rows():
            out.writerow(["sampled_route", row["route"], row["draws"], row["probability_exact"],
                          f"{row['how']}; seed {row['seed']}; {row['rounds_played']} rounds"])
    if par.base_spin is not None:
        bs = par.base_spin
        for k, fig in (("rtp", bs.rtp), ("sd", bs.sd), ("hit_frequency", bs.hit_frequency),
                       ("hit_frequency_win_ge_bet", bs.hit_frequency_bet), ("max_win_x_bet", bs.max_win),
                       *((f"p_win_ge_{m}x", t) for m, t in bs.tails.items())):
            if fig is not None:
                out.writerow(["base_spin", k, fig.value, fig.exact_str() or "", fig.method])
        for k, why in bs.not_computed.items():
            out.writerow(["base_spin", k, "", "", why])
    if par.sessions is not None:
        for k, f in par.sessions.figures:
            out.writerow(["sessions", k, shown(k, f), f.exact_str() or "", f.method])
    out.writerow([])
    out.writerow(["component", "entry", "count", "pay", "hits", "hits_per_spin", "probability", "probability_per",
                  "rtp", "rtp_exact", "combination"])
    for e in par.entries:
        out.writerow([e.component, e.entry, e.count, e.pay, e.hits, e.hits_per_spin.value, e.probability.value, e.per,
                      e.rtp.value, e.rtp.exact_str(), e.combination or f"{e.count} × {e.entry}"])
    return buf.getvalue()
