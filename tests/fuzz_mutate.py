"""The mutations of the fuzz suite (``tests/fuzz.py``): base games, and what is done to them, deterministically.

A case is a base game (the shipped ones, and the small ones in ``tests/fuzz_games/``
covering every block and both pay modes) and one to three mutations: of any field
of the format (values of every type, huge and negative integers, ``nan``/``inf``,
strings, arrays, tables, deleted and unknown keys), of the ranges the bounds
contract guards (rows taller than the strip, pays past 2⁶³, weights summing past
2⁶³, per-coin lists, caps, ``max_spins``, long strips, many lines), gentle ones
that usually keep the game valid, or of the text itself (truncation, duplicate
keys, a top-level key after a table, nesting thousands deep, a 5,000-digit
integer, bytes that are not UTF-8).
"""

from __future__ import annotations

import functools
import math
import random
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

__all__ = ["CLI_BASES", "SMALL", "corpus", "make_case", "raise_pay"]

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "games"

# --------------------------------------------------------------------------- the base games
SMALL_GAMES = Path(__file__).resolve().parent / "fuzz_games"
"""Small games written for the fuzz: lines with a multiplying wild, a mixed group, weights and a per-option top
award; ways; free spins with retriggers, a cap and a gamble; free spins with a spin limit and a one-coin
per-option list; variable heights; hold and re-spin; multiplier symbols with a flat entry and line-bet scatters."""
SMALL = frozenset(p.stem for p in SMALL_GAMES.glob("*.toml"))


@functools.cache
def corpus() -> dict[str, str]:
    """Every base game of the fuzz: the small ones and the shipped ones, by name."""
    return {p.stem: p.read_text(encoding="utf-8") for folder in (SMALL_GAMES, GAMES, GAMES / "classic")
            for p in sorted(folder.glob("*.toml"))}


CLI_BASES = frozenset(SMALL) | {"classic_3reel", "sizzling_hot", "red_white_blue", "pick_bonus_3reel", "double_sevens",
                                 "line_bet_scatters"}
"""The bases on which a sample of cases also runs the command line (the others take seconds a PAR sheet)."""

# --------------------------------------------------------------------------- mutations
BIG = [2**31, 2**32, 2**53, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64 + 7, 10**18, 10**30]
INTS = [0, -1, 1, 2, 3, 7, -(2**63), *BIG]
FLOATS = [math.nan, math.inf, -math.inf, 0.0, -0.5, 0.5, 1.5, 1e-300, 1e300, 2.0**63]
STRINGS = ["", " ", "A", "ZZ", "W", "S", "base", "free", "1/0", "1e400", "nan", "-1", "0", "a b", "é☃", "x" * 300]
Path_ = list[Any]


def _paths(node: Any, path: Path_, out: list[Path_]) -> None:
    out.append(path)
    if isinstance(node, dict):
        for k, v in node.items():
            _paths(v, [*path, k], out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _paths(v, [*path, i], out)


def _get(data: Any, path: Path_) -> Any:
    for k in path:
        data = data[k]
    return data


def _set(data: Any, path: Path_, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _show(path: Path_) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else (f".{k}" if i else str(k)) for i, k in enumerate(path)) or "."


def _value_for(rng: random.Random, old: Any) -> Any:
    """A replacement for ``old``: mostly of its own type, sometimes of another."""
    kind = rng.random()
    if isinstance(old, bool):
        return rng.choice([not old, 1, "true", [old]])
    if isinstance(old, int) and kind < 0.75:
        return rng.choice([*INTS, old + 1, old - 1, old * 10, -old, old * 2**40])
    if isinstance(old, float) and kind < 0.75:
        return rng.choice(FLOATS)
    if isinstance(old, str) and kind < 0.7:
        words = old.split()
        if len(words) > 1 and rng.random() < 0.5:  # a strip: drop, repeat or replace one stop
            i = rng.randrange(len(words))
            op = rng.choice(["drop", "dup", "zz", "many"])
            if op == "drop":
                words.pop(i)
            elif op == "dup":
                words.insert(i, words[i])
            elif op == "zz":
                words[i] = "ZZ"
            else:
                words = words * rng.choice([10, 1000, 30000])
            return " ".join(words)
        return rng.choice([*STRINGS, old + old, old.lower(), old[:-1]])
    if isinstance(old, list) and kind < 0.7:
        new = list(old)
        op = rng.choice(["empty", "drop", "dup", "junk", "reverse", "nest"])
        if op == "empty":
            return []
        if op == "drop" and new:
            new.pop(rng.randrange(len(new)))
        elif op == "dup" and new:
            new.append(new[rng.randrange(len(new))])
        elif op == "junk":
            new.append(rng.choice([0, "ZZ", [], {}, 2**63, -1]))
        elif op == "reverse":
            new.reverse()
        elif op == "nest":
            return [new]
        return new
    if isinstance(old, dict) and kind < 0.7:
        new = dict(old)
        op = rng.choice(["empty", "drop", "unknown", "misplaced"])
        if op == "empty":
            return {}
        if op == "drop" and new:
            new.pop(rng.choice(list(new)))
        elif op == "unknown":
            new[rng.choice(["extra", "trigerr", "3", "0", "-1", "99999", "rows"])] = rng.choice([1, "x", [1]])
        else:
            new[rng.choice(["cap", "paylines", "declared_rtp", "bet", "name"])] = rng.choice([5000, "x", [1]])
        return new
    return rng.choice([0, -1, 2**63, 1.5, math.nan, "", "ZZ", [], [1, 2], {}, {"a": 1}, True])


def _mutate_value(rng: random.Random, data: dict[str, Any]) -> str:
    paths: list[Path_] = []
    _paths(data, [], paths)
    path = rng.choice(paths[1:])
    if rng.random() < 0.12:
        del _get(data, path[:-1])[path[-1]]
        return f"delete {_show(path)}"
    old = _get(data, path)
    new = _value_for(rng, old)
    _set(data, path, new)
    shown = repr(new) if len(repr(new)) < 60 else repr(new)[:57] + "..."
    return f"{_show(path)} = {shown}"


def _tweak(rng: random.Random, data: dict[str, Any]) -> str:
    """A gentle mutation that usually leaves the game valid: a number nudged, two stops swapped, a stop changed."""
    paths: list[Path_] = []
    _paths(data, [], paths)
    ints = [p for p in paths if isinstance(_get(data, p), int) and not isinstance(_get(data, p), bool)]
    strips = [p for p in paths if len(p) >= 3 and p[0] == "reels" and p[2] == "strips" and isinstance(_get(data, p), str)]
    if strips and (rng.random() < 0.5 or not ints):
        path = rng.choice(strips)
        stops = _get(data, path).split()
        i, j = rng.randrange(len(stops)), rng.randrange(len(stops))
        if rng.random() < 0.5:
            stops[i], stops[j] = stops[j], stops[i]
            what = f"stops {i} and {j} swapped"
        else:
            stops[i] = stops[j]
            what = f"stop {i} = {stops[j]}"
        _set(data, path, " ".join(stops))
        return f"{_show(path)}: {what}"
    if not ints:
        return "(nothing to tweak)"
    path = rng.choice(ints)
    old = _get(data, path)
    new = max(0, old + rng.choice([-2, -1, 1, 1, 2, 3, old]))
    _set(data, path, new)
    return f"{_show(path)} = {new} (was {old})"


def _reel_sets(data: dict[str, Any]) -> list[dict[str, Any]]:
    reels = data.get("reels")
    return [v for v in reels.values() if isinstance(v, dict)] if isinstance(reels, dict) else []


def _mutate_range(rng: random.Random, data: dict[str, Any]) -> str:
    """A mutation aimed at a range of the bounds contract."""
    sets = _reel_sets(data)
    op = rng.choice(["rows", "pay", "scatter", "weights", "coins", "per_option", "cap", "max_spins", "long",
                     "lines", "multiplier", "awards", "ordered", "pick", "unit", "flat", "land", "rtp"])
    if op == "rows" and sets:
        rs = rng.choice(sets)
        rs["rows"] = rng.choice([4, 6, 9, 50, 10**30, [1, 2], 0])
        return f"rows = {rs['rows']!r}"
    if op == "pay" and isinstance(data.get("paytable"), dict) and data["paytable"]:
        name = rng.choice(list(data["paytable"]))
        entry = data["paytable"][name]
        if isinstance(entry, dict) and entry:
            k = rng.choice(list(entry))
            entry[k] = rng.choice(BIG)
            return f"paytable.{name}.{k} = {entry[k]}"
    if op == "scatter":
        sp = data.setdefault("scatter_pays", {})
        if isinstance(sp, dict):
            name = next((n for n, s in data.get("symbols", {}).items() if isinstance(s, dict) and s.get("kind") == "scatter"),
                        "S")
            sp[name] = {"2": rng.choice([2**53 // 3, 2**60, 2**62, 10**16])}
            return f"scatter_pays.{name} = {sp[name]}"
    if op == "weights" and sets:
        rs = rng.choice(sets)
        strips = rs.get("strips")
        if isinstance(strips, list):
            big = rng.choice([2**31, 2**32 - 1, 2**32, 2**62])
            rs["weights"] = [[big] * (len(s.split()) if isinstance(s, str) else 1) for s in strips]
            return f"weights all {big}"
    if op == "coins":
        bet = data.setdefault("bet", {})
        if isinstance(bet, dict):
            bet["coins"] = rng.choice([[3], [1, 2, 3, 4], [10**6], [10**7], [2, 2], [], [0]])
            return f"bet.coins = {bet['coins']}"
    if op == "per_option" and isinstance(data.get("paytable"), dict) and data["paytable"]:
        bet = data.setdefault("bet", {})
        if isinstance(bet, dict):
            bet["coins"] = [3]
            name = rng.choice(list(data["paytable"]))
            entry = data["paytable"][name]
            if isinstance(entry, dict) and entry:
                k = rng.choice(list(entry))
                entry[k] = [rng.choice([5000, 7, 0])]
                for other in data["paytable"].values():  # every other list: one value for the one coin option
                    if isinstance(other, dict):
                        for kk, v in other.items():
                            if isinstance(v, list):
                                other[kk] = v[:1]
                return f"bet.coins = [3], paytable.{name}.{k} = {entry[k]}"
    if op == "cap":
        data["cap"] = rng.choice([2**63, 10**30, 0, -5, 1, 2**53, {"multiple": "1e400"}, {"coins": 2**62},
                                  {"multiple": "nan"}, {"multiple": "1/3"}])
        return f"cap = {data['cap']!r}"
    if op == "max_spins":
        fs = data.get("free_spins")
        if isinstance(fs, dict):
            fs["max_spins"] = rng.choice([2**63, 10**6, 100_000, 5000, 1, 0])
            return f"free_spins.max_spins = {fs['max_spins']}"
    if op == "long" and sets:
        rs = rng.choice(sets)
        strips = rs.get("strips")
        if isinstance(strips, list) and strips and isinstance(strips[0], str):
            n = rng.choice([200, 3000, 120_000])
            r = rng.randrange(len(strips))
            strips[r] = " ".join((strips[r].split() * (n // max(len(strips[r].split()), 1) + 1))[:n])
            rs.pop("weights", None)
            return f"strip {r} of {n} stops"
    if op == "lines":
        lines = data.get("paylines")
        if isinstance(lines, list) and lines and len(lines) < 1000:  # the file stays a few MB
            data["paylines"] = lines * rng.choice([2, 50, 3000])
            return f"paylines × {len(data['paylines']) // len(lines)}"
    if op == "multiplier":
        for s in data.get("symbols", {}).values():
            if isinstance(s, dict) and s.get("kind") == "wild":
                s["multiplier"] = rng.choice([10**4, 10**9, 2**53, 2**63])
                return f"wild multiplier = {s['multiplier']}"
    if op == "awards":
        fs = data.get("free_spins")
        if isinstance(fs, dict):
            fs[rng.choice(["awards", "retriggers"])] = {"3": rng.choice([10**4, 10**5, 10**6, 2**63])}
            return "free spins awards/retriggers huge"
    if op == "ordered" and isinstance(data.get("ordered"), dict) and data["ordered"]:
        name = rng.choice(list(data["ordered"]))
        entry = data["ordered"][name]
        if isinstance(entry, dict):
            symbols = [n for n in data.get("symbols", {}) if isinstance(n, str)]
            what = rng.choice(["short", "long", "unknown", "pay", "count", "wild"])
            reels = entry.get("reels") if isinstance(entry.get("reels"), list) else []
            if what == "short":
                entry["reels"] = reels[:-1]
            elif what == "long":
                entry["reels"] = [*reels, *reels[:1]]
            elif what == "unknown":
                entry["reels"] = [*reels[:-1], "ZZ"]
            elif what == "wild" and symbols:
                entry["reels"] = [rng.choice(symbols) for _ in reels]
            elif what == "count":
                entry["pays"] = {rng.choice(["2", "4", "0", "-1"]): 5}
            else:
                entry["pays"] = {"3": rng.choice([*BIG, [1, 2], [10**19, 1, 1]])}
            return f"ordered.{name} {what}: {entry}"[:120]
    if op == "pick" and isinstance(data.get("pick_bonus"), dict):
        pb = data["pick_bonus"]
        k = rng.choice(["picks", "count", "prizes", "replace", "trigger", "unit", "symbol"])
        pb[k] = {"picks": lambda: rng.choice([0, 1, 12, 13, 64, 10**6, -1]),
                 "count": lambda: rng.choice([0, 1, 2, 4, 9]),
                 "prizes": lambda: rng.choice([{}, {"0": 5}, {"5": 0}, {"-5": 1}, {str(2**62): 3},
                                               {str(i + 1): 7 for i in range(40)}, {"5": 10**6}]),
                 "replace": lambda: rng.choice([True, False, 1]),
                 "trigger": lambda: rng.choice(["line", "window", "scatter", "x"]),
                 "unit": lambda: rng.choice(["line_bet", "total_bet", "bet", "x"]),
                 "symbol": lambda: rng.choice(["ZZ", "CHERRY", ""])}[k]()
        return f"pick_bonus.{k} = {pb[k]!r}"[:120]
    if op == "unit":
        data["scatter_unit"] = rng.choice(["line_bet", "total_bet", "credits", "coin", "", 1])
        if data["scatter_unit"] == "credits" or rng.random() < 0.2:
            data["scatter_bet"] = rng.choice([1, 2, 5, 25, 0, 7, -1, 10**30, "25"])
            return f"scatter_unit = {data['scatter_unit']!r}, scatter_bet = {data['scatter_bet']!r}"
        return f"scatter_unit = {data['scatter_unit']!r}"
    if op == "land":  # issue 30's rules: a wild counting as a scatter, multiplier rule, multiplied own runs, ways rules
        return _mutate_land(rng, data)
    if op == "flat" and isinstance(data.get("paytable"), dict) and data["paytable"]:
        name = rng.choice(list(data["paytable"]))
        entry = data["paytable"][name]
        if isinstance(entry, dict):
            entry["flat"] = rng.choice([True, False, 1, "yes"])
            syms = data.get("symbols", {})
            if isinstance(syms.get(name), dict) and rng.random() < 0.5:  # and a multiplier on the symbol itself
                syms[name]["multiplier"] = rng.choice([0, 1, 2, 5, 10**6, -2, 2**63])
            return f"paytable.{name}.flat = {entry['flat']!r}"
    data["declared_rtp"] = rng.choice(["1e400", "nan", 1e400, "1/3", 0, 2, -1, "0.95"])
    return f"declared_rtp = {data['declared_rtp']!r}"


def _mutate_land(rng: random.Random, data: dict[str, Any]) -> str:
    """One of the land-mechanics fields (issue 30) set to a value good or bad."""
    syms = data.get("symbols") if isinstance(data.get("symbols"), dict) else {}
    wilds = [n for n, s in syms.items() if isinstance(s, dict) and s.get("kind") == "wild"]
    scatters = [n for n, s in syms.items() if isinstance(s, dict) and s.get("kind") == "scatter"]
    what = rng.choice(["as_scatter", "rule", "multiplied", "all_wild", "void_at", "line_symbol"])
    if what == "as_scatter" and syms:
        name = rng.choice(wilds or list(syms))
        value = rng.choice([[rng.choice(scatters)] if scatters else ["ZZ"], ["ZZ"], [], "S", [1], scatters * 2, [name]])
        syms[name]["counts_as_scatter"] = value
        return f"symbols.{name}.counts_as_scatter = {value!r}"
    if what == "multiplied" and isinstance(data.get("paytable"), dict) and data["paytable"]:
        name = rng.choice([n for n in data["paytable"] if n in wilds] or list(data["paytable"]))
        entry = data["paytable"][name]
        if isinstance(entry, dict):
            entry["multiplied"] = rng.choice([True, False, 1, "yes"])
            return f"paytable.{name}.multiplied = {entry['multiplied']!r}"
    if what == "line_symbol":
        data["line_symbol"] = rng.choice(["first", "best", "last", 0])
        return f"line_symbol = {data['line_symbol']!r}"
    if what == "all_wild":
        data["all_wild_ways"] = rng.choice(["void", "pay", "never", 1])
        return f"all_wild_ways = {data['all_wild_ways']!r}"
    if what == "void_at":
        data["void_ways_at_wilds"] = rng.choice([0, 1, 2, 3, 5, 15, -1, 10**6, "3"])
        return f"void_ways_at_wilds = {data['void_ways_at_wilds']!r}"
    data["multiplier_rule"] = rng.choice(["once", "stack", "twice", 2])
    return f"multiplier_rule = {data['multiplier_rule']!r}"


def _mutate_text(rng: random.Random, text: str) -> tuple[bytes, str]:
    """A mutation of the text: what a value-level edit cannot produce."""
    lines = text.splitlines()
    op = rng.choice(["truncate", "drop_line", "dup_line", "misplaced", "deep", "digits", "bytes", "swap", "garbage"])
    if op == "truncate":
        cut = rng.randrange(len(text) + 1)
        return text[:cut].encode(), f"truncated at {cut}"
    if op == "drop_line" and lines:
        i = rng.randrange(len(lines))
        return "\n".join(lines[:i] + lines[i + 1:]).encode(), f"line {i + 1} deleted"
    if op == "dup_line" and lines:
        i = rng.randrange(len(lines))
        return "\n".join(lines[: i + 1] + lines[i:]).encode(), f"line {i + 1} written twice"
    if op == "misplaced":
        key = rng.choice(["cap = 5000", "declared_rtp = 0.95", "paylines = [[0, 0, 0]]", 'default_reels = "base"'])
        headers = [i for i, s in enumerate(lines) if s.startswith("[")]
        i = rng.choice(headers) if headers else 0
        return "\n".join([*lines[:i + 1], key, *lines[i + 1:]]).encode(), f"{key!r} after line {i + 1}"
    if op == "deep":
        depth = rng.choice([40, 3000, 20000])
        return (text + f"\nfuzz_deep = {'[' * depth}1{']' * depth}\n").encode(), f"nesting {depth} deep"
    if op == "digits":
        return text.replace("= 1", "= " + "9" * rng.choice([30, 5000]), 1).encode(), "a huge integer literal"
    if op == "bytes":
        data = bytearray(text.encode())
        pos = rng.randrange(len(data) + 1)
        data[pos:pos] = rng.choice([b"\xff\xfe", b"\x00", b"\xc3", b"\x80abc"])
        return bytes(data), f"bytes at {pos}"
    if op == "swap" and len(lines) > 2:
        i, j = sorted(rng.sample(range(len(lines)), 2))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines).encode(), f"lines {i + 1} and {j + 1} swapped"
    pos = rng.randrange(len(text) + 1)
    junk = rng.choice(["]", "[", "=", '"', "{", ",,", "\n[[reels]]\n", "\nx.y.z = 1\n", "\n[paytable.A]\n3 = 1\n"])
    return (text[:pos] + junk + text[pos:]).encode(), f"{junk!r} at {pos}"


def make_case(seed: int, family: str, index: int) -> tuple[str, bytes, list[str]]:
    """Case ``index`` of ``family`` (:mod:`fuzz_families`) in run ``seed``: its base game, its bytes and the
    mutations applied (deterministic)."""
    from fuzz_families import family as family_of

    rng = random.Random(f"{seed}:{family}:{index}")
    games = corpus()
    fam = family_of(family)
    weights = fam.bases
    base = rng.choices(list(weights), weights=list(weights.values()))[0]
    text = games[base]
    if rng.random() < 0.15:
        out, what = _mutate_text(rng, text)
        return base, out, [what]
    data = tomllib.loads(text)
    done = []
    gentle = rng.random() < fam.gentle
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        try:
            if gentle:
                done.append(_tweak(rng, data))
            else:
                done.append(_mutate_range(rng, data) if rng.random() < 0.35 else _mutate_value(rng, data))
        except (AttributeError, TypeError, KeyError, IndexError, ValueError):  # an earlier mutation changed the shape
            done.append("(a mutation that no longer applies)")
    try:
        text = tomli_w.dumps(data)
    except (TypeError, ValueError, RecursionError) as exc:  # not writable as TOML: the text route instead
        out, what = _mutate_text(rng, games[base])
        return base, out, [f"(unwritable: {type(exc).__name__})", what]
    if rng.random() < 0.1:
        out, what = _mutate_text(rng, text)
        return base, out, [*done, what]
    return base, text.encode(), done




def raise_pay(rng: random.Random, data: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A copy of game ``data`` with one pay raised by one credit (each coin option's, for a per-option list), and
    which; ``None`` when the game has no pay to raise."""
    cells = [("paytable", name, count) for name, entry in data.get("paytable", {}).items() if isinstance(entry, dict)
             for count, pay in entry.items() if isinstance(pay, int | list) and not isinstance(pay, bool)]
    cells += [("scatter_pays", name, count) for name, entry in data.get("scatter_pays", {}).items()
              if isinstance(entry, dict) for count, pay in entry.items() if isinstance(pay, int | list)
              and not isinstance(pay, bool)]
    if not cells:
        return None
    table, name, count = rng.choice(cells)
    out = tomllib.loads(tomli_w.dumps(data))
    pay = out[table][name][count]
    out[table][name][count] = [p + 1 for p in pay] if isinstance(pay, list) else pay + 1
    return out, f"{table}.{name}.{count} + 1"
