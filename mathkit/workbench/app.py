"""The workbench: a game designer edits strips, pays, features and targets and sees the exact maths at once.

:func:`build_workbench` makes a :class:`Workbench`; display it in a notebook
(``display(wb)`` or leave it last in a cell).  Its widgets are attributes, so
tests set ``.value`` and read labels and figures without a kernel.

Every edit shows the cheap figures at once, on the kernel's thread (the exact
RTP, its breakdown, the feature frequency, the hit/return table, the targets:
milliseconds); σ, ∂RTP and the PAR sheet (σ, hit frequency, volatility index,
the win distribution) follow from :mod:`~mathkit.workbench.scheduler`, by
default in a worker process so the kernel is free for the next edit, with a
progress line that ticks while they are computed.  No ``ipywidgets.Output`` is
used (it hangs headless with plotly inside): the figures are one
``go.FigureWidget`` updated in place.

The tabs are panels (:mod:`~mathkit.workbench.panel`), one module each, listed
in :data:`PANELS`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..errors import GameError, ModelError
from ..export.sheet import write_par
from ..gamefile.io import StyleLostWarning, load_game, save_game
from ..model.game import Game
from ..report.par import RoundSheet
from ..report.text import write_atomic
from . import readings, views
from .compare import ComparePanel
from .editors import FeaturePanel, PayPanel, css_name
from .figures import FigureSet
from .files import FilesPanel
from .messages import place_below
from .model import PROJECT_ROOT, Quick, default_game_path, game_files, paytable_csv, quick_figures, resolve_data_dir
from .panel import Panel, button, html
from .scheduler import Mode, Scheduler
from .sessions import SessionPanel
from .strips import StripPanel
from .tables import TablesPanel
from .targets import TargetsPanel
from .worker import Unavailable

__all__ = ["PANELS", "Workbench", "build_workbench"]

#: the tabs, in order (a new panel is a module with a :class:`~mathkit.workbench.panel.Panel` subclass, listed here)
PANELS: tuple[type[Panel], ...] = (StripPanel, PayPanel, FeaturePanel, TargetsPanel, TablesPanel, ComparePanel,
                                   SessionPanel)
_STEP_TEXT = {"sd": "σ", "sensitivity": "∂RTP per symbol", "par": "the win distribution"}

#: how invalid boxes, stale figures, tables and warnings look
CSS = (".mk-invalid textarea, .mk-invalid input, .mk-invalid select {border: 2px solid #c00 !important;"
       " background: #fff6f6 !important} .mk-stale {opacity: 0.45} .mk-rtp {font-size: 1.35em; font-weight: 600}"
       " .mk-spinner {display: inline-block; width: 0.8em; height: 0.8em; border: 2px solid #9ab;"
       " border-top-color: #1f77b4; border-radius: 50%; animation: mk-spin 0.8s linear infinite}"
       " @keyframes mk-spin {to {transform: rotate(360deg)}}"
       " .mk-grid select {font-family: monospace; font-size: 12px}"
       " .mk-table {border-collapse: collapse; font-size: 12px; margin: 2px 0 8px 0}"
       " .mk-table td, .mk-table th {padding: 1px 6px; border-bottom: 1px solid #eee; text-align: right; vertical-align: top}"
       " .mk-table td:first-child, .mk-table th:first-child {text-align: left}"
       " .mk-warning {color: #8a1c00; background: #fff3e0; border: 1px solid #f0a060; padding: 3px 8px; margin: 2px 0}")


class Workbench:
    """The workbench UI over one game at a time; see the module docstring.

    Attributes
    ----------
    game
        The last valid game (edits that fail validation leave it unchanged).
    path
        The file the game was loaded from or last saved to (``None`` for a game given in code).
    saved_game
        The game as in ``path`` (what "Δ vs saved" and the compare tab's "saved file" refer to).
    par
        The PAR sheet of the current game, once computed.
    timings
        Seconds from the last edit to: ``"rtp"`` (RTP label set), ``"quick"`` (every cheap figure),
        ``"sd"``, ``"full"`` (the PAR sheet shown), ``"sensitivity"`` (∂RTP shown, last).
    """

    def __init__(self, game: Game, path: Path | None, data_dir: Path, *, mode: Mode = "auto",
                 export_dir: Path | None = None, live_figures: bool = True) -> None:
        self.live_figures = live_figures
        self.data_dir = data_dir
        self.game, self.path = game, path
        self.saved_game: Game | None = game if path is not None else None
        self.reels = game.default_reels
        self.par: RoundSheet | None = None
        self.quick: Quick | None = None
        self.saved_quick: Quick | None = None
        self.saved_sd: dict[str, float] = {}
        self.sd: float | None = None
        self.history: list[tuple[Game, str, str]] = []
        self.timings: dict[str, float] = {}
        self._par_generation = -1
        self._t_edit = time.perf_counter()
        self._suppress = False
        self.scheduler = Scheduler(mode, show=self._show_slow, show_progress=self._show_progress)
        self._build_widgets(export_dir if export_dir is not None else PROJECT_ROOT / "exports")
        self._load()

    # ------------------------------------------------------------------ layout
    def _build_widgets(self, export_dir: Path) -> None:
        files = game_files(self.data_dir)
        self.game_picker = widgets.Dropdown(options=files, value=self._file_name(files), description="game",
                                            layout=widgets.Layout(width="320px"))
        self.game_picker.add_class("mk-game-picker")
        self.reels_picker = widgets.Dropdown(description="reel set", layout=widgets.Layout(width="240px"))
        self.reels_picker.add_class("mk-reels-picker")
        self.undo_button = button("undo", "mk-undo", "undo")
        for name in ("title", "rtp", "rtp-exact", "breakdown", "feature", "sd", "hit", "vi", "delta-rtp", "delta-sd",
                     "progress", "error", "status"):
            setattr(self, name.replace("-", "_") + ("_label" if name in ("rtp", "feature", "sd", "hit", "vi") else ""),
                    html(f"mk-{name}"))
        self.figures = FigureSet(self.live_figures)
        self.panels: list[Panel] = [cls(self) for cls in PANELS]
        self.files = FilesPanel(self, export_dir)
        self.panels.append(self.files)
        self.targets = next(p for p in self.panels if isinstance(p, TargetsPanel))
        self.strip_panel = next(p for p in self.panels if isinstance(p, StripPanel))
        self.sessions = next(p for p in self.panels if isinstance(p, SessionPanel))
        self.editor_tabs = widgets.Tab()
        self.editor_tabs.add_class("mk-editors")
        self.game_picker.observe(self._on_game_pick, "value")
        self.reels_picker.observe(self._on_reels_pick, "value")
        self.undo_button.on_click(lambda _b: self.undo())
        numbers = widgets.VBox([self.title, self.rtp_label, self.rtp_exact, self.breakdown, self.feature_label,
                                self.sd_label, self.hit_label, self.vi_label, self.delta_rtp, self.delta_sd,
                                self.targets.status, self.progress],
                               layout=widgets.Layout(width="38%", padding="0 0 0 12px"))
        numbers.add_class("mk-numbers")
        top = widgets.HBox([self.game_picker, self.reels_picker, self.undo_button])
        body = widgets.HBox([widgets.VBox([self.editor_tabs], layout=widgets.Layout(width="62%")), numbers])
        body.add_class("mk-body")
        # an invalid edit's message goes below the edited control's row (mathkit.workbench.messages); here otherwise
        self.error_slot = widgets.VBox([self.error])
        self._error_moved = False
        self.widget = widgets.VBox([widgets.HTML(f"<style>{CSS}</style>"), top, self.error_slot, self.targets.warnings, body,
                                    self.status, self.figures.widget if self.figures.live else self.figures.placeholder])
        self.widget.add_class("mk-workbench")

    def _file_name(self, files: list[str]) -> str | None:
        """The picker's entry for the file being edited (its path relative to the data folder), if listed."""
        if self.path is None:
            return None
        try:
            rel = self.path.resolve().relative_to(self.data_dir.resolve()).as_posix()
        except ValueError:
            return None
        return rel if rel in files else None

    def _load(self) -> None:
        """(Re)build every panel for the current game and reel set, on the first tab, and show the figures."""
        def pickers() -> None:
            self.reels_picker.options = [rs.name for rs in self.game.reel_sets]
            self.reels_picker.value = self.reels
        self.suppressed(pickers)
        for p in self.panels:
            p.load()
        self.editor_tabs.children = tuple(p.widget for p in self.panels)
        for i, p in enumerate(self.panels):
            self.editor_tabs.set_title(i, p.title)
        self.editor_tabs.selected_index = 0
        self._refresh(initial=True)

    def suppressed(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` with the edit observers switched off (writing a game into the widgets)."""
        before, self._suppress = self._suppress, True
        try:
            return fn()
        finally:
            self._suppress = before

    # ------------------------------------------------------------------ the editors' widgets, for tests
    @property
    def strips(self) -> list[widgets.Textarea]:
        """The text form: one text area per reel of the reel set being edited."""
        return self.strip_panel.areas

    @property
    def grid(self) -> list[widgets.SelectMultiple]:
        """The strip grid: one column (a multiple selection of stops) per reel."""
        return self.strip_panel.columns

    @property
    def count_grid(self) -> widgets.HTML:
        return self.strip_panel.counts

    @property
    def pay_inputs(self) -> dict[tuple[str, int, int], widgets.IntText]:
        """Line/ways pays by (entry, count, coin option)."""
        return self._panel(PayPanel).ed.line  # type: ignore[no-any-return]

    @property
    def scatter_inputs(self) -> dict[tuple[str, int], widgets.IntText]:
        """Scatter pays by (symbol, count)."""
        return self._panel(PayPanel).ed.scatter  # type: ignore[no-any-return]

    @property
    def feature_inputs(self) -> dict[tuple[str, tuple[str | int, ...]], widgets.Widget]:
        """Feature fields by (feature name, path in its table)."""
        return self._panel(FeaturePanel).ed.fields  # type: ignore[no-any-return]

    def _panel(self, cls: type[Panel]) -> Any:
        return next(p for p in self.panels if isinstance(p, cls))

    def __getattr__(self, name: str) -> Any:  # the save & export widgets: wb.save_name, wb.export_buttons …
        if name in ("save_name", "overwrite", "save_button", "export_dir", "export_buttons"):
            return getattr(self.__dict__["files"], name)
        raise AttributeError(name)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        with self.scheduler.lock:
            self.figures.sync_state()
            return self.widget._repr_mimebundle_(**kwargs)

    # ------------------------------------------------------------------ edits
    def edit(self, change: Callable[[Game], Game], source: widgets.DOMWidget | None = None, what: str = "") -> bool:
        """Apply one edit; on a validation error show it, mark ``source`` invalid and keep the last valid game."""
        if self._suppress:
            return True
        self._t_edit = time.perf_counter()
        try:
            new = change(self.game)
        except GameError as exc:
            self.fail(exc, source)
            return False
        if source is not None:
            source.remove_class("mk-invalid")
        self.history.append((self.game, self.reels, what or "edit"))
        self.game = new
        self.status.value = ""
        self.clear_error()
        self._refresh()
        return True

    def fail(self, exc: Exception, source: widgets.DOMWidget | None = None) -> None:
        """Show an invalid edit's message and mark ``source``; the game stays as it was."""
        self.error.value = views.error_html(exc)
        self._error_moved = place_below(self.editor_tabs, source, self.error, self.error_slot)
        if source is not None:
            source.add_class("mk-invalid")

    def clear_error(self) -> None:
        """No invalid edit to show: the message emptied and back in its slot at the top."""
        self.error.value = ""
        if self._error_moved:  # (a tree walk: only when the message is below a control)
            self._error_moved = place_below(self.editor_tabs, None, self.error, self.error_slot)

    def say(self, text: str) -> None:
        self.status.value = text

    def undo(self) -> None:
        """Go back to the game before the last edit (editors, figures and all)."""
        if not self.history:
            self.status.value = "nothing to undo"
            return
        self._t_edit = time.perf_counter()
        self.game, reels, what = self.history.pop()
        self.clear_error()
        self.status.value = f"undone: {what}"
        if reels != self.reels:
            self.reels = reels
            self._load()
            return
        self._refresh()

    def _on_reels_pick(self, change: dict[str, Any]) -> None:
        if self._suppress or change["new"] is None:
            return
        self._t_edit = time.perf_counter()
        self.reels = str(change["new"])
        self.clear_error()
        self._load()

    def _on_game_pick(self, change: dict[str, Any]) -> None:
        if self._suppress or not change["new"]:
            return
        picked = self.data_dir / str(change["new"])
        if self.path is not None and picked.resolve() == self.path.resolve():
            return  # the file being edited (the browser echoing the picker after a save): nothing to open
        self.open(picked)

    def open(self, path: str | Path) -> None:
        """Load another game file (an invalid file shows its error and keeps the current game)."""
        self._t_edit = time.perf_counter()
        try:
            game = load_game(path)
        except GameError as exc:
            self.fail(exc)
            return
        self.game, self.path, self.reels = game, Path(path), game.default_reels
        self.saved_game, self.saved_sd = game, {}
        self.history.clear()
        self.par = None
        self.status.value = ""
        self.clear_error()
        self.figures.reset()
        self._load()
        if self.figures.live:  # the new figure in the old one's place
            with self.scheduler.lock:
                self.widget.children = (*self.widget.children[:-1], self.figures.widget)

    # ------------------------------------------------------------------ figures
    def _refresh(self, initial: bool = False) -> None:
        """Show the cheap figures now; the scheduler gets the slow ones shown."""
        with self.scheduler.lock:
            gen = self.scheduler.new_edit()
            quick = quick_figures(self.game, self.reels)
            self.quick, self.sd = quick, None
            for key in ("sd", "full", "sensitivity"):
                self.timings.pop(key, None)
            self.rtp_label.value = views.rtp_text(quick.rtp)
            self.timings["rtp"] = time.perf_counter() - self._t_edit
            if self.saved_game is None:
                self.saved_quick = None
            elif self.saved_quick is None or self.saved_quick.reels != quick.reels or self._saved_stale:
                self.saved_quick = quick if self.game == self.saved_game else quick_figures(self.saved_game, self.reels)
            self._saved_stale = False
            self.rtp_exact.value = views.exact_text(quick.rtp, quick.method, quick.error)
            self.breakdown.value = views.breakdown_html(quick.breakdown, quick.methods)
            self.feature_label.value = views.feature_text(quick.feature_frequency)
            against = "saved" if self.saved_game is not None else "not saved yet"
            before = None if self.saved_quick is None else float(self.saved_quick.rtp)
            self.delta_rtp.value = views.delta_text("RTP", float(quick.rtp), before, percent=True, against=against)
            self.title.value = self._title_html(quick)
            self.undo_button.disabled = not self.history
            self.undo_button.tooltip = f"undo: {self.history[-1][2]}" if self.history else "nothing to undo"
            for w in (self.sd_label, self.hit_label, self.vi_label, self.delta_sd):
                w.add_class("mk-stale")
            for p in self.panels:
                p.refresh()
            self.figures.show(quick=quick, game=self.game, reels=self.reels)
            self.timings["quick"] = time.perf_counter() - self._t_edit
        self.scheduler.run(gen, self.game, self.reels, inline=initial and self.scheduler.mode == "sync")

    _saved_stale = False

    def _title_html(self, quick: Quick) -> str:
        name = self.path.name if self.path is not None else "(not saved)"
        edited = " · <i>edited</i>" if self.saved_game is not None and self.game != self.saved_game else ""
        played = "" if quick.reels == self.reels else f" (edits of <code>{self.reels}</code> play through its feature)"
        return (f"<b>{self.game.name}</b> · {name}{edited} · analysed on <code>{quick.reels}</code>{played} · "
                f"cycle {self.game.reel_set(quick.reels).cycle:,}")

    def _show_slow(self, gen: int, step: str, value: Any, seconds: float) -> None:
        for p in self.panels:
            p.show_slow(step, value)
        missing = isinstance(value, Unavailable)
        if step == "sd":
            if missing:
                self._sd_missing(views.unavailable_text("sd", value.error))
            else:
                self._show_sd(value.value, value.method)
            self.timings["sd"] = time.perf_counter() - self._t_edit
        elif step == "par":
            if missing:
                self.par = None
                why = views.unavailable_text("par", value.error)
                self.hit_label.value = f"hit frequency: not available — {why}"
                self.vi_label.value = "volatility index: " + (
                    "see σ" if self.sd is not None else f"not available — {why}")
                self.figures.unavailable(why)
            else:
                self.par, self._par_generation = value, gen
                sd = readings.sd(value)
                if sd is not None:
                    self._show_sd(sd.value, sd.method)
                elif self.sd is None:
                    self._sd_missing(readings.missing(value).get("sd", "σ is not available for this game"))
                self.hit_label.value = views.hit_text(value)
                self.vi_label.value = views.vi_text(value)
                self.figures.show(par=value)
            for w in (self.hit_label, self.vi_label):
                w.remove_class("mk-stale")
            self.timings["full"] = time.perf_counter() - self._t_edit
            self._show_done()
        elif step == "sensitivity":
            self.timings["sensitivity"] = time.perf_counter() - self._t_edit
            self._show_done()

    def _show_done(self) -> None:
        """The progress line once the PAR sheet is shown (and ∂RTP, when it is)."""
        t = self.timings
        if "full" not in t:
            return
        sens = f", ∂RTP in {t['sensitivity']:.2f} s" if "sensitivity" in t else ""
        self.progress.value = (f"<small style='color:#888'>σ in {t.get('sd', t['full']):.2f} s, "
                               f"distribution in {t['full']:.2f} s{sens}</small>")

    def _show_sd(self, sd: float, method: str | None = None) -> None:
        self.sd = sd
        if self.saved_game is not None and self.game == self.saved_game:
            self.saved_sd.setdefault(self.reels, sd)
        self.sd_label.value = views.sd_text(sd, method)
        against = "saved" if self.saved_game is not None else "not saved yet"
        self.delta_sd.value = views.delta_text("σ", sd, self.saved_sd.get(self.reels), percent=False,
                                               against=against if self.reels in self.saved_sd else "σ of the saved file not computed")
        for w in (self.sd_label, self.delta_sd):
            w.remove_class("mk-stale")

    def _sd_missing(self, why: str) -> None:
        self.sd = None
        self.sd_label.value = f"σ: not available — {why}"
        self.delta_sd.value = "Δ σ: —"
        for w in (self.sd_label, self.delta_sd):
            w.remove_class("mk-stale")

    def _show_progress(self, seconds: float, step: str) -> None:
        self.progress.value = (f"<span class='mk-spinner'></span> computing {_STEP_TEXT.get(step, step)} … "
                               f"{seconds:.1f} s")

    def wait(self, timeout: float = 120.0) -> None:
        """Wait for the slow figures of the current edit (tests, scripts)."""
        self.scheduler.wait(timeout)

    def current_par(self) -> RoundSheet:
        """The PAR sheet of the current game (computed now if the shown one is out of date)."""
        self.wait()
        if self.par is None or self._par_generation != self.scheduler.generation:
            self.scheduler.run(self.scheduler.generation, self.game, self.reels, inline=True)
        if self.par is None:
            msg = "the PAR sheet of this edit could not be computed (its reason is shown beside the hit frequency)"
            raise ModelError(msg)
        return self.par

    def close(self) -> None:
        """Stop the worker process (the widgets stay)."""
        self.scheduler.close()

    # ------------------------------------------------------------------ save and export
    def save_as(self, name: str | None = None, *, overwrite: bool | None = None) -> Path | None:
        """Save the current game into the games folder under ``name`` (default: the name box).

        Atomic, as an edit of the file the game came from (:func:`mathkit.gamefile.io.save_game`): only the
        edited values change.  An existing file is replaced only when ``overwrite`` (default: the
        checkbox) is true; the checkbox is cleared after each save.
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
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", StyleLostWarning)
                out = save_game(self.game, target, overwrite=allow, template=self.path)
        except (OSError, GameError) as exc:
            self.status.value = views.error_html(exc)
            return None
        self.path, self.saved_game = out, self.game
        self.saved_quick, self.saved_sd = self.quick, ({self.reels: self.sd} if self.sd is not None else {})
        self.overwrite.value = False
        self.suppressed(self._refresh_files)
        assert self.quick is not None
        self.title.value = self._title_html(self.quick)
        self.delta_rtp.value = views.delta_text("RTP", 0.0, 0.0, percent=True)
        self.delta_sd.value = views.delta_text("σ", 0.0, 0.0, percent=False)
        self.tables_refresh()
        note = "".join(f" — {w.message}" for w in caught)
        self.status.value = f"saved {out}{note}"
        return out

    def tables_refresh(self) -> None:
        for p in self.panels:
            if isinstance(p, TablesPanel):
                p.refresh()

    def _refresh_files(self) -> None:
        files = game_files(self.data_dir)
        self.game_picker.options = files
        self.game_picker.value = self._file_name(files)
        self.files.load()
        self._panel(ComparePanel).load()

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
        except (OSError, ValueError, ImportError, GameError, ModelError) as exc:
            self.status.value = views.error_html(exc)
            return None
        self.status.value = f"wrote {out}"
        return out


def build_workbench(path_or_game: str | Path | Game | None = None, data_dir: str | Path = "data/games", *,
                    mode: Mode = "auto", export_dir: str | Path | None = None, live_figures: bool = True) -> Workbench:
    """Make the workbench on a game file, a game, or the default game (Dynasty, else the benchmark game).

    Parameters
    ----------
    path_or_game
        A game file (a bare file name is looked up in ``data_dir``), a :class:`~mathkit.model.game.Game`,
        or ``None`` for the default game.
    data_dir
        The games folder the picker lists and "save as" writes to; a relative folder that does not
        exist from the working directory is taken from the project root.
    mode
        Where the slow figures are computed (:mod:`mathkit.workbench.scheduler`): ``"auto"`` (a worker
        process), ``"process"``, ``"thread"`` or ``"sync"``.
    export_dir
        Where exports go (default ``exports/`` in the project).
    live_figures
        ``False`` for a report rendered to HTML: the figures are a plain ``go.Figure``
        (``wb.figures.widget``) for the notebook to show, and no widget needs a kernel or a CDN.

    Examples
    --------
    >>> wb = build_workbench("benchmark_5x3.toml", mode="sync")
    >>> wb.rtp_label.value, wb.sd_label.value
    ('RTP 96.288391%', 'σ 3.6235 × bet [exact]')
    """
    folder = resolve_data_dir(data_dir)
    if isinstance(path_or_game, Game):
        game, path = path_or_game, None
    else:
        path = default_game_path(folder) if path_or_game is None else Path(path_or_game)
        if not path.exists() and not path.is_absolute() and (folder / path).exists():
            path = folder / path
        game = load_game(path)
    return Workbench(game, path, folder, mode=mode, export_dir=None if export_dir is None else Path(export_dir),
                     live_figures=live_figures)

