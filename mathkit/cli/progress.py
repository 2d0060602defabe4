"""A progress line on the terminal for a command that runs longer than a second.

:func:`ticking` wraps a command: when standard error is a terminal (and the command's output is not
JSON), after :data:`AFTER` seconds it shows ``⋯ mathkit par: exact analysis · 12 s`` on standard error,
rewritten in place, and erases it when the command ends or first writes to standard output.  Piped,
redirected or with ``--json`` nothing is written.  :func:`phase` names what is being done (a command
calls it between its stages).

Examples
--------
>>> import io
>>> with ticking("par", stream=io.StringIO()) as t:  # not a terminal: never shown
...     phase("exact analysis")
>>> t.shown
False
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["AFTER", "Ticker", "phase", "ticking"]

AFTER = 1.0
"""Seconds before the line appears (``MATHKIT_PROGRESS_AFTER`` overrides it)."""
_EVERY = 0.25
_CURRENT: list[Ticker] = []


class Ticker:
    """The progress line of one command (see :func:`ticking`)."""

    def __init__(self, command: str, stream: IO[str], after: float) -> None:
        self.command, self.stream, self.after = command, stream, after
        self.what = ""
        self.shown = False
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="mathkit-progress")

    def _loop(self) -> None:
        if self._stop.wait(self.after):
            return
        while not self._stop.is_set():
            self.draw()
            self._stop.wait(_EVERY)

    def draw(self) -> None:
        """Write the line now (once :attr:`after` seconds have passed and until the ticker stops)."""
        with self._lock:
            if self._stop.is_set() or time.monotonic() - self._t0 < self.after:
                return
            what = f": {self.what}" if self.what else ""
            self.stream.write(f"\r\x1b[K⋯ mathkit {self.command}{what} · {time.monotonic() - self._t0:.0f} s")
            self.stream.flush()
            self.shown = True

    def stop(self) -> None:
        """Erase the line (if shown) and stop."""
        with self._lock:
            if self._stop.is_set():
                return
            self._stop.set()
            if self.shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()


class _StopOnWrite:
    """Standard output that stops the ticker before its first write (the line and the output never mix)."""

    def __init__(self, out: IO[str], ticker: Ticker) -> None:
        self._out, self._ticker = out, ticker

    def write(self, text: str) -> int:
        self._ticker.stop()
        return self._out.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


def _after() -> float:
    try:
        return max(0.0, float(os.environ.get("MATHKIT_PROGRESS_AFTER", AFTER)))
    except ValueError:
        return AFTER


@contextlib.contextmanager
def ticking(command: str, *, stream: IO[str] | None = None, enabled: bool = True) -> Iterator[Ticker]:
    """Show the progress line of ``command`` while the block runs, if ``stream`` (standard error) is a terminal."""
    out = sys.stderr if stream is None else stream
    ticker = Ticker(command, out, _after())
    live = enabled and bool(getattr(out, "isatty", lambda: False)())
    if not live:
        yield ticker
        return
    stdout = sys.stdout
    sys.stdout = _StopOnWrite(stdout, ticker)  # type: ignore[assignment]
    _CURRENT.append(ticker)
    ticker._thread.start()
    try:
        yield ticker
    finally:
        ticker.stop()
        _CURRENT.remove(ticker)
        sys.stdout = stdout


def phase(what: str) -> None:
    """Name the stage the running command is in (shown on its progress line, if any)."""
    for t in _CURRENT:
        t.what = what
        t.draw()  # the new stage shows at once, not at the next tick
