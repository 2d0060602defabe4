"""When the workbench computes the slow figures of an edit (σ, ∂RTP, the PAR sheet), and who shows them.

The cheap figures of an edit (the exact RTP and its breakdown) are known at
once, on the caller's thread.  The slow ones (:func:`~mathkit.workbench.worker.compute`,
from 0.1 s for the benchmark game to seconds for a free-spin chain) run

* ``"sync"``: in the caller's thread (scripts, tests, rendering a report);
* ``"thread"``: in a background thread of this process;
* ``"process"``: in a worker process (:class:`~mathkit.workbench.worker.ProcessRunner`), so the kernel
  stays free for the next edit; a newer edit cancels an older computation (until the worker has
  warmed up, seconds after the workbench is built, in a thread as ``"thread"``);
* ``"auto"``: ``"process"``, and the edit waits up to :data:`SYNC_LIMIT` seconds
  for the PAR sheet, so a fast game shows every figure in one browser redraw.

Every edit gets a generation number; results of an edit a newer one has
replaced are dropped.  While a computation runs, ``show_progress(seconds, step)``
is called every :data:`TICK` seconds from :data:`PROGRESS_AFTER` seconds on:
with the work in another process it ticks live.

Where results are shown.  Widgets are updated on the thread of the kernel's
event loop only (the thread that built the scheduler, when an asyncio loop runs
there: an ipykernel, Voilà, nbclient): results and progress computed elsewhere
are queued and handed to that loop (``call_soon_threadsafe``).  Widget updates
from another thread raced the kernel's own handling of browser messages: traitlets
holds a widget's notifications per instance, not per thread, so plotly's
``_py2js_update = msg; _py2js_update = None`` made on the listener thread while
the kernel applied a message from the figure's view was folded into one
notification of ``None`` and the plot never changed.  While an edit waits for
its figures (``"auto"``) or :meth:`Scheduler.wait` waits on that thread, the
queue is emptied there.  With no loop (scripts, tests) results are shown on
the thread that has them, holding :attr:`Scheduler.lock`.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from ..model.game import Game
from .worker import STEPS, ProcessRunner, compute

__all__ = ["PROGRESS_AFTER", "SYNC_LIMIT", "TICK", "Mode", "Scheduler"]

Mode = Literal["auto", "sync", "thread", "process"]
#: in "auto" mode an edit waits this long (seconds) for the PAR sheet before freeing the interface
SYNC_LIMIT = 0.25
#: a progress line appears when the slow figures take longer than this (seconds)
PROGRESS_AFTER = 0.5
#: seconds between progress lines
TICK = 0.25


class Scheduler:
    """Runs the slow figures of each edit and hands them to ``show(gen, step, value, seconds)``.

    ``step`` is one of :data:`~mathkit.workbench.worker.STEPS` or ``"error"``.
    Callbacks run holding :attr:`lock`, only for the current edit.
    """

    def __init__(self, mode: Mode, *, show: Callable[[int, str, Any, float], None],
                 show_progress: Callable[[float, str], None]) -> None:
        self.mode: Mode = mode
        self.lock = threading.RLock()
        self.generation = 0
        self._show, self._show_progress = show, show_progress
        self._done = threading.Event()
        self._done.set()
        self._step = STEPS[0]
        self._t0 = time.perf_counter()
        self._thread: threading.Thread | None = None
        self._loop = _running_loop()
        self._home = threading.get_ident()
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._runner = ProcessRunner(self._deliver) if mode in ("auto", "process") else None
        self._ticker = threading.Thread(target=self._tick, daemon=True, name="mathkit-workbench-progress")
        self._ticker.start()

    def new_edit(self) -> int:
        """A generation number for a new edit (call holding :attr:`lock`)."""
        self.generation += 1
        return self.generation

    @property
    def busy(self) -> bool:
        """Whether the slow figures of the current edit are still being computed."""
        return not self._done.is_set()

    def run(self, gen: int, game: Game, reels: str, *, inline: bool = False) -> None:
        """Get the slow figures of edit ``gen`` shown (``inline``: here and now, whatever the mode)."""
        with self.lock:
            self._done.clear()
            self._step, self._t0 = STEPS[0], time.perf_counter()
        if inline or self.mode == "sync":
            compute(game, reels, lambda step, value, s: self._deliver(gen, step, value, s))
            return
        if self._runner is None or not self._runner.submit(gen, game, reels):  # no worker (yet): a thread here
            self._thread = threading.Thread(target=compute, args=(game, reels,
                                                                  lambda step, value, s: self._deliver(gen, step, value, s)),
                                            daemon=True, name="mathkit-workbench-figures")
            self._thread.start()
        if self.mode == "auto":
            self.wait(SYNC_LIMIT)

    @property
    def _at_home(self) -> bool:
        """Whether widgets may be updated from the calling thread right now."""
        return self._loop is None or threading.get_ident() == self._home

    def _post(self, item: tuple[Any, ...]) -> None:
        """Show ``item`` (a result or a progress tick) on the loop's thread: now if this is it, else queued."""
        if self._at_home:
            self._apply(item)
            return
        self._queue.put(item)
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # a closed loop (the kernel shutting down): nothing to show on
            self._loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            self._apply(item)

    def _apply(self, item: tuple[Any, ...]) -> None:
        kind, gen, *rest = item
        with self.lock:
            if gen != self.generation:
                return
            if kind == "progress":
                if not self._done.is_set():
                    self._show_progress(*rest)
                return
            step, value, seconds = rest
            self._show(gen, step, value, seconds)
            if step in (STEPS[-1], "error"):
                self._done.set()
            else:
                self._step = STEPS[STEPS.index(step) + 1]

    def _deliver(self, gen: int, step: str, value: Any, seconds: float) -> None:
        self._post(("result", gen, step, value, seconds))

    def wait(self, timeout: float = 120.0) -> None:
        """Wait until the slow figures of the current edit are shown (or failed).

        On the loop's thread the results that arrive meanwhile are shown here (the loop is blocked).
        """
        if self._at_home and self._loop is not None:
            deadline = time.perf_counter() + timeout
            while not self._done.is_set():
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return
                try:
                    item = self._queue.get(timeout=min(remaining, TICK))
                except queue.Empty:
                    continue
                self._apply(item)
            self._drain()  # progress ticks queued before the sheet: dropped once it is shown
            return
        self._done.wait(timeout)

    def close(self) -> None:
        """Stop the worker process, if any."""
        if self._runner is not None:
            self._runner.close()

    def _tick(self) -> None:
        while True:
            time.sleep(TICK)
            with self.lock:
                elapsed, gen, step = time.perf_counter() - self._t0, self.generation, self._step
                due = not self._done.is_set() and elapsed >= PROGRESS_AFTER
            if due:
                self._post(("progress", gen, elapsed, step))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The asyncio loop running on this thread (a kernel's, while it executes a cell), if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
