"""Targets: the declared (or target) RTP and the σ and hit-frequency bands of the game file, Δ to each, warnings, tuning.

:func:`target_rows` compares the figures with ``[targets]`` (the RTP aimed at
is ``targets.rtp``, else the declared RTP, ± ``targets.rtp_tolerance``);
:func:`warnings_for` lists what a mathematician must not miss: an RTP above
100%, a figure outside its band, a declared RTP that another coin option does
not return (per-coin top awards).  :class:`TargetsPanel` shows the status
beside the RTP label (``status``, always visible), and in its tab the target
fields (edits of ``[targets]``, saved with the game) and *tune to target*: the
tuner's proposal (:mod:`mathkit.workbench.tuning`) is shown as a diff and
applied only on *apply*.
"""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import ipywidgets as widgets

from ..model.edits import at_bet, with_targets
from ..model.game import Game
from . import readings
from .model import quick_figures
from .panel import Panel, button
from .panel import html as html_widget
from .tuning import Proposal, propose
from .views import error_html, pct, table_html
from .worker import Unavailable

__all__ = ["Row", "TargetsPanel", "coin_rtps", "target_rows", "targets_html", "warnings_for"]

OK, OFF, NEAR, UNKNOWN = "#2ca02c", "#d62728", "#ff7f0e", "#7f7f7f"


@dataclass(frozen=True)
class Row:
    """One figure against its target: the text shown and a colour (green within, red outside, grey unknown)."""

    figure: str
    now: str
    target: str
    delta: str
    colour: str


def target_rows(game: Game, reels: str, rtp: Fraction | float, sd: float | None, hf: float | None) -> list[Row]:
    """RTP, σ and hit frequency against the game's targets on reel set ``reels`` (``None``: not known yet).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/dynasty.toml")
    >>> [(r.figure, r.delta) for r in target_rows(g, "base", Fraction(951, 1000), 7.0, None)]
    [('RTP', '+0.1000 pp'), ('σ', '+0.5000 above'), ('hit frequency', '—')]
    """
    out = []
    goal = game.target_rtp(reels)
    tol = game.targets.rtp_tolerance
    if goal is None:
        out.append(Row("RTP", pct(rtp, 4), "none declared", "—", UNKNOWN))
    else:
        d = float(rtp - goal) if isinstance(rtp, Fraction) else float(rtp) - float(goal)
        colour = OK if abs(d) <= tol else NEAR if abs(d) <= 10 * tol else OFF
        out.append(Row("RTP", pct(rtp, 4), f"{pct(goal, 4)} ± {100 * float(tol):g} pp", f"{100 * d:+.4f} pp", colour))
    for name, value, band, percent in (("σ", sd, game.targets.sd, False), ("hit frequency", hf, game.targets.hit_frequency, True)):
        if band is None:
            out.append(Row(name, "…" if value is None else _fmt(value, percent), "no band", "—", UNKNOWN))
            continue
        lo, hi = band
        shown = f"[{_fmt(lo, percent)}, {_fmt(hi, percent)}]"
        if value is None:
            out.append(Row(name, "…", shown, "—", UNKNOWN))
            continue
        if lo <= value <= hi:
            out.append(Row(name, _fmt(value, percent), shown, "within", OK))
        else:
            gap = value - hi if value > hi else value - lo
            text = f"{100 * gap:+.4f} pp" if percent else f"{gap:+.4f}"
            out.append(Row(name, _fmt(value, percent), shown, f"{text} {'above' if gap > 0 else 'below'}", OFF))
    return out


def _fmt(x: float, percent: bool) -> str:
    return pct(x, 4) if percent else f"{x:.4f}"


def targets_html(rows: list[Row]) -> str:
    """The target rows as a small coloured table."""
    body = "".join(f"<tr><td>{html.escape(r.figure)}</td><td>{html.escape(r.now)}</td><td>{html.escape(r.target)}</td>"
                   f"<td style='color:{r.colour};font-weight:600'>{html.escape(r.delta)}</td></tr>" for r in rows)
    return table_html(("figure", "now", "target", "Δ"), body, "mk-targets-table")


def coin_rtps(game: Game, reels: str) -> dict[int, Fraction | float]:
    """The RTP at every coin option, when the paytable has per-coin pays (else only the first option)."""
    if not any(len(v) > 1 for e in game.line_pays for _, v in e.pays):
        return {}
    return {c: quick_figures(at_bet(game, None, c), reels).rtp for c in game.bet.coins}


def warnings_for(game: Game, reels: str, rtp: Fraction | float, rows: list[Row],
                 coins: dict[int, Fraction | float]) -> list[str]:
    """What is wrong with the figures: RTP above 100%, figures outside their bands, coin options off the declared RTP.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> warnings_for(g, "base", Fraction(23, 20), [], {})[0]
    'RTP 115.0000% is above 100%: the game pays out more than it takes'
    """
    out = []
    if rtp > 1:
        out.append(f"RTP {pct(rtp, 4)} is above 100%: the game pays out more than it takes")
    out += [f"{r.figure} {r.now} is outside its target {r.target} ({r.delta})" for r in rows if r.colour == OFF]
    declared = game.declared_for(reels)
    if declared is not None and coins:
        tol = game.targets.rtp_tolerance
        off = {c: v for c, v in coins.items() if abs(Fraction(v) - declared) > tol}
        if off:
            text = ", ".join(f"{pct(v, 4)} at {c} coin{'s' if c != 1 else ''}" for c, v in off.items())
            out.append(f"declared RTP {pct(declared, 4)} differs from the RTP at other coin options: {text}")
    return out


class TargetsPanel(Panel):
    """The targets tab, and the status shown beside the RTP (:attr:`status`)."""

    title = "targets"

    def __init__(self, host: Any) -> None:
        super().__init__(host)
        self.status = html_widget("mk-targets")
        self.warnings = html_widget("mk-warnings")
        self.sd: float | None = None
        self.hf: float | None = None
        self.coins: dict[int, Fraction | float] = {}
        wide = {"description_width": "initial"}
        self.rtp_box = widgets.Text(description="target RTP %", layout=widgets.Layout(width="220px"), continuous_update=False,
                                    style=wide)
        self.rtp_box.add_class("mk-target-rtp")
        self.bands = {(k, i): widgets.Text(description=f"{label} {'low' if i == 0 else 'high'}", continuous_update=False,
                                           layout=widgets.Layout(width="220px"), style=wide)
                      for k, label in (("sd", "σ"), ("hit_frequency", "hit freq. %")) for i in (0, 1)}
        for (k, i), box in self.bands.items():
            box.add_class(f"mk-target-{k.replace('_', '-')}-{'lo' if i == 0 else 'hi'}")
            box.observe(lambda ch, k=k: self._band(k, ch["owner"]), "value")
        self.rtp_box.observe(lambda ch: self._rtp(ch["new"]), "value")
        self.tune_button = button("tune strips to the target RTP", "mk-tune", "magic")
        self.tune_out = html_widget("mk-tune-diff")
        self.apply_button = button("apply", "mk-tune-apply", "check")
        self.discard_button = button("discard", "mk-tune-discard", "times")
        self.tune_button.on_click(lambda _b: self.start_tune())
        self.apply_button.on_click(lambda _b: self.apply())
        self.discard_button.on_click(lambda _b: self._show_proposal(None))
        self.proposal: Proposal | None = None
        self._thread: threading.Thread | None = None
        self._show_proposal(None)
        self.widget = widgets.VBox([
            widgets.HTML("<small>Targets are part of the game file (<code>[targets]</code>; the RTP aimed at defaults "
                         "to <code>declared_rtp</code>). Bands: low and high, empty for none.</small>"),
            self.rtp_box, widgets.HBox([self.bands[("sd", 0)], self.bands[("sd", 1)]]),
            widgets.HBox([self.bands[("hit_frequency", 0)], self.bands[("hit_frequency", 1)]]),
            widgets.HTML("<b>Tune to target</b> <small>(the tuner changes the strips of the reel set being edited; "
                         "its proposal is shown as a diff and applied only when you press apply)</small>"),
            self.tune_button, self.tune_out, widgets.HBox([self.apply_button, self.discard_button])])

    # ------------------------------------------------------------------ figures
    def load(self) -> None:
        self.sd = self.hf = None
        self._show_proposal(None)

    def refresh(self) -> None:
        game, reels = self.host.game, self.host.reels
        self.sd = self.hf = None
        self.coins = coin_rtps(game, reels)

        def write() -> None:
            goal = game.target_rtp(reels)
            self.rtp_box.value = "" if goal is None else f"{100 * float(goal):.4f}"
            for (k, i), box in self.bands.items():
                band = getattr(game.targets, k)
                box.value = "" if band is None else (f"{100 * band[i]:.4f}" if k == "hit_frequency" else f"{band[i]:g}")
                box.remove_class("mk-invalid")
        self.host.suppressed(write)
        self._draw()

    def show_slow(self, step: str, value: Any) -> None:
        if isinstance(value, Unavailable):
            return
        if step == "sd":
            self.sd = value.value
        elif step == "par":
            sd, hf = readings.sd(value), readings.hit_frequency(value)
            self.sd = None if sd is None else sd.value
            self.hf = None if hf is None else hf.value
        self._draw()

    def _draw(self) -> None:
        quick = self.host.quick
        if quick is None:
            return
        rows = target_rows(self.host.game, self.host.reels, quick.rtp, self.sd, self.hf)
        self.status.value = targets_html(rows)
        warn = warnings_for(self.host.game, self.host.reels, quick.rtp, rows, self.coins)
        self.warnings.value = "".join(f"<div class='mk-warning'>⚠ {html.escape(w)}</div>" for w in warn)

    # ------------------------------------------------------------------ edits of [targets]
    def _rtp(self, text: str) -> None:
        def change(g: Game) -> Game:
            return with_targets(g, rtp=None if not text.strip() else Fraction(text.strip()) / 100)
        self.host.edit(_reading(change, "targets.rtp", "a percentage such as 95.5"), self.rtp_box, "target RTP")

    def _band(self, key: str, source: widgets.Text) -> None:
        lo, hi = (self.bands[(key, i)].value.strip() for i in (0, 1))
        scale = Fraction(1, 100) if key == "hit_frequency" else Fraction(1)

        def change(g: Game) -> Game:
            band = None if not lo and not hi else (float(Fraction(lo) * scale), float(Fraction(hi) * scale))
            return with_targets(g, **{key: band})
        self.host.edit(_reading(change, f"targets.{key}", "two numbers, low and high"), source, f"{key} band")

    # ------------------------------------------------------------------ tune to target
    def start_tune(self, wait: bool = False) -> None:
        """Ask the tuner for a proposal (in a thread; ``wait`` for it)."""
        game, reels = self.host.game, self.host.reels
        goal = game.target_rtp(reels)
        if goal is None:
            self.tune_out.value = "<i>no target RTP: set one above (or declared_rtp in the file)</i>"
            return
        self.tune_button.disabled = True
        self.tune_out.value = f"<span class='mk-spinner'></span> tuning to {pct(goal, 4)} …"

        def run() -> None:
            try:
                p = propose(game, reels, goal)
            except Exception as exc:  # the tuner failed: say so, keep the UI alive
                self.tune_out.value = error_html(exc)
                self.tune_button.disabled = False
                return
            self._show_proposal(p)
        self._thread = threading.Thread(target=run, daemon=True, name="mathkit-workbench-tune")
        self._thread.start()
        if wait:
            self._thread.join()

    def _show_proposal(self, p: Proposal | None) -> None:
        self.proposal = p
        self.tune_button.disabled = False
        for b in (self.apply_button, self.discard_button):
            b.disabled = p is None
        if p is None:
            self.tune_out.value = ""
            return
        rows = "".join(f"<tr><td>{html.escape(c.section)}</td><td>{html.escape(c.where)}</td><td>{html.escape(c.before)}</td>"
                       f"<td>{html.escape(c.after)}</td></tr>" for c in p.changes)
        head = (f"<b>{'reached' if p.reached else 'not reached'}</b>: RTP {pct(p.rtp, 6)} (target {pct(p.target, 4)}), "
                f"{len(p.changes)} change(s), {p.seconds:.1f} s" + "".join(f"<br><small>{html.escape(n)}</small>" for n in p.notes))
        self.tune_out.value = head + table_html(("section", "where", "before", "after"), rows, "mk-proposal")

    def apply(self) -> bool:
        """Apply the proposal shown (one undoable edit); refused if the game changed since it was made."""
        p = self.proposal
        if p is None:
            return False
        if p.base != self.host.game:
            self.tune_out.value = "<i>the game changed since this proposal: tune again</i>"
            return False
        ok = self.host.edit(lambda _g: p.game, None, "tune to target")
        if ok:
            self._show_proposal(None)
        return ok


def _reading(change: Any, field: str, fix: str) -> Any:
    """``change`` with a bad number in a text box reported as a GameError on ``field``."""
    from ..errors import GameError

    def wrapped(g: Game) -> Game:
        try:
            return change(g)  # type: ignore[no-any-return]
        except (ValueError, ZeroDivisionError) as exc:
            msg = f"cannot read the value ({exc})"
            raise GameError(msg, field=field, fix=fix) from None
    return wrapped
