"""Every Game → Game edit: a new game from an old one, the old one untouched (games are immutable).

The bet (:func:`at_bet`), a reel set (:func:`with_reel_set`, :func:`with_stops`, :func:`add_one_stop`), a pay
(:func:`bump_pay`, :func:`with_line_pay`, :func:`with_scatter_pay`), the targets (:func:`with_targets`), the game
that counts paying lines (:func:`line_hits_game`); and the
questions an edit asks of a game (:func:`play_reels`, :func:`allowed_on`, :func:`pay_cells`, :func:`pay_values`).
The tuner, the sensitivities, the checks and the workbench all edit through here.  An edit that needs a
feature block's own reading of its table is :func:`mathkit.workbench.model.with_feature` (it sits above the blocks).

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> g = load_game("data/games/classic_3reel.toml")
>>> [c.label() for c in pay_cells(g)][:2]          # the file: WILD = { 3 = [800, 1600, 5000] }, coins 1, 2, 3
['3 × WILD', '3 × SEVEN_RED']
>>> bump_pay(g, pay_cells(g)[0], 1).line_pays[0].pays   # one credit per coin more
((3, (801, 1602, 5003)),)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import GameError, ModelError
from .game import Game, PayEntry, ReelSet, ScatterPay
from .validate import validate_game

__all__ = ["PayCell", "PayKind", "add_one_stop", "allowed_on", "at_bet", "bump_pay", "insert_position",
           "line_hits_game", "pay_cells", "pay_values", "play_reels", "stops_of", "stretch_middle", "with_line_pay", "with_reel_set",
           "with_scatter_pay", "with_stops", "with_targets"]


def _validated(game: Game) -> Game:
    validate_game(game)
    return game


def play_reels(game: Game, varied: str | None) -> str:
    """The base reel set a play starts from when reel set ``varied`` is edited.

    Editing the free-spin set changes the game played from its default set;
    editing any other set (an RTP variant such as ``rtp93``) changes the game
    played from that set.
    """
    name = game.default_reels if varied is None else varied
    if name != game.default_reels and any(name in f.reel_sets() for f in game.features):
        return game.default_reels
    return name


def at_bet(game: Game, lines: int | None = None, coins: int | None = None) -> Game:
    """The same game whose default bet is ``lines`` lines at ``coins`` coins per line.

    Per-coin pay lists are reordered with the coin options, so every exact
    routine that works at the default bet works at any bet option.
    """
    bet = game.bet
    new_lines = bet.lines if lines is None else lines
    c = bet.coins[0] if coins is None else coins
    if c not in bet.coins:
        msg = f"{c} coins is not a coin option ({', '.join(map(str, bet.coins))})"
        raise ModelError(msg)
    order = [bet.coins.index(c)] + [i for i in range(len(bet.coins)) if bet.coins[i] != c]
    pays = tuple(
        dataclasses.replace(e, pays=tuple((k, tuple(v[i] for i in order) if e.is_per_option(k) else v) for k, v in e.pays))
        for e in game.line_pays
    )
    new_bet = dataclasses.replace(bet, lines=new_lines, coins=tuple(bet.coins[i] for i in order))
    return dataclasses.replace(game, bet=new_bet, line_pays=pays)


def insert_position(strip: tuple[str, ...], scatters: frozenset[str] | set[str]) -> int:
    """Where add-one-stop inserts a stop: the middle of the longest scatter-free run (end if none).

    Examples
    --------
    >>> insert_position(("A", "S", "B", "C", "D", "S"), {"S"})
    3
    >>> insert_position(("A", "B"), set())
    2
    """
    n = len(strip)
    mid = stretch_middle(n, [i for i, s in enumerate(strip) if s in scatters])
    return n if mid is None else mid or n


def stretch_middle(n: int, marks: Sequence[int]) -> int | None:
    """The middle stop of the longest circular stretch of an ``n``-stop strip without a marked stop.

    ``None`` when no stop is marked.

    Examples
    --------
    >>> stretch_middle(6, [1, 5]), stretch_middle(4, [])
    (3, None)
    """
    ms = sorted(marks)
    if not ms:
        return None
    best_gap, best_at = -1, 0
    for k, a in enumerate(ms):
        b = ms[(k + 1) % len(ms)]
        gap = (b - a - 1) % n if len(ms) > 1 else n - 1
        if gap > best_gap:
            best_gap, best_at = gap, a
    return (best_at + 1 + best_gap // 2) % n


def with_reel_set(game: Game, rs: ReelSet) -> Game:
    """``game`` with reel set ``rs.name`` replaced by ``rs``."""
    return dataclasses.replace(game, reel_sets=tuple(rs if x.name == rs.name else x for x in game.reel_sets))


def add_one_stop(game: Game, reels: str | None, reel: int, symbol: str) -> Game:
    """The game with one more ``symbol`` on ``reel`` (0-based) of reel set ``reels`` (see module notes)."""
    rs = game.reel_set(reels)
    strip = rs.strips[reel]
    scatters = frozenset(s.name for s in game.scatters)
    strips = list(rs.strips)
    if rs.weights is not None and symbol in strip:
        i = strip.index(symbol)
        weights = list(rs.weights)
        w = list(weights[reel])
        w[i] += 1
        weights[reel] = tuple(w)
        return with_reel_set(game, dataclasses.replace(rs, weights=tuple(weights)))
    pos = insert_position(strip, scatters)
    strips[reel] = (*strip[:pos], symbol, *strip[pos:])
    new_weights = None
    if rs.weights is not None:
        wl = list(rs.weights)
        wl[reel] = (*rs.weights[reel][:pos], 1, *rs.weights[reel][pos:])
        new_weights = tuple(wl)
    return with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips), weights=new_weights))


def allowed_on(game: Game, symbol: str, reel: int) -> bool:
    """Whether ``symbol`` may appear on ``reel`` (0-based): wilds only on their declared reels."""
    s = game.symbol(symbol)
    return not (s.is_wild and s.reels and (reel + 1) not in s.reels)


PayKind = Literal["lines", "scatter"]


@dataclass(frozen=True)
class PayCell:
    """One integer pay of the paytable: ``count`` × ``entry`` (a line/ways entry or a scatter)."""

    kind: PayKind
    entry: str
    count: int

    def label(self) -> str:
        return f"{self.count} × {self.entry}" + (" (scatter)" if self.kind == "scatter" else "")


def pay_cells(game: Game) -> tuple[PayCell, ...]:
    """Every declared pay, in paytable order."""
    cells = [PayCell("lines", e.name, k) for e in game.line_pays for k, _ in e.pays]
    cells += [PayCell("scatter", sp.symbol, k) for sp in game.scatter_pays for k, _ in sp.pays]
    return tuple(cells)


def pay_values(game: Game, cell: PayCell) -> tuple[int, ...]:
    """The declared value(s) of a pay cell (one per coin option for a per-coin list)."""
    if cell.kind == "scatter":
        return (dict(next(sp for sp in game.scatter_pays if sp.symbol == cell.entry).pays)[cell.count],)
    return dict(next(e for e in game.line_pays if e.name == cell.entry).pays)[cell.count]


def bump_pay(game: Game, cell: PayCell, delta: int) -> Game:
    """The game with ``cell`` paying ``delta`` more credits per coin (per-coin lists: ``delta × coins[i]``).

    Raises
    ------
    ModelError
        When a pay would become negative.
    """

    def step(values: tuple[int, ...], per_option: bool = False) -> tuple[int, ...]:
        if not per_option:
            out: tuple[int, ...] = (values[0] + delta,)
        else:
            out = tuple(v + delta * c for v, c in zip(values, game.bet.coins, strict=True))
        if min(out) < 0:
            msg = f"{cell.label()} would pay {out}"
            raise ModelError(msg)
        return out

    if cell.kind == "scatter":
        sps = tuple(
            ScatterPay(sp.symbol, tuple((k, step((v,))[0] if k == cell.count else v) for k, v in sp.pays))
            if sp.symbol == cell.entry else sp
            for sp in game.scatter_pays
        )
        return dataclasses.replace(game, scatter_pays=sps)
    lps = tuple(
        dataclasses.replace(e, pays=tuple((k, step(v, e.is_per_option(k)) if k == cell.count else v) for k, v in e.pays))
        if e.name == cell.entry else e
        for e in game.line_pays
    )
    return dataclasses.replace(game, line_pays=lps)


def stops_of(game: Game, reels: str, reel: int) -> list[tuple[str, int]]:
    """Strip ``reel`` of reel set ``reels`` as ``(symbol, weight)`` stops."""
    rs = game.reel_set(reels)
    return list(zip(rs.strips[reel], rs.stop_weights(reel), strict=True))


def with_stops(game: Game, reels: str, reel: int, stops: list[tuple[str, int]]) -> Game:
    """The game with strip ``reel`` of reel set ``reels`` made of ``stops`` (``(symbol, weight)``), validated.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> with_stops(g, "base", 0, [("H1", 1), ("L1", 1), ("L2", 1)]).reel_set().strips[0]
    ('H1', 'L1', 'L2')
    """
    rs = game.reel_set(reels)
    if not stops:
        msg = "empty strip"
        raise GameError(msg, field=f"reels.{rs.name}.strips[{reel}]", fix="keep at least one stop")
    symbols = tuple(s for s, _ in stops)
    weights = tuple(w for _, w in stops)
    strips = tuple(symbols if r == reel else s for r, s in enumerate(rs.strips))
    if rs.weights is None and all(w == 1 for w in weights):
        new_weights = None
    else:
        new_weights = tuple(weights if r == reel else rs.stop_weights(r) for r in range(rs.n_reels))
    return _validated(with_reel_set(game, dataclasses.replace(rs, strips=strips, weights=new_weights)))


def with_targets(game: Game, **changes: Any) -> Game:
    """The game with its ``[targets]`` changed (``rtp``, ``rtp_tolerance``, ``sd``, ``hit_frequency``).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> with_targets(load_game("data/games/dynasty.toml"), sd=(5.0, 7.0)).targets.sd
    (5.0, 7.0)
    """
    t = dataclasses.replace(game.targets, **changes)
    for name, band in (("sd", t.sd), ("hit_frequency", t.hit_frequency)):
        if band is not None and not 0 <= band[0] <= band[1]:
            msg = f"band [{band[0]}, {band[1]}] is not 0 ≤ low ≤ high"
            raise GameError(msg, field=f"targets.{name}",
                            fix="give the low end first")
    return _validated(dataclasses.replace(game, targets=t))


def with_line_pay(game: Game, entry: str, count: int, value: int, coin_index: int = 0) -> Game:
    """The game with the line (or ways) pay of ``count`` × ``entry`` set to ``value`` (per coin option)."""
    def repay(k: int, values: tuple[int, ...]) -> tuple[int, ...]:
        if k != count:
            return values
        return tuple(value if i == coin_index else v for i, v in enumerate(values))

    new_entries = tuple(dataclasses.replace(e, pays=tuple((k, repay(k, v)) for k, v in e.pays)) if e.name == entry else e
                        for e in game.line_pays)
    return _validated(dataclasses.replace(game, line_pays=new_entries))


def with_scatter_pay(game: Game, symbol: str, count: int, value: int) -> Game:
    """The game with the scatter pay of ``count`` × ``symbol`` set to ``value`` (× the game's scatter unit)."""
    pays = tuple(ScatterPay(sp.symbol, tuple((k, value if k == count else v) for k, v in sp.pays))
                 if sp.symbol == symbol else sp for sp in game.scatter_pays)
    return _validated(dataclasses.replace(game, scatter_pays=pays))


def line_hits_game(game: Game) -> Game:
    """The game whose line wins count paying lines: 1 credit for every line that pays, 0 otherwise.

    Every declared line pay becomes 1 where it pays anything (at each coin option) and 0 where it
    pays nothing, one value per coin option; every multiplier (wilds', multiplier symbols') becomes 1.
    A line pays its best combination only, and it pays something exactly when some combination
    on it pays, so the game's line win is the number of paying lines and its mean line win in
    credits is E[lines paid].  Scatter pays, sequence features and transforms (the cap) are
    removed; the modifiers stay, as they shape the spin (its height and lines, overlay cells ...),
    and whatever a modifier pays besides the lines (cash stacks) lands in its own component.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = line_hits_game(load_game("data/games/classic_3reel.toml"))    # WILD = { 3 = [800, 1600, 5000] }
    >>> g.line_pays[0].pays, g.line_pays[0].pay(3, coins=3, coin_index=2), {s.multiplier for s in g.symbols}
    (((3, (1, 1, 1)),), 1, {1})
    """
    n = len(game.bet.coins)

    def hit(e: PayEntry, values: tuple[int, ...], count: int) -> tuple[int, ...]:
        if e.is_per_option(count):
            return tuple(int(v > 0) for v in values)
        return (int(values[0] > 0),) * n

    pays = tuple(dataclasses.replace(e, pays=tuple((k, hit(e, v, k)) for k, v in e.pays),
                                     per_option=frozenset(k for k, _ in e.pays))
                 for e in game.line_pays)
    symbols = tuple(dataclasses.replace(s, multiplier=1) for s in game.symbols)
    features = game.features_of("modifier")
    return _validated(dataclasses.replace(game, symbols=symbols, line_pays=pays, scatter_pays=(), features=features))
