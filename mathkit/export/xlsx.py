"""The PAR sheet as an Excel workbook: :func:`write_par_xlsx`.

Sheets ``summary``, ``reels``, ``paytable`` (hits, probability, RTP
contribution), ``features``, ``distribution``, ``base spin`` (the base spin's own figures and win
distribution, :mod:`mathkit.report.basespin`), ``checks`` and one ``mode NAME`` per bet mode
(:func:`mode_rows`: its figures per cost × bet and its win law); written to a
temporary file in the same folder and renamed, so a crash never leaves half a
workbook.  Exact values travel as ``"n/d"`` text beside the float; integers
above 2⁵³ (which Excel would round) are written as text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..gamefile.io import write_atomic
from ..laws.law import WinLaw
from ..laws.mixture import MixedLaw
from ..laws.provenance import Figure
from ..model.game import Game
from ..report.basespin import BASE_SPIN_DEFINITION
from ..report.modes import ModeFigures, mode_section
from ..report.par import ParSheet, RoundSheet, Z
from ..report.text import MAX_WIN_UNBOUNDED, max_win_bounded, shown
from .server import _frac

__all__ = ["EXCEL_ROWS", "SAFE_INT", "mode_rows", "write_par_xlsx"]

EXCEL_ROWS = 1_048_576
SAFE_INT = 2**53 - 1


def _cell(x: object) -> object:
    """A value Excel keeps exactly: big integers and Fractions as text."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x if abs(x) <= SAFE_INT else str(x)
    if isinstance(x, Fraction):
        return _frac(x)
    return x


def _save_atomic(workbook: Any, path: Path) -> Path:
    """Serialise the workbook in memory, then write it with the one atomic writer."""
    buf = io.BytesIO()
    workbook.save(buf)
    return write_atomic(path, buf.getvalue())


def _fig_row(name: str, f: Figure) -> list[object]:
    return [name, f.value, f.exact_str() or f.digits or "", f.method]


def _summary_rows(par: RoundSheet) -> list[list[object]]:
    g = par.game
    rows: list[list[object]] = [
        ["figure", "value", "exact", "method", "99% low", "99% high", "note"],
        ["game", g.name, "", ""],
        ["reel set", par.reels, "", ""],
        ["pay mode", g.pay_mode, "", ""],
        ["lines played", par.lines, "", ""],
        ["coins per line", par.coins, "", ""],
        ["total bet (credits)", par.total_bet, "", ""],
        ["scatter pays ×", g.scatter_unit_name,
         par.base.tables.scatter_credits, "credits per unit"],
        ["cycle", _cell(par.cycle), str(par.cycle), "exact"],
        _fig_row("RTP", par.rtp),
    ]
    if par.lines_by_height:  # a window drawn per spin: the lines played at each height
        played = [n for _, n in par.lines_by_height]
        rows[4] = ["lines played", f"{min(played)}–{max(played)} by height", "", "declared", "", "",
                   "the window's height is drawn per spin: the next row gives the lines played at each height"]
        rows.insert(5, ["lines by height", ", ".join(f"{h} rows: {n}" for h, n in par.lines_by_height), "",
                        "declared", "", "", "the window's height is drawn per spin; these lines are played at each height"])
    rows += [_fig_row(f"RTP: {k}", f) for k, f in par.components.items()]
    if g.declared_rtp is not None:
        rows.append(["declared RTP", float(g.declared_rtp), _frac(g.declared_rtp), "declared"])
        delta = Fraction(par.rtp.exact) - g.declared_rtp if par.rtp.exact is not None else None
        rows.append(["RTP − declared (pp)", 100 * (par.rtp.value - float(g.declared_rtp)),
                     "" if delta is None else _frac(100 * delta), par.rtp.method])
    if isinstance(par, ParSheet):
        rows += [
            _fig_row("hit frequency per spin (plays that pay / plays)", par.hit_frequency),
            _fig_row("hit frequency (win ≥ bet)", par.hit_frequency_bet),
            _fig_row("σ per total bet", par.sd),
        ]
        rows += [_fig_row(f"volatility index {k}", f) for k, f in par.volatility_index.items()]
        if max_win_bounded(par):
            rows += [_fig_row("max win (× bet)", par.max_win), _fig_row("P(max win)", par.max_win_probability)]
        else:
            rows += [["max win (× bet)", "none", "", "", "", "", MAX_WIN_UNBOUNDED],
                     _fig_row("largest computed win (× bet)", par.max_win),
                     _fig_row("P(largest computed win)", par.max_win_probability)]
        rows += [_fig_row(f"P(win ≥ {m}× bet)", f) for m, f in par.tails.items()]
    elif par.sd_moments is not None:
        rows.append(_fig_row("σ per total bet", par.sd_moments))
        rows += [[f"volatility index {k}", z * par.sd_moments.value, "", par.sd_moments.method] for k, z in Z.items()]
        if par.mixed is not None:
            none = not max_win_bounded(par) and par.mixed.max_win_kind != "cap"  # no maximum: only the largest
            rows += [[label, e.point, "" if e.exact is None else _frac(e.exact), e.method,
                      *(("", "") if e.method == "exact" else (e.low, e.high)), par.mixed.describe(e)]
                     for k, label, e in par.mixed.rows() if not (none and k in ("max_win", "max_win_probability"))]
            if none:
                rows.append(["max win (× bet)", "none", "", "", "", "", MAX_WIN_UNBOUNDED])
        rows += [[k.replace("_", " "), "", "", "", "", "", why] for k, why in par.not_computed.items()]
    elif par.refused:
        rows.append([f"analysed to the round's {par.level}s: a resource limit refused the rest", "", "", ""])
        rows += [[k.replace("_", " "), "", "", "", "", "", why] for k, why in par.not_computed.items()]
    else:
        rows.append([f"analysed to the round's {par.level}s: σ, hit frequencies, max win and the win distribution "
                     "need the round's distribution, which a feature of this game does not give yet", "", "", ""])
    if par.hit_frequency_per_line is not None:
        rows.append(_fig_row("hit frequency per line (E[lines paid] / E[lines played], base spin)",
                             par.hit_frequency_per_line))
    if par.cap is not None:
        rows.append(["cap (× bet)", par.cap.value, par.cap.exact_str() or "", "declared"])
        if par.cap_probability is not None:
            label = "P(cap) ≤ (bound)" if par.cap_probability_bound else "P(cap)"
            rows.append(_fig_row(label, par.cap_probability))
    if not isinstance(par, ParSheet):
        return _with_readings(rows, g)
    if par.distribution.lost_mass:
        rows.append(["truncated probability mass", par.distribution.lost_mass, "", par.distribution.method])
    rows.append([])
    rows.append(["RTP range after N spins", "spins", "low", "high"])
    for level, ranges in par.rtp_range.items():
        for n, lo, hi in ranges:
            rows.append([f"  {level}", n, lo, hi])
    return _with_readings(rows, g)


def _with_readings(rows: list[list[object]], g: Game) -> list[list[object]]:
    if g.readings:
        rows.append([])
        rows.append(["rule", "reading", "reason"])
        rows += [[r.rule, r.reading, r.reason] for r in g.readings]
    return rows


def _reel_rows(par: RoundSheet) -> list[list[object]]:
    g = par.game
    rows: list[list[object]] = []
    for rs in g.reel_sets:
        n = rs.n_reels
        rows.append([f"reel set {rs.name}", f"rows {list(rs.rows)}", f"cycle {rs.cycle}"])
        head: list[object] = ["stop"]
        for r in range(n):
            head += [f"reel {r + 1}"] + ([f"weight {r + 1}"] if rs.weights is not None else [])
        rows.append(head)
        for i in range(max(len(s) for s in rs.strips)):
            row: list[object] = [i]
            for r, strip in enumerate(rs.strips):
                row.append(strip[i] if i < len(strip) else "")
                if rs.weights is not None:
                    row.append(rs.weights[r][i] if i < len(strip) else "")
            rows.append(row)
        rows.append([])
        rows.append(["symbol counts", *(f"reel {r + 1}" for r in range(n))])
        for name, counts in par.symbol_counts[rs.name]:
            rows.append([name, *counts])
        rows.append(["total", *(sum(rs.stop_weights(r)) for r in range(n))])
        rows.append([])
    return rows


def _paytable_rows(par: RoundSheet) -> list[list[object]]:
    rows: list[list[object]] = [["component", "combination", "count", "pay (credits)", "hits", "hits per spin",
                                 "probability", "probability per", "1 in", "RTP contribution",
                                 "RTP contribution (exact)"]]
    for e in par.entries:
        rows.append([e.component, e.combination or e.entry, e.count, e.pay, _cell(e.hits), e.hits_per_spin.value,
                     e.probability.value, e.per, e.one_in if e.probability.value else "never", e.rtp.value,
                     e.rtp.exact_str() or ""])
    total = sum((e.rtp.exact for e in par.entries if e.rtp.exact is not None), Fraction(0))
    rows.append(["total (base spin)", "", "", "", _cell(sum(e.hits for e in par.entries)), "", "", "", "",
                 float(total), _frac(total)])
    return rows


def _feature_rows(par: RoundSheet) -> list[list[object]]:
    if not par.features and par.sessions is None:
        return [["feature", "figure", "value", "method"], ["none", "the game declares no feature", "", ""]]
    rows: list[list[object]] = [["feature", "figure", "value", "exact", "method"]]
    for sec in (*par.features, *((par.sessions,) if par.sessions is not None else ())):
        for k, f in sec.figures:
            rows.append([sec.name, k, shown(k, f), f.exact_str() or "", f.method])
        for trow in sec.table:
            rows.append([sec.name, *trow])
        for note in sec.notes:
            rows.append([sec.name, "note", note])
        rows.append([])
    return rows


def _mixed_rows(m: MixedLaw) -> list[list[object]]:
    rows: list[list[object]] = [[f"the whole round's win distribution [{m.method}], 99% intervals"],
                                ["win band (× bet)", "probability", "99% low", "99% high", "RTP part", "99% low",
                                 "99% high"]]
    rows += [[b.label, b.probability.value, b.probability.low, b.probability.high, b.rtp.value, b.rtp.low, b.rtp.high]
             for b in m.bands]
    rows += [[], ["win (× bet)", "P(win ≥ this)", "99% low", "99% high"]]
    xs, ps, lo, hi = m.exceedance
    step = max(1, len(xs) // (EXCEL_ROWS // 2))
    rows += [[xs[i], ps[i], lo[i], hi[i]] for i in range(0, len(xs), step)]
    rows += [[], ["sampled route", "probability", "draws", "rounds played", "seed", "how"]]
    rows += [[r["route"], r["probability"], r["draws"], r["rounds_played"], r["seed"], r["how"]] for r in m.route_rows()]
    rows += [[note] for note in m.notes]
    return rows


def _base_spin_rows(par: RoundSheet) -> list[list[object]]:
    """The base spin's own figures (:mod:`mathkit.report.basespin`), then its win distribution."""
    b = par.base_spin
    if b is None:
        return [["no base-spin figures"]]
    rows: list[list[object]] = [["figure", "value", "exact", "method", "note"],
                                ["definition", BASE_SPIN_DEFINITION, "", ""], _fig_row("RTP", b.rtp)]
    for name, f in (("σ per total bet", b.sd), ("hit frequency per spin (spins that pay / spins)", b.hit_frequency),
                    ("hit frequency (win ≥ bet)", b.hit_frequency_bet), ("max win (× bet)", b.max_win),
                    ("P(max win)", b.max_win_probability),
                    *((f"P(win ≥ {m}× bet)", t) for m, t in b.tails.items())):
        if f is not None:
            rows.append(_fig_row(name, f))
    rows += [[k.replace("_", " "), "", "", "", f"not computed: {why}"] for k, why in b.not_computed.items()]
    if b.distribution is not None:
        rows += [[], ["the base spin's win distribution"], *_law_rows(b.distribution)]
    return rows


def _distribution_rows(par: RoundSheet) -> list[list[object]]:
    if par.mixed is not None:
        return _mixed_rows(par.mixed)
    if not isinstance(par, ParSheet):
        return [[f"the round is analysed to its {par.level}s: no win distribution"]]
    return _law_rows(par.distribution)


def _law_rows(d: WinLaw) -> list[list[object]]:
    """A win law's rows: win, × bet, probability, P(win ≥ this) and, exact, the count."""
    exact = d.exact
    head: list[object] = ["win (credits)", "win (× bet)", "probability", "P(win ≥ this)"]
    rows: list[list[object]] = [head + (["count"] if exact else [])]
    probs = d.probs
    tail = 1.0
    values = d.values.tolist()
    weights = d.weights.tolist()
    limit = EXCEL_ROWS - 10
    for i, (v, p) in enumerate(zip(values, probs.tolist(), strict=True)):
        if i >= limit:
            rows.append([f"... {len(values) - limit} more values (Excel's row limit)"])
            break
        row: list[object] = [v, v / d.unit, p, max(tail, 0.0)]
        if exact:
            row.append(_cell(int(weights[i])))
        rows.append(row)
        tail -= p
    if d.lost_mass:
        rows.append([f"truncated probability mass {d.lost_mass:.3g} ({d.method})"])
    return rows


def mode_rows(m: ModeFigures) -> list[list[object]]:
    """A bet mode's sheet: its figures per cost × bet, its RTP by component, its whole-round win law."""
    sec = mode_section(m)
    rows: list[list[object]] = [["figure", "value", "exact", "method"]]
    rows += [[k, shown(k, f), f.exact_str() or "", f.method] for k, f in sec.figures]
    rows.append([])
    rows += [list[object](r) for r in sec.table]
    rows.append([])
    rows += [["note", n] for n in sec.notes]
    law = m.law
    if law is not None:
        stake = float(m.stake)
        rows += [[], ["win (credits)", "win (× cost × bet)", "probability", f"[{law.method}]"]]
        limit = EXCEL_ROWS - len(rows) - 10
        values, probs = law.values.tolist(), law.probs.tolist()
        for i, (v, p) in enumerate(zip(values, probs, strict=True)):
            if i >= limit:
                rows.append([f"... {len(values) - limit} more values (Excel's row limit)"])
                break
            rows.append([v, v / stake, p])
    return rows


def write_par_xlsx(par: RoundSheet | None, path: str | Path, *, checks: Sequence[Any] | None = None,
                   profile: str = "gli11", modes: Sequence[ModeFigures] = ()) -> Path:
    """Write the PAR sheet as an Excel workbook, atomically; with ``modes``, one more sheet per bet mode.

    ``checks`` defaults to :func:`mathkit.checks.run_checks` on the sheet's
    game under ``profile``.  ``par=None`` writes the modes' sheets alone (``mathkit par --mode NAME --out``).
    """
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    sheets: dict[str, list[list[object]]] = {}
    if par is not None:
        if checks is None:
            from ..checks import run_checks

            checks = run_checks(par.game, profile, reels=par.reels)
        sheets = _base_sheets(par, checks, profile)
    for m in modes:
        sheets[f"mode {m.name}"[:31]] = mode_rows(m)
    first = True
    for title, rows in sheets.items():
        ws = wb.active if first else wb.create_sheet()
        first = False
        ws.title = title
        for row in rows:
            ws.append(row)
        for c in ws[1]:
            c.font = Font(bold=True)
        ws.freeze_panes = "A2"
        ws.column_dimensions["A"].width = 30
    return _save_atomic(wb, Path(path))


def _base_sheets(par: RoundSheet, checks: Sequence[Any], profile: str) -> dict[str, list[list[object]]]:
    return {
        "summary": _summary_rows(par),
        "reels": _reel_rows(par),
        "paytable": _paytable_rows(par),
        "features": _feature_rows(par),
        "distribution": _distribution_rows(par),
        "base spin": _base_spin_rows(par),
        "checks": [["check", "passed", "detail", "profile"]]
        + [[c.name, "PASS" if c.passed else "FAIL", c.detail, profile] for c in checks],
    }
