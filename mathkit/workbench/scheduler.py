"""When the workbench computes the PAR sheet after an edit, and who shows what.

The cheap figures of an edit are known at once; the PAR sheet (σ, distribution)
takes from 0.1 s (the benchmark game) to seconds (a free-spin chain).  The
:class:`Scheduler` runs it

* ``"sync"``: in the caller's thread; the cheap figures wait and are drawn with it;
* ``"thread"``: in a background thread; the cheap figures are drawn at once;
* ``"auto"``: in a background thread that the edit waits for up to :data:`SYNC_LIMIT`
  seconds: a fast PAR sheet is drawn together with the cheap figures (one browser
  redraw), a slow one frees the interface once the cheap figures are up.

Every edit gets a generation number; results of an edit that a newer one has
replaced are dropped, and one PAR sheet is computed at a time.  A progress line
appears when the computation runs longer than :data:`PROGRESS_AFTER` seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

from ..game import Game
from ..par import ParSheet
from .model import Quick, full_figures

__all__ = ["PROGRESS_AFTER", "SYNC_LIMIT", "Mode", "Scheduler"]

Mode = Literal["auto", "sync", "thread"]
#: in "auto" mode an edit waits this long (seconds) for the PAR sheet before freeing the interface
SYNC_LIMIT = 0.25
#: a progress line appears when the PAR sheet takes longer than this (seconds)
PROGRESS_AFTER = 0.5


class Scheduler:
    """Runs the PAR sheet of each edit and hands the results to the workbench's callbacks.

    Parameters
    ----------
    mode
        ``"auto"``, ``"sync"`` or ``"thread"`` (see the module docstring).
    show_cheap
        ``show_cheap(quick)``: draw the cheap figures of the current edit.
    show_par
        ``show_par(gen, par, seconds, quick)``: show the PAR sheet of edit ``gen``, with the cheap
        figures ``quick`` when they have not been drawn yet.
    show_failure
        ``show_failure(exc, quick)``: the PAR sheet could not be computed.
    show_progress
        ``show_progress(seconds)``: the computation has run this long.

    Callbacks run holding :attr:`lock`, only for the current edit.
    """

    def __init__(self, mode: Mode, *, show_cheap: Callable[[Quick], None],
                 show_par: Callable[[int, ParSheet, float, Quick | None], None],
                 show_failure: Callable[[Exception, Quick | None], None],
                 show_progress: Callable[[float], None]) -> None:
        self.mode: Mode = mode
        self.lock = threading.RLock()
        self.generation = 0
        self._show_cheap, self._show_par = show_cheap, show_par
        self._show_failure, self._show_progress = show_failure, show_progress
        self._compute_lock = threading.Lock()
        self._pending: tuple[int, Quick] | None = None
        self._thread: threading.Thread | None = None

    def new_edit(self) -> int:
        """A generation number for a new edit (call holding :attr:`lock`)."""
        self.generation += 1
        return self.generation

    def run(self, gen: int, game: Game, reels: str, quick: Quick, *, inline: bool = False) -> None:
        """Get the PAR sheet of edit ``gen`` shown (``inline``: here and now, whatever the mode)."""
        if inline or self.mode == "sync":
            self._compute(gen, game, reels, quick)
            return
        with self.lock:
            self._pending = (gen, quick)
            if self.mode == "thread":
                self._cheap_if_pending(gen)
        self._thread = threading.Thread(target=self._compute, args=(gen, game, reels), daemon=True,
                                        name="mathkit-workbench-par")
        self._thread.start()
        if self.mode == "auto":
            self._thread.join(SYNC_LIMIT)
            self._cheap_if_pending(gen)

    def wait(self, timeout: float = 60.0) -> None:
        """Wait for a computation running in the background."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _take_pending(self, gen: int) -> Quick | None:
        if self._pending is None or self._pending[0] != gen:
            return None
        quick = self._pending[1]
        self._pending = None
        return quick

    def _cheap_if_pending(self, gen: int) -> None:
        with self.lock:
            quick = self._take_pending(gen)
            if quick is not None and gen == self.generation:
                self._show_cheap(quick)

    def _compute(self, gen: int, game: Game, reels: str, quick: Quick | None = None) -> None:
        done = threading.Event()
        with self._compute_lock:
            if gen != self.generation:
                return
            t0 = time.perf_counter()
            ticker = threading.Thread(target=self._tick, args=(done, t0, gen), daemon=True)
            ticker.start()
            failure: Exception | None = None
            try:
                par = full_figures(game, reels)
            except Exception as exc:  # a feature model that cannot be solved: say so, keep the UI alive
                failure = exc
            finally:
                done.set()
                ticker.join()  # its last progress line must not land after the result
            seconds = time.perf_counter() - t0
        with self.lock:
            if gen != self.generation:
                return
            quick = quick or self._take_pending(gen)
            if failure is not None:
                self._show_failure(failure, quick)
            else:
                self._show_par(gen, par, seconds, quick)

    def _tick(self, done: threading.Event, t0: float, gen: int) -> None:
        while not done.wait(0.25):
            elapsed = time.perf_counter() - t0
            if elapsed >= PROGRESS_AFTER and gen == self.generation:
                self._show_progress(elapsed)
