"""Reel-ordered combinations: pay entries whose required symbol differs by reel.

A classic game pays "red 7, white 7, blue 7 in that order", "any red, any white,
any blue in reel order" or "1-bar, 2-bar, 3-bar": the entry (``[ordered.NAME]``
in the file, :attr:`mathkit.model.game.PayEntry.reels`) gives, per reel from reel 1,
the symbol or the mixed group that counts on that reel.  Everything else is
the line rule of :mod:`mathkit.spin.evaluate`: the run is the number of leading
reels whose symbol counts on *its* reel, the largest declared count not above
the run is paid, only the highest win of a line is paid (ties to the entry
listed first), and a wild counts on a reel when it substitutes for one of that
reel's required symbols (as it joins a mixed group), multiplying the win by its
multiplier.

The compiled rule needs no new kernel: the line rule reads *line ids*, one per
(reel, symbol) pair, so ``match[e, id]`` can say "counts on this reel".  A game
without reel-ordered entries keeps the plain symbol ids (:func:`line_ids` is
``None``), so nothing changes for it.  Scatter and bonus symbols keep their
plain ids: they never count towards a line.

Examples
--------
>>> from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
>>> g = Game("g", (Symbol("R"), Symbol("B"), Symbol("S", "scatter")),
...          (ReelSet("base", (("R", "B", "S"), ("R", "B", "S")), (1, 1)),),
...          (PayEntry("RB", ("R", "B"), ((2, (5,)),), reels=(("R",), ("B",))),), Bet(1), paylines=((0, 0),))
>>> line_ids(g).tolist()   # reel 2's R and B read as ids 3 and 4; the scatter keeps id 2
[[0, 1, 2], [3, 4, 2]]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..errors import GameError
from .game import Game, PayEntry, Symbol

__all__ = ["check_ordered", "line_ids", "ordered_ids", "where"]

IntArray = npt.NDArray[np.int64]


def line_ids(game: Game) -> IntArray | None:
    """``ids[r, s]``: the id the line rule reads for symbol ``s`` on reel ``r``; ``None`` if no entry is reel-ordered.

    Symbol ``s`` of a line (regular or wild) on reel ``r`` reads as ``r · n_symbols + s``;
    scatter and bonus symbols read as ``s`` on every reel.
    """
    return ordered_ids(game.symbols, game.line_pays, game.n_reels)


def ordered_ids(symbols: tuple[Symbol, ...], entries: tuple[PayEntry, ...], n_reels: int) -> IntArray | None:
    """:func:`line_ids` from the parts of a game it reads."""
    if not any(e.ordered for e in entries):
        return None
    n = len(symbols)
    plain = np.array([s.kind == "scatter" or s.is_bonus for s in symbols], dtype=np.bool_)
    base = np.arange(n, dtype=np.int64)
    return np.stack([np.where(plain, base, r * n + base) for r in range(n_reels)])


def where(entry: PayEntry) -> str:
    """The field path of an entry in the game file: ``paytable.A``, ``mixed.ANY_BAR`` or ``ordered.RWB``."""
    if entry.ordered:
        return f"ordered.{entry.name}"
    return f"paytable.{entry.name}" if entry.symbols == (entry.name,) else f"mixed.{entry.name}"


def check_ordered(game: Game, entry: PayEntry) -> None:
    """Raise a :class:`~mathkit.errors.GameError` if reel-ordered ``entry`` does not fit ``game``.

    The per-reel list has one requirement per reel; each names regular symbols only (a wild
    joins by substitution, as in a mixed group); the game pays lines.
    """
    at = f"ordered.{entry.name}.reels"
    names = [s.name for s in game.symbols]
    regular = [s.name for s in game.symbols if s.kind == "regular"]
    if game.pay_mode == "ways":
        msg = "reel-ordered combinations are not supported in ways games"
        raise GameError(msg, field=f"ordered.{entry.name}", fix='use pay_mode = "lines" or a paytable entry')
    if len(entry.reels) != game.n_reels:
        msg = f"{len(entry.reels)} reel requirements for {game.n_reels} reels"
        raise GameError(msg, field=at, fix=f"give one symbol or group per reel, {game.n_reels} in all, from reel 1")
    for r, members in enumerate(entry.reels):
        field = f"{at}[{r}]"
        if not members:
            msg_0 = "no symbol required on this reel"
            raise GameError(msg_0, field=field, fix="name a symbol or a mixed group")
        if len(set(members)) != len(members):
            msg_0 = "a symbol is listed twice"
            raise GameError(msg_0, field=field, fix="list each symbol once")
        for sym in members:
            if sym not in names:
                msg = f"unknown symbol {sym!r}"
                raise GameError(msg, field=field, fix=f"use a regular symbol or a mixed group: {', '.join(regular)}")
            kind = game.symbol(sym).kind
            if kind != "regular":
                msg = f"{sym!r} is a {kind} symbol"
                fix = ("wilds count by substitution; name the regular symbols" if kind == "wild"
                       else f"only regular symbols pay on lines: {', '.join(regular)}")
                raise GameError(msg, field=field, fix=fix)
