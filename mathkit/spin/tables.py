"""A game compiled to integer arrays, the form the numeric kernels read.

Symbols become ids (their order in the game), every pay entry a row of a
``match`` matrix (which symbol ids count towards it, wilds included) and a
row of a ``pay`` matrix indexed by the run length.  Built once per
(game, reel set, lines, coins) and shared by the exact engine and the
simulator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..model.bounds import check_bet
from ..model.game import Game, ReelSet
from ..model.ordered import ordered_ids

__all__ = ["WILD_BIT", "PayTables", "ReelArrays", "pay_tables", "reel_arrays"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
WILD_BIT = 1 << 40
"""Added to (or, for a negated factor, taken from) ``PayTables.mult`` of a wild in a game whose first non-wild
symbol fixes the line (``line_symbol = "first"``): a run of such symbols alone pays only a wild's own entry."""


@dataclass(frozen=True, eq=False)
class PayTables:
    """Pay rules as arrays.

    Attributes
    ----------
    names
        Symbol names; a symbol's id is its index.
    entries
        Pay entry names, in paytable order (ties between entries go to the first).
    match
        ``match[e, s]``: symbol ``s`` counts towards entry ``e`` (itself, a group member, or a
        wild substituting for one).  ``s`` is a *line id* (:attr:`reel_ids`): in a game with
        reel-ordered entries one per (reel, symbol), so an entry may need a different symbol
        on each reel (:mod:`mathkit.model.ordered`).
    pay
        ``pay[e, n]``: credits for a run of ``n`` at the chosen coins (0 where nothing is paid).
    key
        ``key[e, n]``: the paytable count that a run of ``n`` is paid as (0: none).
    own
        ``own[e]``: bit 1 — the entry is paid flat: a wild's own combination (unless declared
        ``multiplied``), or an entry declared ``flat`` (no multiplier of the symbols in its run
        applies); bit 2 — it is a wild's own combination.
    mult
        ``mult[s]``: the factor symbol ``s`` applies to a run it is part of: a wild's
        multiplier, a multiplier symbol's (1 for other symbols).  Negated (``-m``) in a game
        whose factors do not stack (``multiplier_rule = "once"``): the run's largest applies once.
        A wild's is marked by :data:`~mathkit.spin.evaluate.WILD_BIT` (``+``, or ``−`` when negated) in
        a game whose first non-wild symbol fixes the line (``line_symbol = "first"``).
    scatter_ids, scatter_pay, scatter_key
        Every scatter symbol (paying or not, e.g. a feature trigger); ``scatter_pay[k, c]``: the
        multiple of the total bet for ``c`` of them; ``scatter_key[k, c]``: the paytable count that ``c`` of them are paid as (0: none).
    lines
        ``lines[l, r]``: window row of line ``l`` on reel ``r`` (the lines played).
    total_bet
        Credits staked per spin.
    scatter_credits
        Credits one unit of ``scatter_pay`` is worth: the total bet, or the line bet when the
        game pays scatters per line bet (:meth:`mathkit.model.game.Game.scatter_credits`).
    ways
        Whether the game pays ways rather than lines.
    reel_ids
        ``reel_ids[r, s]``: the line id symbol ``s`` reads as on reel ``r`` (``s`` itself unless the
        game has reel-ordered entries); the window's symbols go through it before the line rule.
    wild
        ``wild[s]``: line id ``s`` is a wild.
    ways_rule
        Ways games: ``(void, at)``: ``void`` 1 when a way made only of wilds pays nothing
        (``all_wild_ways = "void"``), ``at`` the number of wilds on the window from which no way pays
        (0: never).
    """

    names: tuple[str, ...]
    entries: tuple[str, ...]
    match: BoolArray
    pay: IntArray
    key: IntArray
    own: IntArray
    mult: IntArray
    scatter_ids: IntArray
    scatter_pay: IntArray
    scatter_key: IntArray
    lines: IntArray
    total_bet: int
    ways: bool
    scatter_credits: int
    reel_ids: IntArray | None = None
    wild: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    ways_rule: IntArray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))

    @property
    def n_symbols(self) -> int:
        return len(self.names)

    @property
    def n_ids(self) -> int:
        """Number of line ids, the width of :attr:`match` (``n_symbols`` unless reel-ordered entries need more)."""
        return int(self.match.shape[1])

    def read_on(self, reel: int, ids: IntArray) -> IntArray:
        """The line ids the symbols ``ids`` read as on ``reel`` (0-based)."""
        return ids if self.reel_ids is None else self.reel_ids[reel][ids]

    @property
    def n_reels(self) -> int:
        return int(self.pay.shape[1]) - 1

    @cached_property
    def scatter_of(self) -> IntArray:
        """``scatter_of[s]``: index into ``scatter_ids`` of symbol ``s``, or -1."""
        out = np.full(self.n_ids, -1, dtype=np.int64)
        for k, s in enumerate(self.scatter_ids):
            out[s] = k
        return out


@dataclass(frozen=True, eq=False)
class ReelArrays:
    """A reel set as arrays: ``strips[r]`` symbol ids, ``weights[r]`` stop weights, ``rows``."""

    name: str
    strips: tuple[IntArray, ...]
    weights: tuple[IntArray, ...]
    rows: IntArray
    weighted: bool

    @property
    def n_reels(self) -> int:
        return len(self.strips)

    def columns(self, reel: int) -> IntArray:
        """``columns(r)[i, k]``: symbol id in row ``k`` when reel ``r`` stops at ``i``."""
        strip = self.strips[reel]
        n = len(strip)
        idx = (np.arange(n)[:, None] + np.arange(int(self.rows[reel]))[None, :]) % n
        return np.asarray(strip[idx], dtype=np.int64)


def pay_tables(game: Game, *, lines: int | None = None, coins: int | None = None) -> PayTables:
    """Compile the pay rules of ``game`` for ``lines`` lines at ``coins`` coins per line.

    The result depends only on the pay rules (symbols, paytable, lines, bet,
    window size), not on the strips, and is cached on them: a reel edit reuses it.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> t = pay_tables(load_game("data/games/classic_3reel.toml"))
    >>> t.match.shape[1] == len(t.names)
    True
    """
    n_lines, c = check_bet(game, lines, coins)  # the bounds contract: lines within the paylines, coins an option
    window = max(sum(rs.rows) for rs in game.reel_sets)
    rules = (game.symbols, game.line_pays, game.scatter_pays, game.paylines, game.bet, game.pay_mode, game.n_reels,
             game.evaluation_rules)
    return _pay_tables(rules, window, n_lines, c, game.scatter_credits(n_lines, c))


@lru_cache(maxsize=64)
def _pay_tables(rules: tuple[Any, ...], window: int, n_lines: int, c: int, scatter_credits: int) -> PayTables:
    symbols, line_pays, scatter_pays, paylines, bet, pay_mode, n_reels, (_, _, rule, all_wild, void_at, line_rule) = rules
    reel_ids = ordered_ids(symbols, line_pays, n_reels)
    names = tuple(s.name for s in symbols)
    sid = {n: i for i, n in enumerate(names)}
    kinds = {s.name: s for s in symbols}
    coin_opts = bet.coins
    coin_index = coin_opts.index(c) if c in coin_opts else None
    n_entries = len(line_pays)
    lid = reel_ids if reel_ids is not None else np.tile(np.arange(len(names), dtype=np.int64), (n_reels, 1))
    match = np.zeros((n_entries, int(lid.max(initial=0)) + 1), dtype=np.bool_)
    pay = np.zeros((n_entries, n_reels + 1), dtype=np.int64)
    key = np.zeros((n_entries, n_reels + 1), dtype=np.int64)
    own = np.zeros(n_entries, dtype=np.int64)
    wilds = [s for s in symbols if s.is_wild]
    for e, entry in enumerate(line_pays):
        wild_own = len(entry.symbols) == 1 and kinds[entry.symbols[0]].is_wild
        own[e] = int((wild_own and not entry.multiplied) or entry.flat) | (2 if wild_own else 0)
        for r in range(n_reels):  # what counts on reel r: the reel's members, and the wilds substituting for one
            members = set(entry.members(r))
            for s in members:
                match[e, lid[r, sid[s]]] = True
            for w in wilds if not wild_own else ():
                if members & set(w.substitutes):
                    match[e, lid[r, sid[w.name]]] = True
        for n in range(1, n_reels + 1):
            pay[e, n] = entry.pay(n, c, coin_index)
            key[e, n] = max((k for k in entry.counts if k <= n), default=0)
    wild = np.zeros(match.shape[1], dtype=np.bool_)
    for w in wilds:
        wild[lid[:, sid[w.name]]] = True
    mult = np.ones(match.shape[1], dtype=np.int64)
    once = rule == "once"
    first = line_rule == "first"  # factors that do not stack are stored negated: the line rule takes their largest
    for sym in symbols:  # wilds and multiplier symbols (1 elsewhere), on every reel
        if sym.is_wild or sym.is_multiplier:
            mult[lid[:, sid[sym.name]]] = -sym.multiplier if once and sym.multiplier > 1 else sym.multiplier
    if first:  # the first non-wild symbol fixes the line: the wilds are marked for the line rule
        for w in wilds:
            ids = lid[:, sid[w.name]]
            mult[ids] = np.where(mult[ids] < 0, mult[ids] - WILD_BIT, mult[ids] + WILD_BIT)
    # every scatter symbol is counted (a trigger may have no pays of its own), in symbol order
    scatter_names = [s.name for s in symbols if s.is_scatter]
    pays_of = {sp.symbol: sp for sp in scatter_pays}
    scatter_ids = np.array([sid[n] for n in scatter_names], dtype=np.int64)
    declared = max((k for sp in scatter_pays for k, _ in sp.pays), default=0)
    max_count = max(window, declared, 1)
    scatter_pay = np.zeros((len(scatter_names), max_count + 1), dtype=np.int64)
    scatter_key = np.zeros((len(scatter_names), max_count + 1), dtype=np.int64)
    for k, name in enumerate(scatter_names):
        sp = pays_of.get(name)
        if sp is None:
            continue
        for cnt in range(max_count + 1):
            scatter_pay[k, cnt] = sp.pay(cnt)
            scatter_key[k, cnt] = max((c for c, _ in sp.pays if c <= cnt), default=0)
    if pay_mode == "lines":
        line_rows = np.array(paylines[:n_lines], dtype=np.int64).reshape(n_lines, n_reels)
    else:
        line_rows = np.zeros((0, n_reels), dtype=np.int64)
    return PayTables(
        names=names,
        entries=tuple(e.name for e in line_pays),
        match=match,
        pay=pay,
        key=key,
        own=own,
        mult=mult,
        scatter_ids=scatter_ids,
        scatter_pay=scatter_pay,
        scatter_key=scatter_key,
        lines=line_rows,
        total_bet=bet.total_bet(n_lines, c),
        ways=pay_mode == "ways",
        scatter_credits=scatter_credits,
        reel_ids=reel_ids,
        wild=wild,
        ways_rule=np.array([int(all_wild == "void"), void_at], dtype=np.int64),
    )


def reel_arrays(game: Game, reels: str | ReelSet | None = None) -> ReelArrays:
    """The reel set ``reels`` (a name, a set, or the default) as arrays."""
    rs = reels if isinstance(reels, ReelSet) else game.reel_set(reels)
    sid = {n: i for i, n in enumerate(game.symbol_names)}
    strips = tuple(np.array([sid[s] for s in strip], dtype=np.int64) for strip in rs.strips)
    weights = tuple(np.array(rs.stop_weights(r), dtype=np.int64) for r in range(rs.n_reels))
    return ReelArrays(rs.name, strips, weights, np.array(rs.rows, dtype=np.int64), rs.weights is not None)
