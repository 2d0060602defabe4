"""How a command ends: its outputs checked before computing, JSON printed strictly, errors as exit statuses.

:func:`check_output` refuses an output that cannot be written *before* anything
is computed; :func:`print_json` prints strict JSON (:mod:`mathkit.report.strict`:
no ``NaN`` or ``Infinity``); and :func:`run` is the one place a command's errors
become a message and an exit status: 2 for a bad game, argument or refused
computation, 130 when interrupted, 3 for an error mathkit did not expect (a bug:
``--debug`` shows its traceback, as it does for every other error).  A reader
that stops reading (``mathkit par GAME --json | head -1``) ends the command
quietly with status 0, as it ends ``cat`` or ``grep``.
"""

from __future__ import annotations

import os
import select
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import GameError, MathkitError
from ..report.strict import dumps

__all__ = ["DEBUG_ENV", "check_output", "print_json", "run", "strip_debug"]

DEBUG_ENV = "MATHKIT_DEBUG"


def check_output(path: Path, *, what: str, force: bool = True, suffixes: Sequence[str] = ()) -> None:
    """Refuse an output ``path`` that cannot be written, before anything is computed.

    ``what`` names the option (``--out``); ``suffixes`` lists the formats understood.

    Examples
    --------
    >>> check_output(Path("/proc/par.json"), what="--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: --out: cannot write /proc/par.json: ...
    """
    if suffixes and path.suffix.lower() not in suffixes:
        msg = f"unknown output format {path.suffix or '(none)'!r} for {path}"
        raise GameError(msg, field=what, fix=f"use {', '.join(suffixes)}")
    if path.is_dir():
        msg = f"{path} is a folder"
        raise GameError(msg, field=what, fix="give a file name")
    if path.exists() and not force:
        msg = f"{path} exists"
        raise GameError(msg, field=what, fix="pass --force to replace it, or choose another name")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        msg = f"cannot write {path}: {folder} is not a folder"
        raise GameError(msg, field=what, fix="choose a path in a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        msg = f"cannot write {path}: permission denied"
        raise GameError(msg, field=what, fix="choose a folder you can write to")
    if not _can_create(folder):
        msg = f"cannot write {path}: {folder} does not take new files"
        raise GameError(msg, field=what, fix="choose a folder you can write to")


def _can_create(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (what a save's temporary file needs)."""
    probe = folder / f".mathkit-write-test-{os.getpid()}"
    try:
        probe.touch(exist_ok=False)
    except OSError:
        return False
    probe.unlink(missing_ok=True)
    return True


def print_json(data: Any, *, ensure_ascii: bool = True, default: Callable[[Any], Any] | None = None) -> None:
    """Print ``data`` as indented strict JSON (a non-finite float is ``null`` with its reason beside it)."""
    print(dumps(data, indent=2, ensure_ascii=ensure_ascii, default=default))


def strip_debug(argv: Sequence[str]) -> tuple[list[str], bool]:
    """``argv`` without ``--debug``, and whether it was given (or ``MATHKIT_DEBUG`` is set)."""
    args = [a for a in argv if a != "--debug"]
    return args, len(args) != len(argv) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (``poll`` reports an error on its end)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # captured in memory: no pipe to break
        return False
    if not hasattr(select, "poll"):  # no poll (Windows): a broken pipe met while writing is the output's
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _quiet() -> int:
    """End after the reader of standard output left: what is still buffered goes nowhere; status 0."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush at exit then writes nowhere
    os.close(devnull)
    return 0


def run(command: Callable[[], int], *, debug: bool = False) -> int:
    """Run ``command`` and turn every error into a one-line message and an exit status.

    2: a bad game, argument or output, or a computation refused; 130: interrupted;
    3: an error mathkit did not expect (with ``debug``, every error shows its traceback);
    0 quietly when standard output's reader has gone (a broken pipe).
    """
    try:
        status = command()
        sys.stdout.flush()  # a broken pipe met here, not at the interpreter's exit
        return status
    except MathkitError as exc:
        if debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (FileExistsError, ValueError) as exc:
        if debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError as exc:
        if _stdout_closed():
            return _quiet()
        return _os_error(exc, debug)
    except OSError as exc:
        return _os_error(exc, debug)
    except MemoryError:
        if debug:
            traceback.print_exc()
        print("error: out of memory; lower MATHKIT_MAX_MEMORY so large computations are refused before they start, "
              "or estimate the figures by simulation (mathkit simulate)", file=sys.stderr)
        return 2
    except Exception as exc:
        if debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc}\nThis is a bug in mathkit: run the command again with "
              "--debug for the traceback and report it.", file=sys.stderr)
        return 3


def _os_error(exc: OSError, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    where = f"{exc.filename}: " if exc.filename else ""
    print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
    return 2
