"""The slow figures of an edit, computed away from the widgets: σ, the ∂RTP table, the PAR sheet.

:func:`compute` is the work itself, in three steps each handed over as soon as
it is done: ``"sd"`` (σ from the round's exact moments: about 0.03 s CPU for
Dynasty), ``"par"`` (the PAR sheet with the whole win distribution: σ, hit
frequency, the plots; about 0.1 s CPU; built as ``mathkit par`` builds it,
:func:`mathkit.workbench.readings.sheet`, so a game whose distribution is partly
sampled — Warlords — gets its mixed figures with their intervals, 25–40 s CPU) and
``"sensitivity"`` (∂RTP per symbol per reel, exact where the RTP is, a table on its
own tab: last, so it does not delay the sheet).

A step that fails sends :class:`Unavailable` in its place (the step, the error) and
the next step still runs: one figure that cannot be computed leaves the others.

Why a process.  The kernel that drives the widgets also has to read the next
edit; a computation in a thread of that kernel holds the interpreter lock (the
compiled kernels and the exact arithmetic do not release it) for up to seconds
at a time, so an edit made while σ was being computed waited for it — in
JupyterLab 1–3 s before the kernel even reported busy, and progress lines
arrived in one burst at the end.  :class:`ProcessRunner` runs :func:`compute`
in a worker process forked from a warm ``forkserver`` (mathkit imported and its
compiled kernels loaded once, see :mod:`mathkit.workbench.warm`); a newer edit
kills a computation still running and starts the next at once.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, cast

from ..errors import ModelError
from ..laws.provenance import Method
from ..model.edits import play_reels
from ..model.game import Game
from ..report.par import RoundSheet, sheet_level
from ..report.sensitivity import symbol_sensitivity
from ..round import analyse
from .readings import missing, sheet
from .readings import sd as sheet_sd

__all__ = ["STEPS", "ProcessRunner", "Sd", "Unavailable", "compute"]

#: the steps of :func:`compute`, in order
STEPS = ("sd", "par", "sensitivity")
Deliver = Callable[[int, str, Any, float], None]


@dataclass(frozen=True)
class Sd:
    """σ per total bet of a whole play, from the round's first two moments."""

    value: float
    method: Method


@dataclass(frozen=True)
class Unavailable:
    """A step's figures that could not be computed: the step and the error (the widgets say why in words)."""

    step: str
    error: Exception


def sd_figure(game: Game, reels: str) -> Sd | RoundSheet:
    """σ per total bet of a play from reel set ``reels`` (the round at the moments level).

    A round whose σ needs the distribution (a cap the moments cannot settle) gets its PAR sheet
    instead, which has σ: the caller then has the sheet too.
    """
    a = analyse(game, reels, level="moments")
    out = a.outcome
    if out.m2 is None:  # a transform (a cap) needs the distribution: the PAR sheet has σ then
        return sheet(game, reels)
    var = out.m2 - out.mean * out.mean
    return Sd(math.sqrt(max(float(var), 0.0)) / a.total_bet, out.method)


def compute(game: Game, reels: str, send: Callable[[str, Any, float], None]) -> None:
    """The slow figures of ``game`` edited on reel set ``reels``; ``send(step, value, seconds)`` after each step.

    A step that fails sends :class:`Unavailable` as its value, and the next step runs.
    """
    play = play_reels(game, reels)
    t0 = time.perf_counter()
    par: RoundSheet | None = None
    refused: Exception | None = None  # the sheet, tried for σ, failed: the sheet step says so without a second try
    one_analysis = sheet_level(game) == "moments"
    # a round whose blocks give its moments, not its distribution (Warlords): the sheet analyses the round to its
    # moments anyway (σ from them) and mixes in the sampled parts, so one analysis gives σ and the sheet, where
    # σ first and then the sheet cost two (Warlords: every figure in about half the time)
    sd: Sd | Unavailable
    try:
        got = sheet(game, play) if one_analysis else sd_figure(game, play)
        if isinstance(got, RoundSheet):
            par = got
            s = sheet_sd(got)
            why = ModelError(missing(got).get("sd", "σ is not available for this game"))
            sd = Unavailable("sd", why) if s is None else Sd(s.value, cast(Method, s.method))
        else:
            sd = got
    except Exception as exc:  # a feature model that cannot be solved: say which figure, keep the others
        sd = Unavailable("sd", exc)
        refused = exc if one_analysis else None
    send("sd", sd, time.perf_counter() - t0)
    try:
        if refused is not None:
            raise refused
        send("par", par if par is not None else sheet(game, play), time.perf_counter() - t0)
    except Exception as exc:
        send("par", Unavailable("par", exc), time.perf_counter() - t0)
    try:
        send("sensitivity", symbol_sensitivity(game, reels), time.perf_counter() - t0)
    except Exception as exc:
        send("sensitivity", Unavailable("sensitivity", exc), time.perf_counter() - t0)


def _serve(conn: Connection) -> None:
    """The worker's loop: a job ``(gen, game, reels)`` in, ``(gen, step, value, seconds)`` out, then ``done``."""
    while True:
        try:
            gen, game, reels = conn.recv()
        except (EOFError, OSError):
            return

        def send(step: str, value: Any, seconds: float, gen: int = gen) -> None:
            try:
                data = pickle.dumps((gen, step, value, seconds))
            except (pickle.PicklingError, AttributeError, TypeError) as exc:  # a result the kernel cannot receive
                msg = f"the worker cannot send the {step} result to the kernel: {exc}"
                data = pickle.dumps((gen, step, Unavailable(step, RuntimeError(msg)), seconds))
            conn.send_bytes(data)

        compute(game, reels, send)
        conn.send_bytes(pickle.dumps((gen, "done", None, 0.0)))


class ProcessRunner:
    """Runs :func:`compute` for one edit at a time in a worker process; ``deliver(gen, step, value, seconds)`` gets the results.

    ``deliver`` is called from a listener thread of this process.  Submitting a
    job while another runs kills the worker and starts a fresh one (forked from the
    warm forkserver: milliseconds), so the newest edit never waits for an old one.
    The forkserver warms up in the background (seconds: it imports mathkit and loads
    the compiled kernels); until it is :attr:`ready`, :meth:`submit` declines and the
    caller computes the job itself.
    """

    def __init__(self, deliver: Deliver) -> None:
        self._deliver = deliver
        self._ctx = mp.get_context("forkserver")
        self._ctx.set_forkserver_preload(["mathkit.workbench.warm"])
        self._lock = threading.Lock()
        self._busy = False
        self._proc: Any = None
        self._conn: Connection | None = None
        self.ready = threading.Event()
        threading.Thread(target=self._boot, daemon=True, name="mathkit-workbench-boot").start()

    def _boot(self) -> None:
        with self._lock:
            self._start()  # returns once the forkserver has imported mathkit.workbench.warm
        self.ready.set()

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_serve, args=(child,), daemon=True, name="mathkit-workbench-worker")
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        threading.Thread(target=self._listen, args=(parent,), daemon=True, name="mathkit-workbench-listener").start()

    def submit(self, gen: int, game: Game, reels: str) -> bool:
        """Compute the figures of edit ``gen`` (a computation still running for an older edit is dropped).

        Returns ``False`` (and does nothing) while the worker is still warming up.
        """
        if not self.ready.is_set():
            return False
        with self._lock:
            if self._busy or self._proc is None or not self._proc.is_alive():
                self._stop()
                self._start()
            self._busy = True
            assert self._conn is not None
            self._conn.send((gen, game, reels))
        return True

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    def close(self) -> None:
        """Stop the worker."""
        with self._lock:
            self._stop()

    def _listen(self, conn: Connection) -> None:
        while True:
            try:
                gen, step, value, seconds = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError, TypeError):
                return
            if step == "done":
                with self._lock:
                    if conn is self._conn:
                        self._busy = False
                continue
            self._deliver(gen, step, value, seconds)
