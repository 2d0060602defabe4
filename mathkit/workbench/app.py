"""The workbench: a game designer edits strips, pays and features and sees the exact maths at once.

:func:`build_workbench` makes a :class:`Workbench`; display it in a notebook
(``display(wb)`` or leave it last in a cell).  Its widgets are attributes, so
tests set ``.value`` and read labels and figures without a kernel.

On every edit the cheap labels (exact RTP and its breakdown, feature
frequency: milliseconds) are shown first; σ, hit frequency, volatility index
and the distribution (the PAR sheet: a full-cycle enumeration) follow, computed
in a background thread.  In the default ``"auto"`` mode the edit waits up to
:data:`~mathkit.workbench.scheduler.SYNC_LIMIT` seconds for it: a fast PAR sheet (the benchmark game: ≈0.1 s)
is then shown together with the cheap figures, in one browser redraw; a slow one
(Dynasty's free-spin chain: seconds) lets the edit return once the cheap figures
are drawn, and a progress line appears after half a second.  No
``ipywidgets.Output`` is used (it hangs headless with plotly inside): the figures
are one ``go.FigureWidget`` updated in place.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..errors import GameError
from ..game import Game
from ..io import load_game, save_game
from ..par import ParSheet
from ..report import write_atomic, write_par
from . import views
from .editors import css_name, feature_editor, pay_editor, set_features, set_pays, set_strips, strip_editor
from .figures import FigureSet
from .model import (
    PROJECT_ROOT,
    Quick,
    default_game_path,
    game_files,
    paytable_csv,
    quick_figures,
    resolve_data_dir,
    with_feature,
    with_line_pay,
    with_scatter_pay,
    with_strip,
)
from .scheduler import Mode, Scheduler
from .sessions import SessionPanel

__all__ = ["Workbench", "build_workbench"]


#: how invalid boxes and figures waiting for the PAR sheet look
CSS = (".mk-invalid textarea, .mk-invalid input {border: 2px solid #c00 !important; background: #fff6f6 !important}"
       " .mk-stale {opacity: 0.45} .mk-rtp {font-size: 1.35em; font-weight: 600}"
       " .mk-spinner {display: inline-block; width: 0.8em; height: 0.8em; border: 2px solid #9ab;"
       " border-top-color: #1f77b4; border-radius: 50%; animation: mk-spin 0.8s linear infinite}"
       " @keyframes mk-spin {to {transform: rotate(360deg)}}")


def _close_tree(w: widgets.Widget) -> None:
    """Close a widget and its children (their browser models go too)."""
    for child in getattr(w, "children", ()):
        _close_tree(child)
    w.close()


def _html(cls: str, value: str = "") -> widgets.HTML:
    w = widgets.HTML(value)
    w.add_class(cls)
    return w


def _button(text: str, cls: str, icon: str = "") -> widgets.Button:
    b = widgets.Button(description=text, icon=icon, layout=widgets.Layout(width="auto"))
    b.add_class(cls)
    return b


class Workbench:
    """The workbench UI over one game at a time; see the module docstring.

    Attributes
    ----------
    game
        The last valid game (edits that fail validation leave it unchanged).
    path
        The file the game was loaded from or last saved to (``None`` for a game given in code).
    par
        The PAR sheet of the current game, once computed.
    timings
        Seconds from the last edit to: ``"rtp"`` (RTP label shown), ``"quick"`` (every cheap label, and
        in the background mode the cheap figures), ``"full"`` (σ, the distribution and every figure
        shown), and ``"par"`` (the PAR sheet computation alone).
    """

    def __init__(self, game: Game, path: Path | None, data_dir: Path, *, mode: Mode = "auto",
                 export_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self.export_dir_default = export_dir if export_dir is not None else PROJECT_ROOT / "exports"
        self.game = game
        self.path = path
        self.reels = game.default_reels
        self.par: ParSheet | None = None
        self.quick: Quick | None = None
        self.history: list[tuple[Game, str]] = []
        self.timings: dict[str, float] = {}
        self.baseline: tuple[Fraction | float, float | None] | None = None
        self._baseline_gen = 0
        self._par_generation = -1
        self._t_edit = time.perf_counter()
        self._suppress = False
        self.scheduler = Scheduler(mode, show_cheap=self._show_cheap, show_par=self._show_par,
                                   show_failure=self._show_failure, show_progress=self._show_progress)
        self._build_widgets()
        self._load_editors()
        self._refresh(initial=True)

    # ------------------------------------------------------------------ layout
    def _build_widgets(self) -> None:
        files = game_files(self.data_dir)
        self.game_picker = widgets.Dropdown(options=files, value=self._file_name(files), description="game",
                                            layout=widgets.Layout(width="320px"))
        self.game_picker.add_class("mk-game-picker")
        self.reels_picker = widgets.Dropdown(description="reel set", layout=widgets.Layout(width="240px"))
        self.reels_picker.add_class("mk-reels-picker")
        self.undo_button = _button("undo", "mk-undo", "undo")
        self.title = _html("mk-title")
        self.rtp_label = _html("mk-rtp")
        self.rtp_exact = _html("mk-rtp-exact")
        self.breakdown = _html("mk-breakdown")
        self.feature_label = _html("mk-feature")
        self.sd_label = _html("mk-sd")
        self.hit_label = _html("mk-hit")
        self.vi_label = _html("mk-vi")
        self.delta_rtp = _html("mk-delta-rtp")
        self.delta_sd = _html("mk-delta-sd")
        self.progress = _html("mk-progress")
        self.error = _html("mk-error")
        self.status = _html("mk-status")
        self.save_name = widgets.Text(placeholder="new_game.toml", description="save as",
                                      layout=widgets.Layout(width="300px"))
        self.save_name.add_class("mk-save-name")
        self.overwrite = widgets.Checkbox(value=False, description="overwrite an existing file", indent=False)
        self.overwrite.add_class("mk-overwrite")
        self.save_button = _button("save", "mk-save", "save")
        self.export_dir = widgets.Text(value=str(self.export_dir_default), description="export to",
                                       layout=widgets.Layout(width="420px"))
        self.export_dir.add_class("mk-export-dir")
        self.export_buttons = {fmt: _button(f"PAR sheet .{fmt}", f"mk-export-{fmt}", "download")
                               for fmt in ("json", "csv", "xlsx")}
        self.export_buttons["xlsx"].disabled = importlib.util.find_spec("mathkit.export") is None
        self.export_buttons["paytable"] = _button("paytable .csv", "mk-export-paytable", "download")
        self.figures = FigureSet()
        self.sessions = SessionPanel()
        self.editor_tabs = widgets.Tab()
        self.editor_tabs.add_class("mk-editors")

        self.game_picker.observe(self._on_game_pick, "value")
        self.reels_picker.observe(self._on_reels_pick, "value")
        self.undo_button.on_click(lambda _b: self.undo())
        self.save_button.on_click(lambda _b: self.save_as())
        for fmt, b in self.export_buttons.items():
            b.on_click(lambda _b, fmt=fmt: self.export(fmt))

        numbers = widgets.VBox([self.title, self.rtp_label, self.rtp_exact, self.breakdown, self.feature_label,
                                self.sd_label, self.hit_label, self.vi_label, self.delta_rtp, self.delta_sd,
                                self.progress], layout=widgets.Layout(width="36%", padding="0 0 0 12px"))
        numbers.add_class("mk-numbers")
        top = widgets.HBox([self.game_picker, self.reels_picker, self.undo_button])
        body = widgets.HBox([widgets.VBox([self.editor_tabs], layout=widgets.Layout(width="64%")), numbers])
        style = widgets.HTML(f"<style>{CSS}</style>")
        self.widget = widgets.VBox([style, top, self.error, body, self.status, self.figures.widget, self.sessions.box])
        self.widget.add_class("mk-workbench")

    def _file_name(self, files: list[str]) -> str | None:
        if self.path is not None and self.path.parent.resolve() == self.data_dir.resolve() and self.path.name in files:
            return self.path.name
        return None

    def _load_editors(self) -> None:
        """(Re)build the editors for the current game's structure."""
        self._suppressed(self._set_reels_options)
        for old in ("strip_ed", "pay_ed", "feature_ed"):
            if hasattr(self, old):
                _close_tree(getattr(self, old).box)
        self.strip_ed = strip_editor(self.game, self.reels)
        self.pay_ed = pay_editor(self.game)
        self.feature_ed = feature_editor(self.game)
        for r, area in enumerate(self.strip_ed.areas):
            area.observe(lambda ch, r=r: self._on_strip(r, ch["new"]), "value")
        for (entry, k, i), box in self.pay_ed.line.items():
            box.observe(lambda ch, e=entry, k=k, i=i: self._edit(lambda g: with_line_pay(g, e, k, ch["new"], i),
                                                                   ch["owner"]), "value")
        for (sym, k), box in self.pay_ed.scatter.items():
            box.observe(lambda ch, s=sym, k=k: self._edit(lambda g: with_scatter_pay(g, s, k, ch["new"]), ch["owner"]),
                        "value")
        self._wire_features()
        save = widgets.VBox([widgets.HBox([self.save_name, self.overwrite, self.save_button]),
                             widgets.HTML("<small>Saves into the games folder, atomically; an existing file is "
                                          "replaced only when <i>overwrite</i> is ticked.</small>"),
                             self.export_dir, widgets.HBox(list(self.export_buttons.values()))])
        self.editor_tabs.children = (self.strip_ed.box, self.pay_ed.box, self.feature_ed.box, save)
        for i, title in enumerate(("reel strips", "paytable", "features", "save & export")):
            self.editor_tabs.set_title(i, title)
        self.editor_tabs.selected_index = 0
        self.strip_ed.grid.value = views.count_grid_html(self.game, self.reels)

    def _wire_features(self) -> None:
        for (name, path), box in self.feature_ed.fields.items():
            box.observe(lambda ch, name=name, path=path: self._edit(
                lambda g: with_feature(g, name, path, ch["new"]), ch["owner"]), "value")

    def _set_reels_options(self) -> None:
        self.reels_picker.options = [rs.name for rs in self.game.reel_sets]
        self.reels_picker.value = self.reels

    def _suppressed(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` with the edit observers switched off (writing a game into the widgets)."""
        self._suppress = True
        try:
            return fn()
        finally:
            self._suppress = False

    # ------------------------------------------------------------------ the editors' widgets, for tests
    @property
    def strips(self) -> list[widgets.Textarea]:
        """One text area per reel of the reel set being edited."""
        return self.strip_ed.areas

    @property
    def count_grid(self) -> widgets.HTML:
        return self.strip_ed.grid

    @property
    def pay_inputs(self) -> dict[tuple[str, int, int], widgets.IntText]:
        """Line/ways pays by (entry, count, coin option)."""
        return self.pay_ed.line

    @property
    def scatter_inputs(self) -> dict[tuple[str, int], widgets.IntText]:
        """Scatter pays by (symbol, count)."""
        return self.pay_ed.scatter

    @property
    def feature_inputs(self) -> dict[tuple[str, tuple[str | int, ...]], widgets.Widget]:
        """Feature fields by (feature name, path in its table)."""
        return self.feature_ed.fields

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        with self.scheduler.lock:
            self.figures.sync_state()
            return self.widget._repr_mimebundle_(**kwargs)

    # ------------------------------------------------------------------ edits
    def _on_strip(self, reel: int, text: str) -> None:
        if self._suppress:
            return
        self._edit(lambda g: with_strip(g, self.reels, reel, text), self.strip_ed.areas[reel])

    def _edit(self, change: Callable[[Game], Game], source: widgets.DOMWidget | None = None) -> bool:
        """Apply one edit; on a validation error show it, mark ``source`` invalid and keep the last valid game."""
        if self._suppress:
            return True
        self._t_edit = time.perf_counter()
        try:
            new = change(self.game)
        except GameError as exc:
            self.error.value = views.error_html(exc)
            if source is not None:
                source.add_class("mk-invalid")
            return False
        if source is not None:
            source.remove_class("mk-invalid")
        self.history.append((self.game, self.reels))
        self.game = new
        self.error.value = ""
        self._refresh()
        return True

    def undo(self) -> None:
        """Go back to the game before the last edit (editors, figures and all)."""
        if not self.history:
            self.status.value = "nothing to undo"
            return
        self._t_edit = time.perf_counter()
        self.game, self.reels = self.history.pop()
        self.error.value = ""
        self._suppressed(self._write_editors)
        self._refresh()

    def _write_editors(self) -> None:
        self.reels_picker.value = self.reels
        set_strips(self.strip_ed, self.game, self.reels)
        set_pays(self.pay_ed, self.game)
        set_features(self.feature_ed, self.game)

    def _on_reels_pick(self, change: dict[str, Any]) -> None:
        if self._suppress or change["new"] is None:
            return
        self._t_edit = time.perf_counter()
        self.reels = str(change["new"])
        self._suppressed(lambda: set_strips(self.strip_ed, self.game, self.reels))
        self.error.value = ""
        self._refresh()

    def _on_game_pick(self, change: dict[str, Any]) -> None:
        if self._suppress or not change["new"]:
            return
        self.open(self.data_dir / str(change["new"]))

    def open(self, path: str | Path) -> None:
        """Load another game file (an invalid file shows its error and keeps the current game)."""
        self._t_edit = time.perf_counter()
        try:
            game = load_game(path)
        except GameError as exc:
            self.error.value = views.error_html(exc)
            return
        self.game, self.path, self.reels = game, Path(path), game.default_reels
        self.history.clear()
        self.baseline = None
        self.par = None
        self.error.value = ""
        self.figures.reset()
        self._load_editors()
        self._refresh(initial=True)

    # ------------------------------------------------------------------ figures
    def _refresh(self, initial: bool = False) -> None:
        """Show the cheap labels now; the scheduler gets the PAR sheet and the figures shown."""
        with self.scheduler.lock:
            gen = self.scheduler.new_edit()
            quick = quick_figures(self.game, self.reels)
            self.quick = quick
            if self.baseline is None:
                self.baseline, self._baseline_gen = (quick.rtp, None), gen
            self.rtp_label.value = views.rtp_text(quick.rtp)
            self.timings["rtp"] = time.perf_counter() - self._t_edit
            self.rtp_exact.value = views.exact_text(quick.rtp)
            self.breakdown.value = views.breakdown_html(quick.breakdown)
            self.feature_label.value = views.feature_text(quick.feature_frequency)
            self.delta_rtp.value = views.delta_text("RTP", float(quick.rtp), float(self.baseline[0]), percent=True)
            name = self.path.name if self.path is not None else "(not saved)"
            self.title.value = (f"<b>{self.game.name}</b> · {name} · analysed on <code>{quick.reels}</code> · "
                                f"cycle {self.game.reel_set(quick.reels).cycle:,}")
            self.strip_ed.grid.value = views.count_grid_html(self.game, self.reels)
            self.undo_button.disabled = not self.history
            for w in (self.sd_label, self.hit_label, self.vi_label, self.delta_sd):
                w.add_class("mk-stale")
            self.timings["quick"] = time.perf_counter() - self._t_edit
        self.scheduler.run(gen, self.game, self.reels, quick, inline=initial)

    def _show_cheap(self, quick: Quick) -> None:
        self.figures.show(quick=quick, game=self.game, reels=self.reels)

    def _show_par(self, gen: int, par: ParSheet, seconds: float, quick: Quick | None) -> None:
        self.timings["par"] = seconds
        self.par = par
        self._par_generation = gen
        assert self.baseline is not None
        if self.baseline[1] is None and gen == self._baseline_gen:
            self.baseline = (self.baseline[0], par.sd.value)
        self.sd_label.value = views.sd_text(par)
        self.hit_label.value = views.hit_text(par)
        self.vi_label.value = views.vi_text(par)
        self.delta_sd.value = views.delta_text("σ", par.sd.value, self.baseline[1], percent=False)
        for w in (self.sd_label, self.hit_label, self.vi_label, self.delta_sd):
            w.remove_class("mk-stale")
        if quick is None:
            self.figures.show(par=par)
        else:
            self.figures.show(quick=quick, game=self.game, reels=self.reels, par=par)
        self.timings["full"] = time.perf_counter() - self._t_edit
        self.progress.value = f"<small style='color:#888'>σ and distribution in {seconds:.2f} s</small>"
        self.sessions.show(self.game, par)

    def _show_failure(self, exc: Exception, quick: Quick | None) -> None:
        self.progress.value = views.error_html(exc)
        if quick is not None:
            self.figures.show(quick=quick, game=self.game, reels=self.reels)

    def _show_progress(self, seconds: float) -> None:
        self.progress.value = f"<span class='mk-spinner'></span> computing σ and the distribution … {seconds:.1f} s"

    def wait(self, timeout: float = 60.0) -> None:
        """Wait for a PAR sheet computation running in the background (tests, scripts)."""
        self.scheduler.wait(timeout)

    def current_par(self) -> ParSheet:
        """The PAR sheet of the current game (computed now if the shown one is out of date)."""
        self.wait()
        if self.par is None or self._par_generation != self.scheduler.generation:
            assert self.quick is not None
            self.scheduler.run(self.scheduler.generation, self.game, self.reels, self.quick, inline=True)
        assert self.par is not None
        return self.par

    # ------------------------------------------------------------------ save and export
    def save_as(self, name: str | None = None, *, overwrite: bool | None = None) -> Path | None:
        """Save the current game into the games folder under ``name`` (default: the name box).

        Atomic (:func:`mathkit.io.save_game`).  An existing file is replaced only when
        ``overwrite`` (default: the checkbox) is true; the checkbox is cleared after each save.
        """
        raw = (self.save_name.value if name is None else name).strip()
        allow = bool(self.overwrite.value) if overwrite is None else overwrite
        if not raw or Path(raw).name != raw or raw.startswith("."):
            self.status.value = views.error_html(GameError(f"cannot save as {raw!r}", field="save as",
                                                           fix="give a file name such as my_game.toml, no folders"))
            return None
        target = self.data_dir / (raw if raw.endswith(".toml") else f"{raw}.toml")
        if target.exists() and not allow:
            self.status.value = (f"<span style='color:#a00'>⚠ {target.name} exists: not saved. Tick "
                                 f"<i>overwrite</i> to replace it, or choose another name.</span>")
            return None
        try:
            out = save_game(self.game, target, overwrite=allow)
        except (OSError, GameError) as exc:
            self.status.value = views.error_html(exc)
            return None
        self.path = out
        self.overwrite.value = False
        current = self.par is not None and self._par_generation == self.scheduler.generation
        assert self.quick is not None
        self.baseline = (self.quick.rtp, self.par.sd.value if current and self.par is not None else None)
        self._baseline_gen = self.scheduler.generation
        self._suppressed(self._refresh_files)
        self.delta_rtp.value = views.delta_text("RTP", 0.0, 0.0, percent=True)
        self.delta_sd.value = views.delta_text("σ", 0.0, 0.0, percent=False)
        self.status.value = f"saved {out}"
        return out

    def _refresh_files(self) -> None:
        files = game_files(self.data_dir)
        self.game_picker.options = files
        self.game_picker.value = self._file_name(files)

    def _stem(self) -> str:
        return self.path.stem if self.path is not None else css_name(self.game.name)

    def export(self, fmt: str) -> Path | None:
        """Write the PAR sheet (``json``, ``csv``, ``xlsx``) or the paytable (``paytable``) into the export folder."""
        folder = Path(self.export_dir.value)
        try:
            if fmt == "paytable":
                out = write_atomic(folder / f"{self._stem()}_paytable.csv", paytable_csv(self.game))
            else:
                out = write_par(self.current_par(), folder / f"{self._stem()}_{self.reels}_par.{fmt}")
        except (OSError, ValueError, ImportError, GameError) as exc:
            self.status.value = views.error_html(exc)
            return None
        self.status.value = f"wrote {out}"
        return out


def build_workbench(path_or_game: str | Path | Game | None = None, data_dir: str | Path = "data/games", *,
                    mode: Mode = "auto", export_dir: str | Path | None = None) -> Workbench:
    """Make the workbench on a game file, a game, or the default game (Dynasty, else the benchmark game).

    Parameters
    ----------
    path_or_game
        A game file (a bare file name is looked up in ``data_dir``), a :class:`~mathkit.game.Game`,
        or ``None`` for the default game.
    data_dir
        The games folder the picker lists and "save as" writes to; a relative folder that does not
        exist from the working directory is taken from the project root.
    mode
        ``"auto"``: the PAR sheet synchronously when it is fast, else in a thread; ``"sync"``; ``"thread"``.
    export_dir
        Where exports go (default ``exports/`` in the project).

    Examples
    --------
    >>> wb = build_workbench("benchmark_5x3.toml", mode="sync")
    >>> wb.rtp_label.value
    'RTP 96.288391%'
    """
    folder = resolve_data_dir(data_dir)
    if isinstance(path_or_game, Game):
        game, path = path_or_game, None
    else:
        path = default_game_path(folder) if path_or_game is None else Path(path_or_game)
        if not path.exists() and not path.is_absolute() and (folder / path).exists():
            path = folder / path
        game = load_game(path)
    return Workbench(game, path, folder, mode=mode, export_dir=None if export_dir is None else Path(export_dir))
