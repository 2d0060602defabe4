"""Semantic validation of a :class:`~mathkit.model.game.Game`.

:mod:`mathkit.gamefile.io` checks types and shapes while parsing; this module checks
what the fields mean together (symbols exist, wilds sit on allowed reels, line
rows fit the window ...) and, last, the composite ranges of the bounds contract
(:func:`mathkit.model.bounds.check_game`: the window within the strips, the cycle,
one spin's top win).  It runs on every load and save and on every edit
made in code, so a game object that exists is a game that makes sense.
"""

from __future__ import annotations

from collections import Counter

from ..errors import GameError
from .bounds import check_game
from .game import Game
from .ordered import check_ordered
from .ordered import where as ordered_where

__all__ = ["validate_game"]


def _names(options: list[str] | tuple[str, ...]) -> str:
    return ", ".join(options)


def _check_symbols(game: Game) -> None:
    dup = [n for n, c in Counter(game.symbol_names).items() if c > 1]
    if dup:
        msg = f"symbol {dup[0]!r} declared twice"
        raise GameError(msg, field=f"symbols.{dup[0]}",
                        fix="give every symbol a unique name")
    regular = tuple(s.name for s in game.symbols if s.kind == "regular")
    for s in game.symbols:
        where = f"symbols.{s.name}"
        if any(ch.isspace() for ch in s.name) or not s.name:
            msg = f"symbol name {s.name!r} contains white space"
            raise GameError(msg, field=where,
                            fix="use names without spaces (strips are written space-separated)")
        if s.multiplier < 1 or (s.multiplier != 1 and s.kind not in ("regular", "wild")):
            msg = f"a {s.kind} symbol with multiplier {s.multiplier}"
            raise GameError(msg, field=f"{where}.multiplier",
                            fix="a multiplier (an integer ≥ 1) belongs to a wild or a regular (multiplier) symbol")
        if not s.is_wild:
            continue
        for sub in s.substitutes:
            if sub not in game.symbol_names:
                msg = f"wild substitutes for unknown symbol {sub!r}"
                raise GameError(msg,
                                field=f"{where}.substitutes", fix=f"use one of: {_names(regular)}")
            if sub not in regular:
                kind = game.symbol(sub).kind
                msg = f"a wild cannot substitute for the {kind} symbol {sub!r}"
                raise GameError(msg,
                                field=f"{where}.substitutes",
                                fix=f"substitute only regular symbols: {_names(regular)}")
        for r in s.reels:
            if not 1 <= r <= game.n_reels:
                msg = f"reel {r} does not exist"
                raise GameError(msg, field=f"{where}.reels",
                                fix=f"reels are numbered 1 to {game.n_reels}")
        for i, sc in enumerate(s.counts_as_scatter):
            if sc not in game.symbol_names or not game.symbol(sc).is_scatter:
                scat = _names(tuple(x.name for x in game.scatters)) or "(declare a scatter symbol)"
                msg = f"{sc!r} is not a scatter symbol"
                raise GameError(msg, field=f"{where}.counts_as_scatter[{i}]", fix=f"name a scatter: {scat}")
            if sc in s.counts_as_scatter[:i]:
                msg = f"{sc!r} is listed twice"
                raise GameError(msg, field=f"{where}.counts_as_scatter[{i}]", fix="list each scatter once")
        if game.pay_mode == "ways" and s.pays:
            msg = "a wild with pays of its own is not supported in ways games"
            raise GameError(msg,
                            field=f"{where}.pays", fix="set pays = false")


def _check_reels(game: Game) -> None:
    names = game.symbol_names
    n_reels = game.reel_sets[0].n_reels
    seen = Counter(rs.name for rs in game.reel_sets)
    for rs in game.reel_sets:
        where = f"reels.{rs.name}"
        if seen[rs.name] > 1:
            msg = "reel set declared twice"
            raise GameError(msg, field=where, fix="give each reel set a unique name")
        if rs.n_reels != n_reels:
            msg = f"{rs.n_reels} reels, but reels.{game.reel_sets[0].name} has {n_reels}"
            raise GameError(msg,
                            field=f"{where}.strips", fix="give every reel set the same number of reels")
        if len(rs.rows) != rs.n_reels:
            msg = f"{len(rs.rows)} row counts for {rs.n_reels} reels"
            raise GameError(msg, field=f"{where}.rows")
        for r, strip in enumerate(rs.strips):
            if not strip:
                msg = "empty strip"
                raise GameError(msg, field=f"{where}.strips[{r}]")
            for i, sym in enumerate(strip):
                field = f"{where}.strips[{r}][{i}]"
                if sym not in names:
                    msg = f"unknown symbol {sym!r} on reel {r + 1}, stop {i}"
                    raise GameError(msg, field=field,
                                    fix=f"use a declared symbol: {_names(names)}")
                s = game.symbol(sym)
                if s.is_wild and s.reels and (r + 1) not in s.reels:
                    allowed = ", ".join(str(x) for x in s.reels)
                    msg = f"wild {sym!r} on reel {r + 1}, where it may not appear"
                    raise GameError(msg, field=field,
                                    fix=f"it may appear on reels {allowed}: replace it or change symbols.{sym}.reels")
            if rs.weights is not None:
                ws = rs.weights[r]
                if len(ws) != len(strip):
                    msg = f"{len(ws)} weights for {len(strip)} stops"
                    raise GameError(msg, field=f"{where}.weights[{r}]")
                for i, w in enumerate(ws):
                    if w <= 0:
                        msg = f"weight {w} is not positive"
                        raise GameError(msg, field=f"{where}.weights[{r}][{i}]",
                                        fix="weights are whole numbers ≥ 1; remove the stop instead of weighting it 0")
    for rs in game.reel_sets:
        if rs.declared_rtp is not None and not 0 < rs.declared_rtp < 2:
            msg = f"declared RTP {float(rs.declared_rtp)} is not a fraction of the bet"
            raise GameError(msg,
                            field=f"reels.{rs.name}.declared_rtp", fix="write e.g. 0.95 for 95%")
    if game.default_reels not in seen:
        msg = f"no reel set {game.default_reels!r}"
        raise GameError(msg, field="default_reels",
                        fix=f"use one of: {_names(list(seen))}")


def _check_lines(game: Game) -> None:
    if game.pay_mode == "ways":
        if game.paylines:
            msg = "a ways game has no paylines"
            raise GameError(msg, field="paylines",
                            fix='remove paylines or set pay_mode = "lines"')
        return
    if not game.paylines:
        msg = "a lines game needs paylines"
        raise GameError(msg, field="paylines",
                        fix="add paylines = [[1, 1, 1, 1, 1], ...] (one row per reel, 0 = top)")
    min_rows = [min(rs.rows[r] for rs in game.reel_sets) for r in range(game.n_reels)]
    seen: dict[tuple[int, ...], int] = {}
    for i, line in enumerate(game.paylines):
        if len(line) != game.n_reels:
            msg = f"{len(line)} rows for {game.n_reels} reels"
            raise GameError(msg, field=f"paylines[{i}]",
                            fix="give one row per reel")
        for r, row in enumerate(line):
            if not 0 <= row < min_rows[r]:
                msg = f"row {row} is outside reel {r + 1}'s window"
                raise GameError(msg, field=f"paylines[{i}][{r}]",
                                fix=f"rows are 0 (top) to {min_rows[r] - 1}")
        if line in seen:
            msg = f"same rows as paylines[{seen[line]}]"
            raise GameError(msg, field=f"paylines[{i}]",
                            fix="remove the duplicate line")
        seen[line] = i


def _check_pays(game: Game) -> None:
    names = game.symbol_names
    n_coins = len(game.bet.coins)
    entry_names = Counter(e.name for e in game.line_pays)
    for e in game.line_pays:
        mixed = e.symbols != (e.name,)
        where = ordered_where(e)
        if entry_names[e.name] > 1:
            msg = "pay entry declared twice"
            raise GameError(msg, field=where, fix="merge the two entries")
        if e.ordered:
            check_ordered(game, e)
            mixed = False  # its symbols are checked per reel; its pays are checked as every entry's
        if mixed and game.pay_mode == "ways":
            msg = "mixed combinations are not supported in ways games"
            raise GameError(msg, field=where)
        if e.multiplied and (len(e.symbols) != 1 or e.symbols[0] not in names or not game.symbol(e.symbols[0]).is_wild
                             or e.flat):
            msg = "flat and multiplied at once" if e.flat else "multiplied applies to a wild's own combination"
            raise GameError(msg, field=f"{where}.multiplied",
                            fix="remove it: other entries are multiplied unless flat; a wild's own run is multiplied "
                                "only with multiplied = true")
        if e.flat and game.pay_mode == "ways":
            msg = "flat pays are not supported in ways games"
            raise GameError(msg, field=f"{where}.flat",
                            fix="remove flat: a ways pay is multiplied by its ways, multipliers included")
        if mixed and len(set(e.symbols)) != len(e.symbols):
            msg = "a symbol is listed twice"
            raise GameError(msg, field=f"{where}.symbols")
        if mixed and len(e.symbols) < 2:
            msg = "a mixed combination needs at least two symbols"
            raise GameError(msg, field=f"{where}.symbols",
                            fix="use paytable.NAME for a single symbol")
        for sym in e.symbols:
            if sym not in names:
                msg = f"unknown symbol {sym!r}"
                raise GameError(msg, field=where, fix=f"use one of: {_names(names)}")
            s = game.symbol(sym)
            if s.is_scatter:
                msg = f"{sym!r} is a scatter: it does not pay on lines"
                raise GameError(msg, field=where,
                                fix=f"move its pays to scatter_pays.{sym}")
            if s.is_bonus:
                msg = f"{sym!r} is a bonus symbol: it never pays on lines"
                raise GameError(msg, field=where,
                                fix="remove the entry; a feature block gives bonus symbols their value")
            if s.is_wild and not s.pays:
                msg = f"wild {sym!r} has pays but is declared without pays of its own"
                raise GameError(msg,
                                field=where, fix=f"set symbols.{sym}.pays = true or remove the entry")
            if s.is_wild and mixed:
                msg = f"wild {sym!r} in a mixed combination"
                raise GameError(msg, field=f"{where}.symbols",
                                fix="wilds join mixed combinations by substitution; list regular symbols only")
        counts = [k for k, _ in e.pays]
        at = f"{where}.pays" if mixed or e.ordered else where
        if len(set(counts)) != len(counts):
            msg = "a count is listed twice"
            raise GameError(msg, field=at)
        for k, values in e.pays:
            if k > game.n_reels:
                msg = f"{k} of a kind on {game.n_reels} reels"
                raise GameError(msg, field=f"{at}.{k}",
                                fix=f"counts go from 1 to {game.n_reels}")
            if len(values) != (n_coins if e.is_per_option(k) else 1):
                msg = f"{len(values)} per-coin pays for {n_coins} coin options"
                raise GameError(msg, field=f"{at}.{k}",
                                fix="give one pay per coin option in bet.coins, or a single number (paid per coin)")
            if any(v < 0 for v in values):
                msg = "negative pay"
                raise GameError(msg, field=f"{at}.{k}", fix="pays are whole numbers ≥ 0")
    for s in game.symbols:
        if s.is_wild and s.pays and s.name not in entry_names:
            msg = "wild declared to pay but has no paytable entry"
            raise GameError(msg, field=f"paytable.{s.name}",
                            fix=f"add paytable.{s.name} = {{ 5 = ... }} or set pays = false")
    scat = Counter(sp.symbol for sp in game.scatter_pays)
    for sp in game.scatter_pays:
        where = f"scatter_pays.{sp.symbol}"
        if scat[sp.symbol] > 1:
            msg = "declared twice"
            raise GameError(msg, field=where)
        if sp.symbol not in names:
            msg = f"unknown symbol {sp.symbol!r}"
            raise GameError(msg, field=where, fix=f"use one of: {_names(names)}")
        if not game.symbol(sp.symbol).is_scatter:
            msg = f"{sp.symbol!r} is not a scatter"
            raise GameError(msg, field=where,
                            fix=f'set symbols.{sp.symbol}.kind = "scatter" or move its pays to paytable')
        if any(v < 0 for _, v in sp.pays):
            msg = "negative pay"
            raise GameError(msg, field=where)


def _check_bet(game: Game) -> None:
    bet = game.bet
    if game.pay_mode == "lines":
        n = len(game.paylines)
        if bet.lines > n:
            msg = f"{bet.lines} lines played but only {n} paylines"
            raise GameError(msg, field="bet.lines",
                            fix=f"play at most {n} lines")
        for i, k in enumerate(bet.line_options):
            if k > n:
                msg = f"option of {k} lines but only {n} paylines"
                raise GameError(msg, field=f"bet.line_options[{i}]")
    if len(set(bet.coins)) != len(bet.coins):
        msg = "a coin option is listed twice"
        raise GameError(msg, field="bet.coins")
    if game.scatter_unit == "line_bet" and bet.total is not None:
        msg = "scatter pays per line bet in a game with a fixed total bet"
        raise GameError(msg, field="scatter_unit",
                        fix='write scatter_unit = "total_bet": the game has no fixed bet per line')
    if (game.scatter_unit == "credits") != (game.scatter_bet is not None):
        if game.scatter_bet is None:
            msg = 'scatter_unit = "credits" without the bet the credits are written at'
            raise GameError(msg, field="scatter_bet",
                            fix="write scatter_bet = the total bet in credits the scatter pays are written for, e.g. 25")
        msg = f'scatter_bet = {game.scatter_bet} with scatter_unit = "{game.scatter_unit}"'
        raise GameError(msg, field="scatter_bet", fix='write scatter_unit = "credits", or remove scatter_bet')
    if game.scatter_bet is not None:
        lines = (bet.lines, *bet.line_options) if bet.total is None else (bet.lines,)
        for n in lines:
            for c in bet.coins:
                total = bet.total_bet(n, c)
                if total % game.scatter_bet:
                    msg = (f"scatter pays are credits at a total bet of {game.scatter_bet}, and a bet of {total} "
                           f"({n} lines × {c} coins) is not a whole multiple of it")
                    raise GameError(msg, field="scatter_bet",
                                    fix="give a scatter_bet that divides every total bet the game offers")
    if game.pay_mode == "ways" and game.multiplier_rule != "stack":
        msg = f'multiplier_rule = "{game.multiplier_rule}" in a ways game'
        raise GameError(msg, field="multiplier_rule",
                        fix='write "stack": a ways game counts a wild ×m as m positions, every way × its factors')
    if game.line_symbol != "best":
        flat = [e.name for e in game.line_pays if e.flat]
        if game.pay_mode != "lines" or flat:
            msg = (f'line_symbol = "{game.line_symbol}" ' + ("in a ways game" if game.pay_mode != "lines" else
                                                            f"with the flat entry {flat[0]!r}"))
            raise GameError(msg, field="line_symbol",
                            fix='write "best", or (lines) remove flat: a line of wilds alone would not say which '
                                'entry it pays')
    if game.pay_mode != "ways":
        for key, value, default in (("all_wild_ways", game.all_wild_ways, "pay"),
                                    ("void_ways_at_wilds", game.void_ways_at_wilds, 0)):
            if value != default:
                msg = f"{key} = {value!r} in a lines game"
                raise GameError(msg, field=key, fix='remove it: it is a rule of ways games (pay_mode = "ways")')
    if bet.coin_value <= 0:
        msg = "coin value must be positive"
        raise GameError(msg, field="bet.coin_value")


SCATTER_COUNTING = ("free_spins", "free_games", "multiplier_free_spins")
"""The blocks that read a scatter only by its count, so a wild counting as the scatter counts for them too."""


def _check_features(game: Game) -> None:
    if game.declared_rtp is not None and not 0 < game.declared_rtp < 2:
        msg = f"declared RTP {float(game.declared_rtp)} is not a fraction of the bet"
        raise GameError(msg,
                        field="declared_rtp", fix="write e.g. 0.95 for 95%")
    for f in game.features:
        f.validate(game, game.feature_path(f))
    counted = {sc: w.name for w in game.wilds for sc in w.counts_as_scatter}
    counting = {w.name for w in game.wilds if w.counts_as_scatter}
    for f in game.features:  # a block that places or holds such a wild (overlays, sticky wilds): not read as yet
        for name in f.symbols():
            if name in counting and f.kind not in SCATTER_COUNTING:
                msg = (f"feature {f.name!r} ({f.kind}) places or reads wild {name!r}, which counts as a scatter; "
                       "this block does not count its cells as the scatter")
                raise GameError(msg, field=f"symbols.{name}.counts_as_scatter",
                                fix=f"remove counts_as_scatter, or use another wild in {f.name!r}")
    for f in game.features:  # a scatter wilds count as: read only by blocks that count it (trigger, retrigger)
        for sc in f.symbols():
            if sc in counted and f.kind not in SCATTER_COUNTING:
                msg = (f"feature {f.name!r} ({f.kind}) reads scatter {sc!r}, which wild {counted[sc]!r} counts as; "
                       f"this block reads the scatter's cells, not its count")
                raise GameError(msg, field=f"symbols.{counted[sc]}.counts_as_scatter",
                                fix=f"remove {sc!r} from it, or trigger with {', '.join(SCATTER_COUNTING)}")


def validate_game(game: Game) -> None:
    """Raise :class:`~mathkit.errors.GameError` if ``game`` is inconsistent.

    Examples
    --------
    >>> from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
    >>> g = Game("g", (Symbol("A"),), (ReelSet("base", (("A", "Q"),), (1,)),),
    ...          (PayEntry("A", ("A",), ((1, (2,)),)),), Bet(1), paylines=((0,),))
    >>> validate_game(g)
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: reels.base.strips[0][1]: unknown symbol 'Q' on reel 1, stop 1 (fix: use a declared symbol: A)
    """
    _check_symbols(game)
    _check_reels(game)
    _check_lines(game)
    _check_pays(game)
    _check_bet(game)
    _check_features(game)
    check_game(game)
