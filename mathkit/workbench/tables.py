"""Live tables: hits and return by pay combination, exact ∂RTP per symbol per reel, the win bands.

* The hit/return table (one row per pay combination of the reel set analysed):
  pay, hits over the cycle, "1 in N", share of the RTP and Δ RTP against the
  saved version — from the cheap figures, so it follows every edit with the RTP.
* ∂RTP per symbol per reel (:func:`mathkit.report.sensitivity.symbol_sensitivity`:
  one more stop of the symbol on the reel, exact): coloured red where a stop
  raises the RTP, blue where it lowers it; it arrives with the slow figures.
* The win bands of the PAR sheet's distribution (:func:`mathkit.workbench.readings.bands`: exact, or the
  mixed law's bands with their 99% intervals).
"""

from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

import ipywidgets as widgets

from ..exact.components import ComponentRTP
from ..report.par import RoundSheet
from ..report.sensitivity import SymbolSensitivity
from ..report.text import one_in
from . import readings
from .panel import Panel
from .panel import html as html_widget
from .readings import Reading
from .views import pct, table_html, unavailable_html
from .worker import Unavailable

__all__ = ["TablesPanel", "bands_html", "hit_table_html", "sensitivity_html"]


def hit_table_html(now: ComponentRTP, saved: ComponentRTP | None = None, total: Fraction | float | None = None) -> str:
    """The hit/return table of ``now`` with Δ RTP against ``saved`` (same reel set), shares of ``total``.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.exact.components import component_rtp
    >>> c = component_rtp(load_game("data/games/classic_3reel.toml"))
    >>> "<td>3 × WILD</td>" in hit_table_html(c, c)
    True
    """
    denom = now.cycle * now.total_bet
    total = now.rtp() if total is None else total
    before = {} if saved is None else {(e.component, e.entry, e.count): Fraction(e.credits, saved.cycle * saved.total_bet)
                                       for e in saved.entries}
    rows = []
    for e in now.entries:
        rtp = Fraction(e.credits, denom)
        pay = f"{e.credits // e.hits:,}" if e.hits and e.credits % e.hits == 0 else "varies" if e.hits else "—"
        old = before.get((e.component, e.entry, e.count))
        delta = "—" if saved is None else f"{100 * float(rtp - (old or 0)):+.4f} pp"
        style = "" if saved is None or old == rtp else " style='background:#fff7d6'"
        rows.append((f"{e.count} × {e.entry}", e.component, pay, f"{e.hits:,}",
                     one_in(Fraction(e.hits, now.cycle)), pct(rtp, 4), pct(rtp / total if total else 0, 2), delta, style))
    head = ("combination", "component", "pay (credits)", "hits in the cycle", "odds", "RTP", "share of RTP", "Δ RTP vs saved")
    body = "".join(f"<tr{r[-1]}>" + "".join(f"<td>{html.escape(c)}</td>" for c in r[:-1]) + "</tr>" for r in rows)
    return table_html(head, body, "mk-hit-table")


def sensitivity_html(s: SymbolSensitivity) -> str:
    """∂RTP per symbol (rows) per reel (columns) in percentage points, coloured by sign and size, with its provenance."""
    big = max((abs(float(d)) for row in s.delta for d in row if d is not None), default=0.0) or 1.0
    outside = {(r, sym): why for r, sym, why in s.undefined}
    body = []
    for k, sym in enumerate(s.symbols):
        cells = []
        for r in range(len(s.delta)):
            d = s.delta[r][k]
            if (r, sym) in outside:
                cells.append(f"<td style='color:#a60' title='{html.escape(outside[r, sym], quote=True)}'>n/a</td>")
                continue
            if d is None:
                cells.append("<td style='color:#bbb'>—</td>")
                continue
            x = float(d) / big
            colour = f"rgba(214,39,40,{abs(x) * 0.55:.2f})" if x > 0 else f"rgba(31,119,180,{abs(x) * 0.55:.2f})"
            hover = f"{d.numerator}/{d.denominator}" if isinstance(d, Fraction) else f"{100 * d:+.10g} pp ({s.method})"
            cells.append(f"<td style='background:{colour}' title='{hover}'>{100 * float(d):+.4f}</td>")
        body.append(f"<tr><th style='text-align:left'>{html.escape(sym)}</th>{''.join(cells)}</tr>")
    head = ("symbol", *[f"reel {r + 1}" for r in range(len(s.delta))])
    how = ("[exact] exact fractions on hover" if s.method == "exact" else
           f"[{s.method}] the RTP of this game is solved in floating point, so each ∂RTP is the difference of two "
           "such RTPs (one whole stop: no step size), not an exact fraction")
    na = ""
    if s.undefined:
        whys = sorted({why for _, _, why in s.undefined})
        na = f"; n/a: one more stop there gives a game the rules do not cover ({'; '.join(whys)})"
    return table_html(head, "".join(body), "mk-sensitivity-table",
                      f"∂RTP in pp for one more stop of the symbol on the reel ({s.reels}); {how}; "
                      f"—: the symbol may not be on that reel{na}")


def _band_cell(r: Reading) -> str:
    if r.interval and r.high is not None:
        return f"≤ {r.high:.3g}" if not r.low else f"{r.low:.3g} – {r.high:.3g}"
    return f"{r.value:.6g}"


def bands_html(par: RoundSheet) -> str:
    """The standard win-band table of a PAR sheet: probability (99% interval where sampled), 1 in N, RTP share.

    Each row is tagged with its provenance (``exact``, ``markov``, ``exact+sampled``, ``sampled``); a sheet
    without the distribution says why.
    """
    rows = readings.bands(par)
    if not rows:
        why = readings.missing(par).get("distribution", "the distribution is not available")
        return f"<i>win bands: not available — {html.escape(why)}</i>"
    sampled = any(b.probability.sampled for b in rows)
    body = []
    for b in rows:
        p, rtp = b.probability, b.rtp
        cells = [b.label, _band_cell(p), one_in(p.value), pct(rtp.value, 4), pct(b.share, 2)]
        if sampled:
            interval = "" if p.low is None or p.high is None else f"{p.low:.4g} – {p.high:.4g}"
            rtp_interval = "" if rtp.low is None or rtp.high is None else f"{pct(rtp.low, 3)} – {pct(rtp.high, 3)}"
            cells += [interval, rtp_interval]
        cells.append(p.method)
        body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    head = ("win × bet", "probability", "odds", "RTP", "share of RTP",
            *(("probability 99%", "RTP 99%") if sampled else ()), "provenance")
    caption = ("99% intervals: the exact part adds no width, each sampled part a Wilson interval (jointly 99%)"
               if sampled else "")
    return table_html(head, "".join(body), "mk-bands-table", caption)


class TablesPanel(Panel):
    """The live tables tab."""

    title = "tables"

    def __init__(self, host: Any) -> None:
        super().__init__(host)
        self.hits = html_widget("mk-hits")
        self.sensitivity = html_widget("mk-sensitivity", "<i>∂RTP follows with σ …</i>")
        self.bands = html_widget("mk-bands", "<i>the win bands follow with the distribution …</i>")
        self.widget = widgets.VBox([widgets.HTML("<b>Hits and return by combination</b>"), self.hits,
                                    widgets.HTML("<b>∂RTP per symbol per reel</b>"), self.sensitivity,
                                    widgets.HTML("<b>Win bands</b> (the whole play)"), self.bands])

    def refresh(self) -> None:
        quick = self.host.quick
        if quick is None:
            return
        saved = self.host.saved_quick
        base = saved.base if saved is not None and saved.reels == quick.reels else None
        self.hits.value = hit_table_html(quick.base, base, quick.rtp)
        for w in (self.sensitivity, self.bands):
            w.add_class("mk-stale")

    def show_slow(self, step: str, value: Any) -> None:
        missing = isinstance(value, Unavailable)
        if step == "sensitivity":
            self.sensitivity.value = unavailable_html(step, value.error) if missing else sensitivity_html(value)
            self.sensitivity.remove_class("mk-stale")
        elif step == "par":
            self.bands.value = unavailable_html(step, value.error) if missing else bands_html(value)
            self.bands.remove_class("mk-stale")
