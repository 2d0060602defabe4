"""Live tables: hits and return by pay combination, exact ∂RTP per symbol per reel, the win bands.

* The hit/return table (one row per pay combination of the reel set analysed):
  pay, hits over the cycle, "1 in N", share of the RTP and Δ RTP against the
  saved version — from the cheap figures, so it follows every edit with the RTP.
* ∂RTP per symbol per reel (:func:`mathkit.report.sensitivity.symbol_sensitivity`:
  one more stop of the symbol on the reel, exact): coloured red where a stop
  raises the RTP, blue where it lowers it; it arrives with the slow figures.
* The win bands (:func:`mathkit.laws.volatility.win_bands`) of the PAR sheet's distribution.
"""

from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

import ipywidgets as widgets

from ..exact.components import ComponentRTP
from ..laws.volatility import win_bands
from ..report.sensitivity import SymbolSensitivity
from ..report.text import one_in
from .panel import Panel
from .panel import html as html_widget
from .views import pct, table_html

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
    """∂RTP per symbol (rows) per reel (columns) in percentage points, coloured by sign and size."""
    big = max((abs(float(d)) for row in s.delta for d in row if d is not None), default=0.0) or 1.0
    body = []
    for k, sym in enumerate(s.symbols):
        cells = []
        for r in range(len(s.delta)):
            d = s.delta[r][k]
            if d is None:
                cells.append("<td style='color:#bbb'>—</td>")
                continue
            x = float(d) / big
            colour = f"rgba(214,39,40,{abs(x) * 0.55:.2f})" if x > 0 else f"rgba(31,119,180,{abs(x) * 0.55:.2f})"
            cells.append(f"<td style='background:{colour}' title='{d.numerator}/{d.denominator}'>{100 * float(d):+.4f}</td>")
        body.append(f"<tr><th style='text-align:left'>{html.escape(sym)}</th>{''.join(cells)}</tr>")
    head = ("symbol", *[f"reel {r + 1}" for r in range(len(s.delta))])
    return table_html(head, "".join(body), "mk-sensitivity-table",
                      f"∂RTP in pp for one more stop of the symbol on the reel ({s.reels}); exact fractions on hover")


def bands_html(dist: Any) -> str:
    """The standard win-band table of a distribution: probability, 1 in N, RTP share."""
    body = "".join(f"<tr><td>{html.escape(b.label)}</td><td>{float(b.probability):.6g}</td><td>{one_in(b.probability)}</td>"
                   f"<td>{pct(b.rtp, 4)}</td><td>{pct(b.share, 2)}</td></tr>" for b in win_bands(dist))
    return table_html(("win × bet", "probability", "odds", "RTP", "share of RTP"), body, "mk-bands-table")


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
        if step == "sensitivity":
            self.sensitivity.value = sensitivity_html(value)
            self.sensitivity.remove_class("mk-stale")
        elif step == "par":
            self.bands.value = bands_html(value.distribution)
            self.bands.remove_class("mk-stale")
