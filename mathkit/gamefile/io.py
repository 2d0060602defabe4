"""Game files: TOML <-> :class:`~mathkit.model.game.Game`, validated, saved atomically, in the file's own style.

Saving over a file (or "save as" from one) edits the file's text rather than
rewriting it (:func:`dumps_like`): comments, key order, blank lines, inline
arrays and strip strings stay, and a one-symbol change is a one-line diff.

Every problem is reported as a :class:`~mathkit.errors.GameError` naming the
file, the field path (``reels.base.strips[2][17]``; array indices from 0), what
is wrong and what would be right (fields are parsed in :mod:`mathkit.gamefile.parse`).
The format is documented in ``docs/game-format.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import os
import re
import stat
import tempfile
import threading
import time
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import tomli_w

from ..errors import GameError
from ..features import features_to_dict
from ..model.bounds import MAX_FILE_BYTES
from ..model.game import Game, Mode, PayEntry, Targets
from ..model.tuning import tuning_to_dict
from ..model.validate import validate_game
from .parse import game_from_dict
from .tomltext import comment_start, parse_toml

__all__ = ["StyleLostWarning", "dump_game", "dumps_like", "game_from_dict", "game_to_dict", "load_game", "loads_game",
           "save_game", "write_atomic"]


class StyleLostWarning(UserWarning):
    """A save could not keep the file's own layout and wrote the game in the canonical form instead."""


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
        msg_0 = "no such file"
        raise GameError(msg_0, field="file", path=p, fix="check the path") from None
    except IsADirectoryError:
        msg_0 = "is a folder, not a game file"
        raise GameError(msg_0, field="file", path=p, fix="give the path of a .toml file") from None
    except OSError as exc:
        msg_0 = f"cannot read the file: {exc.strerror or exc}"
        raise GameError(msg_0, field="file", path=p) from None
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


def _reels_out(game: Game, entry: PayEntry) -> list[Any]:
    """A reel-ordered entry's ``reels``: per reel its symbol, the mixed group it was named by, or a list."""
    groups = {e.name: e.symbols for e in game.line_pays if not e.ordered}
    labels = entry.reel_labels or ("",) * len(entry.reels)
    return [label if groups.get(label, (label,)) == members else list(members)
            for label, members in zip(labels, entry.reels, strict=True)]


def _targets_out(game: Game) -> dict[str, Any]:
    t = game.targets
    out: dict[str, Any] = {}
    if t.rtp is not None:
        out["rtp"] = _frac_out(t.rtp)
    if t.rtp_tolerance != Targets().rtp_tolerance:
        out["rtp_tolerance"] = _frac_out(t.rtp_tolerance)
    for key, band in (("sd", t.sd), ("hit_frequency", t.hit_frequency)):
        if band is not None:
            out[key] = list(band)
    return out


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
            if s.counts_as_scatter:
                spec["counts_as_scatter"] = list(s.counts_as_scatter)
        elif s.multiplier != 1:
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
    out["paytable"] = {e.name: _pays_out(e) | ({"flat": True} if e.flat else {})
                       | ({"multiplied": True} if e.multiplied else {}) for e in game.line_pays
                       if e.symbols == (e.name,) and not e.ordered}
    mixed = {e.name: {"symbols": list(e.symbols), "pays": _pays_out(e)} | ({"flat": True} if e.flat else {})
             for e in game.line_pays if e.symbols != (e.name,) and not e.ordered}
    if mixed:
        out["mixed"] = mixed
    ordered = {e.name: {"reels": _reels_out(game, e), "pays": _pays_out(e)} | ({"flat": True} if e.flat else {})
               for e in game.line_pays if e.ordered}
    if ordered:
        out["ordered"] = ordered
    if game.scatter_pays:
        out["scatter_pays"] = {sp.symbol: {str(k): v for k, v in sp.pays} for sp in game.scatter_pays}
    if game.scatter_unit != "total_bet":
        out["scatter_unit"] = game.scatter_unit
    if game.scatter_bet is not None:
        out["scatter_bet"] = game.scatter_bet
    if game.multiplier_rule != "stack":
        out["multiplier_rule"] = game.multiplier_rule
    if game.line_symbol != "best":
        out["line_symbol"] = game.line_symbol
    if game.all_wild_ways != "pay":
        out["all_wild_ways"] = game.all_wild_ways
    if game.void_ways_at_wilds:
        out["void_ways_at_wilds"] = game.void_ways_at_wilds
    out.update(features_to_dict(game.features))
    if not game.targets.empty:
        out["targets"] = _targets_out(game)
    if game.readings:
        out["readings"] = [{"rule": r.rule, "reading": r.reading, "reason": r.reason} for r in game.readings]
    if game.tuning is not None:
        out["tuning"] = tuning_to_dict(game.tuning)
    if game.modes:
        out["modes"] = {m.name: _mode_out(m) for m in game.modes}
    return out


def _mode_out(mode: Mode) -> dict[str, Any]:
    """A bet mode's table (inverse of the parser's ``[modes.NAME]``)."""
    out: dict[str, Any] = {"cost": _frac_out(mode.cost)}
    if mode.declared_rtp is not None:
        out["declared_rtp"] = _frac_out(mode.declared_rtp)
    if mode.reels:
        out["reels"] = dict(mode.reels)
    if mode.buy is not None:
        out["buy"] = {"feature": mode.buy.feature, "counts": {str(k): w for k, w in mode.buy.counts}}
    if mode.cap is not None:
        out["cap"] = _frac_out(mode.cap)
    return out


def dump_game(game: Game) -> str:
    """The TOML text of a game."""
    return tomli_w.dumps(game_to_dict(game))


_PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.(\d+))?)(\s?)%")


def restate_rtp(text: str, old: Fraction | None, new: Fraction | None) -> str:
    """``text`` with every percentage in its comments that states the ``old`` declared RTP restated as ``new``.

    A comment's figure is the old RTP when it equals it rounded to the figure's own decimals (``95.00%``,
    ``95%``); it is rewritten with as many decimals.  Values, and other figures, are left as they are.

    Examples
    --------
    >>> from fractions import Fraction
    >>> text = "# tuned to 95.00% ± 0.005 pp; wild 12.5%" + chr(10) + 'name = "95.00%"'
    >>> restate_rtp(text, Fraction(95, 100), Fraction(94, 100)).splitlines()
    ['# tuned to 94.00% ± 0.005 pp; wild 12.5%', 'name = "95.00%"']
    """
    if old is None or new is None or old == new:
        return text

    def swap(m: re.Match[str]) -> str:
        digits = len(m.group(2) or "")
        if Fraction(m.group(1)) != round(old * 100, digits):
            return m.group(0)
        return f"{float(new * 100):.{digits}f}{m.group(3)}%"

    lines = text.splitlines(keepends=True)
    for k, line in enumerate(lines):
        at = comment_start(line)
        if at is not None:
            lines[k] = line[:at] + _PERCENT.sub(swap, line[at:])
    return "".join(lines)


def dumps_like(game: Game, template: str) -> str:
    """The TOML text of ``game`` written as an edit of ``template`` (the text of a game file).

    Only the values that differ between the template's game and ``game`` change
    (:func:`mathkit.gamefile.tomledit.update_text`); the result is read back and must be
    ``game`` exactly.  A template that is not a valid game has no layout to keep:
    the canonical :func:`dump_game` text is returned.  When the edit would not read
    back as ``game``, the canonical text is returned too and a
    :class:`StyleLostWarning` says so.

    Examples
    --------
    >>> import dataclasses
    >>> from fractions import Fraction
    >>> text = open("data/games/classic_3reel.toml", encoding="utf-8").read()
    >>> g = dataclasses.replace(loads_game(text), declared_rtp=Fraction("0.87"))
    >>> new = dumps_like(g, text)
    >>> [line for line in new.splitlines() if line not in text.splitlines()]
    ['declared_rtp = 0.87']
    >>> len(new.splitlines()) == len(text.splitlines())
    True
    """
    try:
        before = loads_game(template)
    except GameError:
        return dump_game(game)
    from .tomledit import update_text  # tomlkit: only a save needs it

    text = update_text(template, game_to_dict(before), game_to_dict(game))
    text = restate_rtp(text, before.declared_rtp, game.declared_rtp)
    try:
        if loads_game(text) == game:
            return text
        why = "the edited text did not read back as the game"
    except GameError as exc:
        why = f"the edited text did not read back ({exc})"
    warnings.warn(f"{game.name}: saved in the canonical layout, comments and layout not kept: {why}",
                  StyleLostWarning, stacklevel=2)
    return dump_game(game)


def save_game(game: Game, path: str | Path, *, overwrite: bool = False, template: str | Path | None = None) -> Path:
    """Write a game atomically, as an edit of the file it replaces (or of ``template``) when there is one.

    The file is never half-written: a crash leaves either the old file or the
    new one.  An existing file is replaced only with ``overwrite=True``; its
    comments, key order and layout are kept and only the values that changed
    are rewritten (:func:`dumps_like`).  A new file is written as an edit of
    ``template`` (the game file it was made from, e.g. "save as") when given,
    else in the canonical layout.

    Raises
    ------
    FileExistsError
        If ``path`` exists and ``overwrite`` is false.
    """
    target = Path(path)
    exists = target.exists()
    if exists and not overwrite:
        msg = f"{target} exists; pass overwrite=True to replace it"
        raise FileExistsError(msg)
    validate_game(game)
    source = target if exists else (Path(template) if template is not None else None)
    text = None
    if source is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = source.read_text(encoding="utf-8")
    return write_atomic(target, dump_game(game) if text is None else dumps_like(game, text))


_UMASK_LOCK = threading.Lock()
#: a temporary file of :func:`write_atomic`: ``.NAME.PID.RANDOM.tmp``
_TMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
#: temporaries without a process id (older versions) count as orphaned after this long (seconds)
_ORPHAN_AGE = 600.0


def _umask() -> int:
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_orphans(target: Path) -> None:
    """Delete temporaries of earlier saves of ``target`` whose process is gone (a killed save)."""
    old_style = re.compile(rf"^\.{re.escape(target.name)}\.[A-Za-z0-9_]{{8}}\.tmp$")
    with contextlib.suppress(OSError):
        for p in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
            m = _TMP.match(p.name)
            if m is not None and m.group("name") == target.name:
                orphan = int(m.group("pid")) != os.getpid() and not _alive(int(m.group("pid")))
            else:
                orphan = bool(old_style.match(p.name)) and time.time() - p.stat().st_mtime > _ORPHAN_AGE
            if orphan:
                p.unlink(missing_ok=True)


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A crash leaves either the old file or the new one, never half of one.  The
    file keeps the mode of the file it replaces; a new file gets the mode the
    umask gives (``0o666 & ~umask``).  Temporaries left by a save that was
    killed half-way (their process is gone) are removed.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.txt").write_text("old") and (folder / "a.txt").chmod(0o640)
    >>> oct(write_atomic(folder / "a.txt", "new").stat().st_mode & 0o777), (folder / "a.txt").read_text()
    ('0o640', 'new')
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(target)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
