"""Parsing game data (a TOML mapping) into a validated :class:`~mathkit.model.game.Game`.

Types and shapes are checked here, field by field, so every problem is a
:class:`~mathkit.errors.GameError` naming the field path (``reels.base.strips[2][17]``;
array indices from 0), what is wrong and what would be right; what the
fields mean together is checked by :mod:`mathkit.model.validate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import GameError
from ..features import KINDS, features_from_dict
from ..model.bounds import MAX_COINS, MAX_PAYLINES, MAX_REELS, MAX_ROWS, MAX_STOPS, MAX_WEIGHT
from ..model.fields import UnknownField
from ..model.fields import array as _list
from ..model.fields import boolean as _bool
from ..model.fields import check_keys as _check_keys
from ..model.fields import count_key as _count_key
from ..model.fields import fraction as _fraction
from ..model.fields import integer as _int
from ..model.fields import string as _str
from ..model.fields import suggest as _suggest
from ..model.fields import table as _table
from ..model.game import (
    ALL_WILD_WAYS,
    LINE_SYMBOLS,
    MULTIPLIER_RULES,
    SCATTER_UNITS,
    Bet,
    Buy,
    Game,
    Mode,
    PayEntry,
    Reading,
    ReelSet,
    ScatterPay,
    ScatterUnit,
    Symbol,
    Targets,
)
from ..model.tuning import check_tuning, tuning_from_dict
from ..model.validate import validate_game

__all__ = ["CORE_KEYS", "TOP_KEYS", "game_from_dict"]

CORE_KEYS = (
    "name", "description", "pay_mode", "declared_rtp", "default_reels", "bet", "symbols",
    "reels", "paylines", "paytable", "mixed", "ordered", "scatter_pays", "scatter_unit", "scatter_bet",
    "multiplier_rule", "line_symbol", "all_wild_ways", "void_ways_at_wilds", "readings", "targets", "tuning",
    "modes",
)
"""Top-level keys of the core format; every feature kind of :data:`mathkit.features.KINDS` is one too."""
TOP_KEYS = CORE_KEYS + tuple(KINDS)
SYMBOL_KINDS = ("regular", "wild", "scatter", "bonus")


def _parse_symbols(data: Mapping[str, Any]) -> tuple[Symbol, ...]:
    table = _table(data, "symbols", "", required=True)
    if not table:
        msg = "no symbols"
        raise GameError(msg, field="symbols", fix="declare at least one [symbols.NAME]")
    out = []
    for name, spec in table.items():
        where = f"symbols.{name}"
        if not isinstance(spec, dict):
            msg = "expected a table"
            raise GameError(msg, field=where, fix=f'write [symbols.{name}] kind = "regular"')
        _check_keys(spec, ("kind", "substitutes", "reels", "pays", "multiplier", "value", "mark", "counts_as_scatter"),
                    where)
        kind = spec.get("kind", "regular")
        if kind not in SYMBOL_KINDS:
            msg = f"unknown kind {kind!r}"
            raise GameError(msg, field=f"{where}.kind", fix=_suggest(str(kind), SYMBOL_KINDS))
        if kind != "bonus":
            for k in ("value", "mark"):
                if k in spec:
                    msg = f"{k!r} only applies to bonus symbols"
                    raise GameError(msg, field=f"{where}.{k}", fix='remove it or set kind = "bonus"')
        if kind == "bonus":
            value = None
            if "value" in spec:
                value = _fraction(spec["value"], f"{where}.value")
                if value <= 0:
                    msg = f"value {value} is not positive"
                    raise GameError(msg, field=f"{where}.value", fix="give a positive multiple of the total bet, e.g. 3 or \"5/2\"")
            mark = _str(spec["mark"], f"{where}.mark") if "mark" in spec else ""
            out.append(Symbol(name, kind, value=value, mark=mark))
            continue
        if kind != "wild":
            for k in ("substitutes", "reels", "pays", "multiplier", "counts_as_scatter"):
                if k in spec and not (k == "multiplier" and kind == "regular"):
                    msg_0 = f"{k!r} only applies to wild symbols"
                    raise GameError(msg_0, field=f"{where}.{k}",
                                    fix='remove it or set kind = "wild"' + (
                                        " (a multiplier symbol is a regular one)" if k == "multiplier" else ""))
            # a regular symbol with a multiplier multiplies the combinations it is part of
            out.append(Symbol(name, kind, multiplier=_int(spec.get("multiplier", 1), f"{where}.multiplier", minimum=1)))
            continue
        subs_raw = spec.get("substitutes", "all")
        if subs_raw == "all":
            subs: tuple[str, ...] = ("*",)
        else:
            subs = tuple(_str(s, f"{where}.substitutes[{i}]")
                         for i, s in enumerate(_list(subs_raw, f"{where}.substitutes")))
        reels = tuple(_int(r, f"{where}.reels[{i}]", minimum=1, maximum=MAX_REELS)
                      for i, r in enumerate(_list(spec.get("reels", []), f"{where}.reels")))
        pays = _bool(spec.get("pays", False), f"{where}.pays")
        mult = _int(spec.get("multiplier", 1), f"{where}.multiplier", minimum=1)
        as_scatter = tuple(_str(s, f"{where}.counts_as_scatter[{i}]")
                           for i, s in enumerate(_list(spec.get("counts_as_scatter", []), f"{where}.counts_as_scatter")))
        out.append(Symbol(name, "wild", subs, reels, pays, mult, counts_as_scatter=as_scatter))
    regular = tuple(s.name for s in out if s.kind == "regular")
    # resolve "all" now that every symbol is known
    return tuple(
        Symbol(s.name, s.kind, regular, s.reels, s.pays, s.multiplier, s.value, s.mark, s.counts_as_scatter)
        if s.substitutes == ("*",) else s
        for s in out
    )


def _parse_strip(value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, str):
        stops = tuple(value.split())
    else:
        stops = tuple(_str(s, f"{field}[{i}]") for i, s in enumerate(_list(value, field)))
    if not stops:
        msg = "empty strip"
        raise GameError(msg, field=field, fix="list at least one stop")
    if len(stops) > MAX_STOPS:
        msg = f"{len(stops):,} stops, more than the {MAX_STOPS:,} a strip may have"
        raise GameError(msg, field=field,
                        fix="shorten the strip, or weight its stops instead of repeating them")
    return stops


def _parse_reels(data: Mapping[str, Any]) -> tuple[ReelSet, ...]:
    table = _table(data, "reels", "", required=True)
    if not table:
        msg = "no reel sets"
        raise GameError(msg, field="reels", fix="add [reels.base] with strips = [...]")
    sets = []
    for name, spec in table.items():
        where = f"reels.{name}"
        if not isinstance(spec, dict):
            msg = "expected a table with strips, rows and optional weights"
            raise GameError(msg, field=where)
        _check_keys(spec, ("strips", "rows", "weights", "declared_rtp"), where)
        if "strips" not in spec:
            msg = "missing strips"
            raise GameError(msg, field=f"{where}.strips",
                            fix="strips = [\"A B C ...\", ...], one per reel")
        strips_raw = _list(spec["strips"], f"{where}.strips")
        if not strips_raw:
            msg = "no reels"
            raise GameError(msg, field=f"{where}.strips", fix="list one strip per reel")
        if len(strips_raw) > MAX_REELS:
            msg = f"{len(strips_raw)} reels, more than the {MAX_REELS} a game may have"
            raise GameError(msg,
                            field=f"{where}.strips", fix=f"use at most {MAX_REELS} reels")
        strips = tuple(_parse_strip(s, f"{where}.strips[{r}]") for r, s in enumerate(strips_raw))
        rows_raw = spec.get("rows", 3)
        if isinstance(rows_raw, list):
            if len(rows_raw) != len(strips):
                msg = f"{len(rows_raw)} row counts for {len(strips)} reels"
                raise GameError(msg,
                                field=f"{where}.rows", fix="give one row count per reel, or one number")
            rows = tuple(_int(x, f"{where}.rows[{i}]", minimum=1, maximum=MAX_ROWS) for i, x in enumerate(rows_raw))
        else:
            rows = (_int(rows_raw, f"{where}.rows", minimum=1, maximum=MAX_ROWS),) * len(strips)
        weights = None
        if "weights" in spec:
            w_raw = _list(spec["weights"], f"{where}.weights")
            if len(w_raw) != len(strips):
                msg = f"{len(w_raw)} weight lists for {len(strips)} reels"
                raise GameError(msg,
                                field=f"{where}.weights", fix="give one weight list per reel")
            wl = []
            for r, (w_item, strip) in enumerate(zip(w_raw, strips, strict=True)):
                ws = _list(w_item, f"{where}.weights[{r}]")
                if len(ws) != len(strip):
                    msg = f"{len(ws)} weights for {len(strip)} stops"
                    raise GameError(msg,
                                    field=f"{where}.weights[{r}]", fix="give one weight per stop")
                wl.append(tuple(_int(w, f"{where}.weights[{r}][{i}]", minimum=None, maximum=MAX_WEIGHT)
                                for i, w in enumerate(ws)))
            weights = tuple(wl)
        declared = spec.get("declared_rtp")
        sets.append(ReelSet(name, strips, rows, weights,
                            None if declared is None else _fraction(declared, f"{where}.declared_rtp")))
    return tuple(sets)


def _parse_pays(value: Any, where: str, n_coins: int,
                flat_key: bool = False) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], frozenset[int]]:
    """Pays by count, and the counts written as one value per coin option (a list).

    ``flat_key``: the table may also hold ``flat = true`` (a paytable entry's), read by :func:`_flat`.
    """
    if not isinstance(value, dict) or not value:
        msg = "expected a table of count = pay"
        raise GameError(msg, field=where,
                        fix="write e.g. { 3 = 5, 4 = 20, 5 = 100 }")
    out = []
    per_option = set()
    for key, pay in value.items():
        if key in ("flat", "multiplied") and flat_key:  # read by the entry (_flat, _multiplied), not a count
            continue
        field = f"{where}.{key}"
        count = _count_key(key, field)
        if isinstance(pay, list):
            if len(pay) != n_coins:
                msg = f"{len(pay)} per-coin pays for {n_coins} coin options"
                raise GameError(msg, field=field,
                                fix="give one pay per coin option in bet.coins, or a single number (paid per coin)")
            values = tuple(_int(p, f"{field}[{i}]", minimum=0) for i, p in enumerate(pay))
            per_option.add(count)
        else:
            values = (_int(pay, field, minimum=0),)
        out.append((count, values))
    return tuple(sorted(out)), frozenset(per_option)


def _misplaced(name: str, where: str) -> GameError:
    """A top-level key written after a table header, which TOML puts inside that table."""
    return UnknownField(name, f"unknown field {name!r}", field=f"{where}.{name}",
                        fix=f"{name!r} is a top-level key: in TOML a key written after a [table] header belongs to "
                            f"that table; move `{name} = ...` above the first [table] header")


def _flat(spec: Mapping[str, Any], where: str) -> bool:
    """``flat = true``: the entry is paid as declared, never multiplied by the symbols' multipliers."""
    return _bool(spec.get("flat", False), f"{where}.flat")


def _multiplied(spec: Mapping[str, Any], where: str) -> bool:
    """``multiplied = true`` on a wild's own entry: its run of wilds is paid × their factors."""
    return _bool(spec.get("multiplied", False), f"{where}.multiplied")


def _parse_paytable(data: Mapping[str, Any], n_coins: int, symbols: tuple[str, ...]) -> tuple[PayEntry, ...]:
    entries = []
    for name, spec in _table(data, "paytable", "").items():
        if name in TOP_KEYS and name not in symbols and not isinstance(spec, dict):
            raise _misplaced(name, "paytable")
        pays, per_option = _parse_pays(spec, f"paytable.{name}", n_coins, flat_key=True)
        if not pays:
            msg = "no pays"
            raise GameError(msg, field=f"paytable.{name}", fix="write e.g. { 3 = 1000, flat = true }")
        entries.append(PayEntry(name, (name,), pays, per_option, _flat(spec, f"paytable.{name}"),
                                multiplied=_multiplied(spec, f"paytable.{name}")))
    for name, spec in _table(data, "mixed", "").items():
        where = f"mixed.{name}"
        if not isinstance(spec, dict):
            msg = "expected a table with symbols and pays"
            raise GameError(msg, field=where)
        _check_keys(spec, ("symbols", "pays", "flat"), where)
        syms = tuple(_str(s, f"{where}.symbols[{i}]")
                     for i, s in enumerate(_list(spec.get("symbols"), f"{where}.symbols")))
        if isinstance(spec.get("pays"), dict) and "flat" in spec["pays"]:
            msg = "'flat' belongs to the entry, not to its pays"
            raise GameError(msg, field=f"{where}.pays.flat",
                            fix=f"write flat = true under [mixed.{name}]")
        pays, per_option = _parse_pays(spec.get("pays"), f"{where}.pays", n_coins)
        entries.append(PayEntry(name, syms, pays, per_option, _flat(spec, where)))
    groups = {e.name: e.symbols for e in entries if e.symbols != (e.name,)}
    for name, spec in _table(data, "ordered", "").items():
        entries.append(_parse_ordered(name, spec, n_coins, groups))
    return tuple(entries)


def _parse_ordered(name: str, spec: Any, n_coins: int, groups: Mapping[str, tuple[str, ...]]) -> PayEntry:
    """``[ordered.NAME]``: per reel a symbol, a mixed group's name or a list of symbols; and the pays."""
    where = f"ordered.{name}"
    if not isinstance(spec, dict):
        msg = "expected a table with reels and pays"
        raise GameError(msg, field=where,
                        fix='write reels = ["SEVEN_RED", "SEVEN_WHITE", "SEVEN_BLUE"] and pays = { 3 = 100 }')
    _check_keys(spec, ("reels", "pays", "flat"), where)
    if "reels" not in spec:
        msg = "missing reels"
        raise GameError(msg, field=f"{where}.reels",
                        fix="give per reel, from reel 1, the symbol, mixed group or [list of symbols] it needs")
    per_reel, labels = [], []
    for r, item in enumerate(_list(spec["reels"], f"{where}.reels")):
        field = f"{where}.reels[{r}]"
        if not isinstance(item, list | str):
            msg = f"expected a symbol, a mixed group's name or a list of symbols, got {item!r}"
            raise GameError(msg, field=field,
                            fix='write e.g. "SEVEN_RED", "ANY_RED" or ["SEVEN_RED", "BAR1"]')
        if isinstance(item, list):
            members = tuple(_str(s, f"{field}[{i}]") for i, s in enumerate(item))
            labels.append("|".join(members))
        else:
            label = _str(item, field)
            members = groups.get(label, (label,))
            labels.append(label)
        per_reel.append(members)
    pays, per_option = _parse_pays(spec.get("pays"), f"{where}.pays", n_coins)
    symbols = tuple(dict.fromkeys(s for m in per_reel for s in m))
    return PayEntry(name, symbols, pays, per_option, _flat(spec, where), reels=tuple(per_reel),
                    reel_labels=tuple(labels))


def _parse_scatter_pays(data: Mapping[str, Any]) -> tuple[ScatterPay, ...]:
    out = []
    for name, spec in _table(data, "scatter_pays", "").items():
        where = f"scatter_pays.{name}"
        if name in TOP_KEYS and not isinstance(spec, dict):
            raise _misplaced(name, "scatter_pays")
        if not isinstance(spec, dict) or not spec:
            msg = "expected a table of count = multiple of total bet"
            raise GameError(msg, field=where,
                            fix="write e.g. { 3 = 2, 4 = 10, 5 = 50 }")
        pays = tuple(sorted((_count_key(k, f"{where}.{k}"), _int(v, f"{where}.{k}", minimum=0))
                            for k, v in spec.items()))
        out.append(ScatterPay(name, pays))
    return tuple(out)


def _parse_scatter_unit(data: Mapping[str, Any]) -> ScatterUnit:
    unit = data.get("scatter_unit", "total_bet")
    for u in SCATTER_UNITS:
        if unit == u:
            return u
    msg = f"unknown scatter pay unit {unit!r}"
    raise GameError(msg, field="scatter_unit",
                    fix='write "total_bet" (scatter pays × the total bet), "line_bet" (× the bet per line) or '
                        '"credits" (credits at the total bet scatter_bet)')


def _choice(data: Mapping[str, Any], key: str, options: tuple[str, ...], meaning: str) -> Any:
    """A top-level key that takes one of ``options`` (the first is the default)."""
    value = data.get(key, options[0])
    if value not in options:
        msg = f"unknown {meaning} {value!r}"
        raise GameError(msg, field=key, fix=_suggest(str(value), options))
    return value


def _parse_bet(data: Mapping[str, Any], n_paylines: int) -> Bet:
    spec = _table(data, "bet", "")
    _check_keys(spec, ("lines", "line_options", "coins", "coin_value", "total"), "bet")
    default_lines = n_paylines if n_paylines else 1
    lines = _int(spec.get("lines", default_lines), "bet.lines", minimum=1, maximum=MAX_PAYLINES)
    options = tuple(_int(x, f"bet.line_options[{i}]", minimum=1, maximum=MAX_PAYLINES)
                    for i, x in enumerate(_list(spec.get("line_options", []), "bet.line_options")))
    coins = tuple(_int(x, f"bet.coins[{i}]", minimum=1, maximum=MAX_COINS)
                  for i, x in enumerate(_list(spec.get("coins", [1]), "bet.coins")))
    if not coins:
        msg = "no coin options"
        raise GameError(msg, field="bet.coins", fix="write coins = [1]")
    coin_value = _fraction(spec.get("coin_value", 1), "bet.coin_value")
    total = spec.get("total")
    return Bet(lines, options, coins, coin_value, None if total is None else _int(total, "bet.total", minimum=1))


def _description(value: Any) -> str:
    if not isinstance(value, str):
        msg = "expected a string"
        raise GameError(msg, field="description", fix='write description = "..."')
    return value


def _parse_readings(data: Mapping[str, Any]) -> tuple[Reading, ...]:
    out = []
    for i, r in enumerate(_list(data.get("readings", []), "readings")):
        where = f"readings[{i}]"
        if not isinstance(r, dict):
            msg = "expected a table with rule, reading and reason"
            raise GameError(msg, field=where)
        _check_keys(r, ("rule", "reading", "reason"), where)
        out.append(Reading(*(_str(r.get(k), f"{where}.{k}") for k in ("rule", "reading", "reason"))))
    return tuple(out)


def _band(value: Any, field: str) -> tuple[float, float]:
    raw = _list(value, field)
    if len(raw) != 2:
        msg = f"expected [low, high], got {len(raw)} value(s)"
        raise GameError(msg, field=field, fix="write e.g. [5.5, 6.5]")
    low, high = (float(_fraction(x, f"{field}[{i}]")) for i, x in enumerate(raw))
    if not 0 <= low <= high:
        msg = f"band [{low}, {high}] is not 0 ≤ low ≤ high"
        raise GameError(msg, field=field, fix="give the low end first")
    return (low, high)


def _parse_targets(data: Mapping[str, Any]) -> Targets:
    spec = _table(data, "targets", "")
    _check_keys(spec, ("rtp", "rtp_tolerance", "sd", "hit_frequency"), "targets")
    t = Targets()
    if "rtp" in spec:
        t = Targets(rtp=_fraction(spec["rtp"], "targets.rtp"))
    if "rtp_tolerance" in spec:
        tol = _fraction(spec["rtp_tolerance"], "targets.rtp_tolerance")
        if tol < 0:
            msg = "negative tolerance"
            raise GameError(msg, field="targets.rtp_tolerance", fix="write e.g. 0.00005 (±0.005 pp)")
        t = Targets(t.rtp, tol)
    sd = _band(spec["sd"], "targets.sd") if "sd" in spec else None
    hf = _band(spec["hit_frequency"], "targets.hit_frequency") if "hit_frequency" in spec else None
    if hf is not None and hf[1] > 1:
        msg = "a hit frequency is at most 1"
        raise GameError(msg, field="targets.hit_frequency", fix="write fractions, e.g. [0.28, 0.34]")
    return Targets(t.rtp, t.rtp_tolerance, sd, hf)


MODE_KEYS = ("cost", "declared_rtp", "reels", "buy", "cap")


def _parse_buy(spec: Any, where: str) -> Buy:
    if not isinstance(spec, dict):
        msg = "expected a table with the feature bought and its entry law"
        raise GameError(msg, field=where, fix='write buy = { feature = "free_spins", counts = { 3 = 90, 4 = 10 } }')
    _check_keys(spec, ("feature", "counts"), where)
    feature = _str(spec.get("feature"), f"{where}.feature")
    raw = spec.get("counts")
    if not isinstance(raw, dict) or not raw:
        msg = "expected a table of trigger count = weight"
        raise GameError(msg, field=f"{where}.counts",
                        fix="write e.g. counts = { 3 = 90, 4 = 9, 5 = 1 } (the bought spin shows 3, 4 or 5 triggers)")
    counts = tuple(sorted((_count_key(k, f"{where}.counts.{k}"),
                           _int(v, f"{where}.counts.{k}", minimum=0, maximum=MAX_WEIGHT)) for k, v in raw.items()))
    if not any(w for _, w in counts):
        msg = "every weight is 0"
        raise GameError(msg, field=f"{where}.counts", fix="give at least one trigger count a positive weight")
    return Buy(feature, counts)


def _parse_modes(data: Mapping[str, Any]) -> tuple[Mode, ...]:
    out = []
    for name, spec in _table(data, "modes", "").items():
        where = f"modes.{name}"
        if not isinstance(spec, dict):
            msg = "expected a table"
            raise GameError(msg, field=where, fix=f"write [modes.{name}] with cost = ... (× the base bet)")
        if name == "base":
            msg = "'base' names the base game itself (cost 1, as the file declares it)"
            raise GameError(msg, field=where, fix="give the mode another name (ante, buy ...)")
        _check_keys(spec, MODE_KEYS, where)
        if "cost" not in spec:
            msg = "missing field 'cost'"
            raise GameError(msg, field=f"{where}.cost", fix="write cost = 100 (a round costs 100 × the base bet) or cost = \"5/4\"")
        cost = _fraction(spec["cost"], f"{where}.cost")
        if cost <= 0:
            msg = f"cost {cost} is not positive"
            raise GameError(msg, field=f"{where}.cost", fix="write the cost in units of the base bet, e.g. 1.25 or 100")
        declared = None if "declared_rtp" not in spec else _fraction(spec["declared_rtp"], f"{where}.declared_rtp")
        if declared is not None and not 0 < declared <= 2:
            msg = f"declared RTP {declared} is not a fraction of the stake"
            raise GameError(msg, field=f"{where}.declared_rtp", fix="write e.g. 0.96 (96%)")
        reels_spec = _table(spec, "reels", where)
        reels = tuple((k, _str(v, f"{where}.reels.{k}")) for k, v in reels_spec.items())
        buy = None if "buy" not in spec else _parse_buy(spec["buy"], f"{where}.buy")
        cap = None
        if "cap" in spec:
            cap = _fraction(spec["cap"], f"{where}.cap")
            if cap <= 0:
                msg = f"cap {cap} is not positive"
                raise GameError(msg, field=f"{where}.cap", fix="write the most a round pays, × the base bet (e.g. 5000)")
        out.append(Mode(name, cost, declared, reels, buy, cap))
    return tuple(out)


def game_from_dict(data: Mapping[str, Any]) -> Game:
    """Build and validate a game from parsed TOML data (errors carry no file name)."""
    try:
        return _game_from_dict(data)
    except UnknownField as exc:
        if exc.key in TOP_KEYS and "." in exc.field and "top-level" not in exc.fix:
            raise _misplaced(exc.key, exc.field.rsplit(".", 1)[0]) from exc
        raise


def _game_from_dict(data: Mapping[str, Any]) -> Game:
    _check_keys(data, TOP_KEYS, "")
    name = _str(data.get("name"), "name")
    pay_mode = data.get("pay_mode", "lines")
    if pay_mode not in ("lines", "ways"):
        msg = f"unknown pay mode {pay_mode!r}"
        raise GameError(msg, field="pay_mode", fix='use "lines" or "ways"')
    symbols = _parse_symbols(data)
    reel_sets = _parse_reels(data)
    paylines_raw = _list(data.get("paylines", []), "paylines")
    if len(paylines_raw) > MAX_PAYLINES:
        msg = f"{len(paylines_raw):,} paylines, more than the {MAX_PAYLINES:,} a game may have"
        raise GameError(msg,
                        field="paylines", fix=f"declare at most {MAX_PAYLINES:,} lines")
    paylines = tuple(
        tuple(_int(x, f"paylines[{i}][{r}]", minimum=0, maximum=MAX_ROWS - 1)
              for r, x in enumerate(_list(line, f"paylines[{i}]")))
        for i, line in enumerate(paylines_raw)
    )
    bet = _parse_bet(data, len(paylines))
    declared = data.get("declared_rtp")
    game = Game(
        name=name,
        description=_description(data.get("description", "")),
        symbols=symbols,
        reel_sets=reel_sets,
        line_pays=_parse_paytable(data, len(bet.coins), tuple(s.name for s in symbols)),
        bet=bet,
        pay_mode=pay_mode,
        paylines=paylines,
        scatter_pays=_parse_scatter_pays(data),
        scatter_unit=_parse_scatter_unit(data),
        scatter_bet=None if data.get("scatter_bet") is None else _int(data["scatter_bet"], "scatter_bet", minimum=1),
        multiplier_rule=_choice(data, "multiplier_rule", MULTIPLIER_RULES, "multiplier rule"),
        all_wild_ways=_choice(data, "all_wild_ways", ALL_WILD_WAYS, "all-wild ways rule"),
        line_symbol=_choice(data, "line_symbol", LINE_SYMBOLS, "line symbol rule"),
        void_ways_at_wilds=_int(data.get("void_ways_at_wilds", 0), "void_ways_at_wilds", minimum=0,
                                maximum=MAX_REELS * MAX_ROWS),
        default_reels=_str(data.get("default_reels", reel_sets[0].name), "default_reels"),
        declared_rtp=None if declared is None else _fraction(declared, "declared_rtp"),
        features=features_from_dict(data),
        readings=_parse_readings(data),
        targets=_parse_targets(data),
        tuning=tuning_from_dict(data),
        modes=_parse_modes(data),
    )
    validate_game(game)
    check_tuning(game)
    if game.modes:  # imported here: a game without bet modes needs none of their blocks
        from ..features.modes import check_modes

        check_modes(game)
    return game

