"""Game files: TOML <-> :class:`~mathkit.game.Game`, validated, saved atomically.

Every problem is reported as a :class:`~mathkit.errors.GameError` naming the
file, the field path (``reels.base.strips[2][17]``; array indices from 0), what
is wrong and what would be right (fields are parsed in :mod:`mathkit.parse`).
The format is documented in ``docs/game-format.md``.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import tomli_w

from .bounds import MAX_FILE_BYTES
from .errors import GameError
from .features import features_to_dict
from .game import Game, PayEntry
from .parse import game_from_dict
from .tomltext import parse_toml
from .validate import validate_game

__all__ = ["dump_game", "game_from_dict", "game_to_dict", "load_game", "loads_game", "save_game", "write_atomic"]


def loads_game(text: str, path: str | Path | None = None) -> Game:
    """Parse a game from TOML text.

    Examples
    --------
    >>> g = loads_game('''
    ... name = "tiny"
    ... paylines = [[0, 0, 0]]
    ... [symbols.A]
    ... [symbols.B]
    ... [reels.base]
    ... rows = 1
    ... strips = ["A B", "A B", "A B"]
    ... [paytable]
    ... A = { 3 = 10 }
    ... ''')
    >>> g.reel_set().cycle
    8
    """
    data = parse_toml(text, path)
    try:
        game = game_from_dict(data)
    except GameError as exc:
        if path is not None:
            exc.locate(path=path)
        raise
    except RecursionError:
        msg = "the game's data is nested too deeply"
        raise GameError(msg, field="file", path=path, fix="a game file nests arrays and tables a few levels at most") from None
    return game if path is None else dataclasses.replace(game, source=str(path))


def load_game(path: str | Path) -> Game:
    """Load and validate a game file.

    Raises
    ------
    GameError
        Naming the file, the field path, what is wrong and what would be right.
    """
    p = Path(path)
    try:
        if p.is_file() and p.stat().st_size > MAX_FILE_BYTES:
            msg = f"{p.stat().st_size:,} bytes, more than the {MAX_FILE_BYTES:,} a game file may have"
            raise GameError(msg, field="file", path=p, fix="a game is a few kilobytes to a few megabytes of TOML")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise GameError("no such file", field="file", path=p, fix="check the path") from None
    except IsADirectoryError:
        raise GameError("is a folder, not a game file", field="file", path=p, fix="give the path of a .toml file") from None
    except OSError as exc:
        raise GameError(f"cannot read the file: {exc.strerror or exc}", field="file", path=p) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        msg = f"not UTF-8 text: byte {raw[exc.start]:#04x} at line {line} cannot be read"
        raise GameError(msg, field=f"line {line}", path=p, fix="save the file as UTF-8") from None
    return loads_game(text, p)


def _frac_out(x: Fraction) -> str | int | float:
    if x.denominator == 1:
        return int(x)
    as_float = float(x)
    if Fraction(str(as_float)) == x:
        return as_float
    return f"{x.numerator}/{x.denominator}"


def _pays_out(entry: PayEntry) -> dict[str, Any]:
    """``{count: pay}``: a number paid per coin, or a list with one value per coin option."""
    return {str(k): (list(v) if entry.is_per_option(k) else v[0]) for k, v in entry.pays}


def game_to_dict(game: Game) -> dict[str, Any]:
    """The TOML-ready mapping of a game (inverse of :func:`game_from_dict`)."""
    out: dict[str, Any] = {"name": game.name}
    if game.description:
        out["description"] = game.description
    out["pay_mode"] = game.pay_mode
    if game.declared_rtp is not None:
        out["declared_rtp"] = _frac_out(game.declared_rtp)
    out["default_reels"] = game.default_reels
    bet: dict[str, Any] = {"lines": game.bet.lines, "coins": list(game.bet.coins),
                           "coin_value": _frac_out(game.bet.coin_value)}
    if game.bet.line_options:
        bet["line_options"] = list(game.bet.line_options)
    if game.bet.total is not None:
        bet["total"] = game.bet.total
    out["bet"] = bet
    regular = tuple(s.name for s in game.symbols if s.kind == "regular")
    symbols: dict[str, Any] = {}
    for s in game.symbols:
        spec: dict[str, Any] = {"kind": s.kind}
        if s.is_wild:
            spec["substitutes"] = "all" if s.substitutes == regular else list(s.substitutes)
            if s.reels:
                spec["reels"] = list(s.reels)
            spec["pays"] = s.pays
            spec["multiplier"] = s.multiplier
        if s.value is not None:
            spec["value"] = _frac_out(s.value)
        if s.mark:
            spec["mark"] = s.mark
        symbols[s.name] = spec
    out["symbols"] = symbols
    reels: dict[str, Any] = {}
    for rs in game.reel_sets:
        spec = {"rows": list(rs.rows), "strips": [" ".join(strip) for strip in rs.strips]}
        if rs.weights is not None:
            spec["weights"] = [list(w) for w in rs.weights]
        if rs.declared_rtp is not None:
            spec["declared_rtp"] = _frac_out(rs.declared_rtp)
        reels[rs.name] = spec
    out["reels"] = reels
    if game.paylines:
        out["paylines"] = [list(line) for line in game.paylines]
    out["paytable"] = {e.name: _pays_out(e) for e in game.line_pays
                       if e.symbols == (e.name,)}
    mixed = {e.name: {"symbols": list(e.symbols), "pays": _pays_out(e)}
             for e in game.line_pays if e.symbols != (e.name,)}
    if mixed:
        out["mixed"] = mixed
    if game.scatter_pays:
        out["scatter_pays"] = {sp.symbol: {str(k): v for k, v in sp.pays} for sp in game.scatter_pays}
    out.update(features_to_dict(game.features))
    if game.readings:
        out["readings"] = [{"rule": r.rule, "reading": r.reading, "reason": r.reason} for r in game.readings]
    return out


def dump_game(game: Game) -> str:
    """The TOML text of a game."""
    return tomli_w.dumps(game_to_dict(game))


def save_game(game: Game, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write a game atomically: a temporary file in the same folder, then a rename.

    The file is never half-written: a crash leaves either the old file or the
    new one.  An existing file is replaced only with ``overwrite=True``.

    Raises
    ------
    FileExistsError
        If ``path`` exists and ``overwrite`` is false.
    """
    target = Path(path)
    if target.exists() and not overwrite:
        msg = f"{target} exists; pass overwrite=True to replace it"
        raise FileExistsError(msg)
    validate_game(game)
    return write_atomic(target, dump_game(game))


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A crash leaves either the old file or the new one, never half of one.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
