"""The command lines of the fuzz suite (``tests/fuzz.py``): every command, with good and bad flags, on a mutated file.

:func:`cli_argv` picks, deterministically from a case's random stream, one of
``par``, ``simulate``, ``session``, ``tune``, ``check``, ``export`` and ``render``
with a few of its flags, each value either one that usually works or one that must
be refused (zero, negative, huge, ``nan``, words, an unknown reel set, an output
with a wrong suffix...).  :func:`run_cli` runs it in-process, with ``--debug`` so
that the exception behind an exit status 2 can be read, and says what is wrong:

* an exit status other than 0, 1 or 2, a traceback of an exception mathkit did not
  raise itself (a ``ValueError`` or ``TypeError`` from deep inside, which
  :func:`mathkit.cli.exits.run` would otherwise print as a bare one-line message),
  or ``internal error``;
* an exit status 2 without an ``error:`` or ``usage:`` message;
* ``--json`` output that is not strict JSON (``NaN`` or ``Infinity`` in it).

``simulate`` exits 1 when a sampled figure falls outside an exact one's interval;
that is reported apart (``simulate disagrees``) to be read: at 99% a few are chance.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path

from fuzz_checks import strict_loads

__all__ = ["HEAVY", "cli_argv", "run_cli"]

HEAVY = frozenset({"warlords", "prince_of_riches"})
"""Bases whose PAR sheet takes tens of CPU seconds: their cases load, round-trip and simulate briefly instead."""

_BAD_INT = ["0", "-1", "x", "1.5", "nan", "1e400", str(2**70)]
_OUTPUT_SUFFIXES = [".json", ".csv", ".txt", ".xlsx", ".bin", ""]
# besides mathkit's own errors, an exit status 2 may come from an output path the system refused
_SYSTEM = re.compile(r"^(SystemExit|FileExistsError|FileNotFoundError|IsADirectoryError|NotADirectoryError|"
                     r"PermissionError|OSError)\b")


def _allowed(last: str) -> bool:
    """Whether the exception line ``last`` (``module.Class: message``) is a MathkitError or a refused output path."""
    import importlib

    from mathkit.errors import MathkitError

    if _SYSTEM.match(last):
        return True
    name = last.split(":", 1)[0]
    module, _, cls = name.rpartition(".")
    if not module.startswith("mathkit"):
        return False
    try:
        found = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError):
        return False
    return isinstance(found, type) and issubclass(found, MathkitError)


def _pick(rng: random.Random, good: list[str], bad: list[str] | None = None, p_bad: float = 0.25) -> str:
    return rng.choice(bad if bad and rng.random() < p_bad else good)


def _common(rng: random.Random, argv: list[str]) -> None:
    """``--reels``, ``--lines`` and ``--coins``, each now and then, good or bad."""
    if rng.random() < 0.2:
        argv += ["--reels", _pick(rng, ["base"], ["free", "nope", "", "BASE"], 0.6)]
    if rng.random() < 0.2:
        argv += ["--lines", _pick(rng, ["1", "3", "5", "10", "20"], [*_BAD_INT, "999"])]
    if rng.random() < 0.2:
        argv += ["--coins", _pick(rng, ["1", "2", "3"], [*_BAD_INT, "7"])]


def cli_argv(rng: random.Random, path: Path, folder: Path, *, heavy: bool = False) -> list[str]:
    """One command line on the game file ``path``; outputs go to ``folder``."""
    out = folder / f"{path.stem}_out"
    if heavy:  # a brief, unchecked simulation: the blocks' simulator, not the PAR sheet
        argv = ["simulate", str(path), "--no-exact", "--no-progress", "--json",
                "--spins", _pick(rng, ["1000", "3000"], ["0", "-1", "x", "1e400"], 0.1),
                "--seed", _pick(rng, ["1", "7"], ["-1", "x"], 0.1)]
        return argv
    command = rng.choices(["par", "simulate", "session", "tune", "check", "export", "render"],
                          weights=[4, 4, 2, 1, 2, 2, 0.3])[0]
    argv = [command, str(path)]
    if command == "par":
        if rng.random() < 0.5:
            argv.append("--json")
        if rng.random() < 0.3:
            argv += ["--out", str(out) + rng.choice(_OUTPUT_SUFFIXES)]
        if rng.random() < 0.15:
            argv.append("--sessions")
    elif command == "simulate":
        argv += ["--no-progress", "--spins", _pick(rng, ["2000", "20000", "1e4"], [*_BAD_INT, "1e12"], 0.2),
                 "--seed", _pick(rng, ["1", "2", "3"], ["-1", "x", str(2**70)], 0.1)]
        if rng.random() < 0.5:
            argv.append("--json")
        if rng.random() < 0.2:
            argv += ["--gamble", _pick(rng, ["colour"], ["x", "0", ""], 0.5)]
        if rng.random() < 0.1:
            argv += ["--workers", rng.choice(["0", "-1", "x"])]  # a cluster is too dear here: bad values only
        if rng.random() < 0.2:
            argv.append("--no-exact")
    elif command == "session":
        argv += ["--spins", _pick(rng, ["50", "200"], ["0", "-1", "x", "1e400", str(10**9)], 0.2)]
        if rng.random() < 0.5:
            argv += ["--bankroll", _pick(rng, ["100", "50x", "20x"], ["0", "-5", "x", "1e400", "nanx", "0x"], 0.4)]
        if rng.random() < 0.2:
            argv += ["--stop-win", _pick(rng, ["500x", "1000"], ["-1", "x", "0x", "infx"], 0.5)]
        if rng.random() < 0.2:
            argv += ["--big-win", _pick(rng, ["10,100", "50"], ["x", "0", "-5", "10,,", "nan"], 0.5)]
        if rng.random() < 0.15:
            argv += ["--ceiling", _pick(rng, ["1000", "10000"], ["0", "-1", "x"], 0.5)]
        if rng.random() < 0.1:
            argv += ["--gamble", _pick(rng, ["colour"], ["x"], 0.5)]
        if rng.random() < 0.15:
            argv += ["--table", _pick(rng, ["20,50"], ["x", "0", "-1,5"], 0.5)]
        if rng.random() < 0.1:
            argv += ["--simulate", _pick(rng, ["200"], ["0", "-1", "x"], 0.5), "--seed", "1"]
        if rng.random() < 0.5:
            argv.append("--json")
    elif command == "tune":
        argv += ["--target-rtp", _pick(rng, ["0.9", "92%", "0.85..0.95"], ["1.5", "-1", "x", "nan", "95%..90%"], 0.3),
                 "--out", str(out) + _pick(rng, [".toml"], [".json", ""], 0.2), "--time-limit", "3"]
        if rng.random() < 0.3:
            argv += ["--vary", rng.choice(["strips", "pays", "both"])]
        if rng.random() < 0.15:
            argv += ["--sd", _pick(rng, ["5"], ["-1", "x", "nan"], 0.5)]
        if rng.random() < 0.1:
            argv += ["--fixed", _pick(rng, ["A"], ["ZZ", ""], 0.5)]
        if rng.random() < 0.1:
            argv += ["--max-run", _pick(rng, ["A=2"], ["A", "A=x", "ZZ=2", "A=-1"], 0.6)]
        if rng.random() < 0.1:
            argv += ["--variants", _pick(rng, ["0.9,0.92"], ["x", "0.9,,", "2,3"], 0.5)]
        if rng.random() < 0.1:
            argv.append("--sensitivity")
        if rng.random() < 0.3:
            argv.append("--json")
    elif command == "check":
        if rng.random() < 0.6:
            argv += ["--profile", _pick(rng, ["anz", "gli11", "ukgc"], ["bogus"], 0.2)]
        if rng.random() < 0.5:
            argv.append("--json")
    elif command == "export":
        what = rng.choice(["xlsx", "server", "toml", "diff"])
        if what == "xlsx":
            argv += ["--xlsx", str(out) + _pick(rng, [".xlsx"], [".csv", ""], 0.2)]
        elif what == "server":
            argv += ["--server-json", str(out) + _pick(rng, [".json"], [".toml", ""], 0.2)]
        elif what == "toml":
            argv += ["--toml", str(out) + _pick(rng, [".toml"], [".json"], 0.2)]
        else:
            argv += ["--diff", _pick(rng, [str(path)], [str(folder / "missing.toml")], 0.2)]
            if rng.random() < 0.5:
                argv.append("--json")
        if rng.random() < 0.2:
            argv += ["--profile", rng.choice(["anz", "gli11", "ukgc"])]
        if rng.random() < 0.2:
            argv.append("--force")
    else:  # render: executing the notebooks is too dear here; the refusals only
        argv = ["render", "--only", rng.choice(["nope", "", "../x"]), "--timeout", rng.choice(["-1", "0", "x", "5"]),
                str(folder / "no_such_sources"), str(folder / "html")]
        return argv
    if command != "check" or rng.random() < 0.5:
        _common(rng, argv)
    return argv


def _last_exception(err: str) -> str:
    """The type of the last exception in the tracebacks ``--debug`` printed ('' if none)."""
    last = ""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            for after in lines[i + 1:]:
                if after and not after.startswith((" ", "Traceback", "During handling", "The above", "^", "~")):
                    last = after
                    break
    return last


def run_cli(argv: list[str]) -> tuple[str | None, str]:
    """Run ``mathkit ARGV --debug`` in-process: (a problem or ``None``, an outcome label)."""
    from mathkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([*argv, "--debug"])
        except SystemExit as exc:  # argparse
            status = exc.code if isinstance(exc.code, int) else 2
    text = err.getvalue()
    label = f"{argv[0]} exit {status}"
    if status not in (0, 1, 2) or "internal error" in text:
        return f"{' '.join(argv[:1] + argv[2:])}: status {status}: {text[-600:]}", label
    last = _last_exception(text)
    if last and not _allowed(last):
        return f"{' '.join(argv[:1] + argv[2:])}: unlocated {last[:300]}", label
    if status == 2 and "error:" not in text and "usage:" not in text:
        return f"{' '.join(argv[:1] + argv[2:])}: status 2 without a message: {text[-300:]}", label
    if status in (0, 1) and "--json" in argv and out.getvalue():
        try:
            strict_loads(out.getvalue())  # strict: NaN and Infinity are not JSON
        except ValueError as exc:
            return f"{' '.join(argv[:1] + argv[2:])}: --json printed no strict JSON ({exc}): {out.getvalue()[:200]}", label
    if status == 1 and argv[0] == "simulate":
        label = "simulate disagrees"
    return None, label
