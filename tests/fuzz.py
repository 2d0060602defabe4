"""The fuzz suite: mutated game files loaded in-process, each PAR sheet computed under a time limit.

Every case starts from a game (the shipped ones and a few small ones written
here, covering every block and both pay modes), applies one to three
mutations — to any field of the format (values of every type, huge and
negative integers, ``nan``/``inf``, strings, arrays, tables, deleted and
unknown keys), to the numeric ranges the bounds contract guards (rows taller
than the strip, pays past 2⁶³, weights summing past 2⁶³, per-coin lists, caps,
``max_spins``, long strips, many lines) or to the text itself (truncation,
duplicate keys, a top-level key after a table, nesting thousands deep, a
5,000-digit integer, bytes that are not UTF-8) — writes the file and loads it
with :func:`mathkit.io.load_game`.  What must hold:

* every failure is a :class:`~mathkit.errors.GameError` or
  :class:`~mathkit.errors.ModelError` naming the file and a field; no other
  exception, no crash, no hang (a worker past the time limit is killed);
* every accepted file round-trips (dump, load: an equal game) and gives a PAR
  sheet whose invariants hold (:func:`check_par`), equal to the brute-force
  evaluator (``tests/brute.py``) on the base spin of small games;
* on a sample of cases the command line (``mathkit par --json``) exits 0 or 2,
  without a traceback.

Cases run in worker processes (``spawn``) under tight resource limits
(:data:`LIMITS`), so a large computation is refused in time rather than run.
``python tests/fuzz.py --count 10000`` (``make fuzz``) prints the counts by
outcome and failure class and the run time; ``--case N`` replays one case in
this process with its traceback.  ``tests/test_fuzz.py`` runs a small count.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "games"
LIMITS = {"MATHKIT_MAX_WORK": "3e8", "MATHKIT_MAX_MEMORY": "1G", "MATHKIT_MAX_STATES": "20000",
          "MATHKIT_MAX_SPINS": "1e7"}
"""Resource limits in the workers: what passes them finishes in a second or two."""
BRUTE_MAX = 30_000
"""Outcomes × lines up to which the base spin is compared with the brute-force evaluator."""
CLI_EVERY = 10
"""One case in this many also runs ``mathkit par --json`` in-process."""

# --------------------------------------------------------------------------- small games
SMALL_LINES = """
name = "Fuzz lines"
description = "3x3, wild x2, mixed, scatter pays, weights, per-option top award"
declared_rtp = 0.9
paylines = [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2], [2, 1, 0]]
[bet]
lines = 5
line_options = [1, 3, 5]
coins = [1, 2, 5]
coin_value = "1/4"
[symbols.W]
kind = "wild"
substitutes = "all"
pays = true
multiplier = 2
reels = [2, 3]
[symbols.A]
[symbols.B]
[symbols.C]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 3
strips = ["A B C S A B C A", "A W B C S B C A", "C B W A S A B C"]
weights = [[1, 2, 1, 1, 3, 1, 2, 1], [2, 1, 1, 1, 1, 2, 1, 1], [1, 1, 2, 1, 1, 1, 1, 3]]
[paytable]
W = { 3 = [50, 100, 400] }
A = { 3 = 10, 2 = 1 }
B = { 3 = 5 }
C = { 3 = 2 }
[mixed.AB]
symbols = ["A", "B"]
pays = { 3 = 1 }
[scatter_pays]
S = { 2 = 1, 3 = 5 }
"""

SMALL_WAYS = """
name = "Fuzz ways"
pay_mode = "ways"
[bet]
lines = 10
coins = [1, 2]
[symbols.W]
kind = "wild"
multiplier = 2
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[reels.base]
rows = [2, 3, 2]
strips = ["A B S A B", "W A B A S B", "A B W B A"]
[paytable]
A = { 3 = 4, 2 = 1 }
B = { 3 = 2 }
[scatter_pays]
S = { 2 = 3 }
"""

SMALL_FREE = """
name = "Fuzz free spins"
description = "free spins with retriggers, a cap of 200x and a gamble"
paylines = [[1, 1, 1, 1], [0, 0, 0, 0], [2, 2, 2, 2]]
[bet]
lines = 3
coins = [1, 3]
[symbols.W]
kind = "wild"
substitutes = ["A", "B"]
[symbols.A]
[symbols.B]
[symbols.C]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 3
strips = ["A B S C A", "B W C A B", "S A B C W", "C A S B A"]
[reels.free]
rows = 3
strips = ["A S B C A B C B", "W B S A C A B C", "S A W C B A C A", "A C B B C A W B"]
[paytable]
A = { 4 = 20, 3 = 5 }
B = { 4 = 10, 3 = 2 }
C = { 3 = 1 }
[scatter_pays]
S = { 3 = 2 }
[free_spins]
trigger = "S"
awards = { 3 = 5 }
retriggers = { 3 = 2 }
reels = "free"
multiplier = 2
multiply_scatter = true
[cap]
multiple = 200
[gamble]
max_gambles = 3
limit = 500
options = [{ name = "colour", multiplier = 2, p = "1/2" }]
"""

SMALL_LIMITED = """
name = "Fuzz limited free spins"
description = "max win capped at 10000x"
paylines = [[0, 0, 0], [1, 1, 1]]
cap = 10000
[bet]
lines = 2
coins = [3]
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 2
strips = ["A B S B", "B A S A", "S A B A"]
[reels.free]
rows = 2
strips = ["A S B", "S A B", "B S A"]
[paytable]
A = { 3 = [50] }
B = { 3 = 3, 2 = 1 }
[free_spins]
trigger = "S"
awards = { 2 = 3, 3 = 6 }
retriggers = { 2 = 1, 3 = 3 }
reels = "free"
max_spins = 12
"""

SMALL_HEIGHTS = """
name = "Fuzz heights"
paylines = [[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [2, 2, 2], [0, 1, 2]]
[bet]
lines = 6
total = 6
[symbols.A]
[symbols.B]
[symbols.C]
[reels.base]
rows = 3
strips = ["A B C A", "B C A B", "C A B C"]
[paytable]
A = { 3 = 10 }
B = { 3 = 5 }
C = { 3 = 2 }
[variable_heights]
heights = { 2 = 3, 3 = 1 }
lines_per_row = 2
"""

SMALL_HOLD = """
name = "Fuzz hold and re-spin"
paylines = [[0, 0, 0]]
[symbols.A]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 1
strips = ["A S A", "S A A", "A A S"]
[paytable]
A = { 3 = 5 }
[hold_respin]
symbol = "S"
count = 2
"""

SMALL = {"small_lines": SMALL_LINES, "small_ways": SMALL_WAYS, "small_free": SMALL_FREE,
         "small_limited": SMALL_LIMITED, "small_heights": SMALL_HEIGHTS, "small_hold": SMALL_HOLD}


def corpus() -> dict[str, str]:
    """Every base game of the fuzz: the small ones above and the shipped ones."""
    out = dict(SMALL)
    for p in sorted(GAMES.glob("*.toml")):
        out[p.stem] = p.read_text(encoding="utf-8")
    return out


# Shipped games are larger: they are picked less often (weights per base).
WEIGHTS = {"small_lines": 12, "small_ways": 8, "small_free": 12, "small_limited": 8, "small_heights": 5,
           "small_hold": 2, "classic_3reel": 6, "sizzling_hot": 4, "benchmark_5x3": 2, "dynasty_small": 4, "dynasty": 1}
CLI_BASES = frozenset(SMALL) | {"classic_3reel", "sizzling_hot"}
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
                     "lines", "multiplier", "awards", "rtp"])
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
        if isinstance(lines, list) and lines:
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
    data["declared_rtp"] = rng.choice(["1e400", "nan", 1e400, "1/3", 0, 2, -1, "0.95"])
    return f"declared_rtp = {data['declared_rtp']!r}"


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


def make_case(seed: int, index: int) -> tuple[str, bytes, list[str]]:
    """Case ``index`` of run ``seed``: its base game, its bytes and the mutations applied (deterministic)."""
    import tomllib

    import tomli_w

    rng = random.Random(f"{seed}:{index}")
    games = corpus()
    base = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
    text = games[base]
    if rng.random() < 0.15:
        out, what = _mutate_text(rng, text)
        return base, out, [what]
    data = tomllib.loads(text)
    done = []
    gentle = rng.random() < 0.35
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


# --------------------------------------------------------------------------- invariants
def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def check_par(par: Any) -> list[str]:
    """The invariants of one PAR sheet; the list of those violated (empty: all hold)."""
    bad: list[str] = []
    bet = par.total_bet
    comps = par.components
    if par.rtp.exact is not None and all(f.exact is not None for f in comps.values()):
        if sum(f.exact for f in comps.values()) != par.rtp.exact:
            bad.append("breakdown does not sum to the RTP exactly")
    elif not _close(math.fsum(f.value for f in comps.values()), par.rtp.value, 1e-9):
        bad.append("breakdown does not sum to the RTP")
    for name, f in comps.items():
        if not math.isfinite(f.value) or (f.value < -1e-12 if name != "cap" else f.value > 1e-12):
            bad.append(f"component {name} = {f.value}")
    if not (math.isfinite(par.rtp.value) and par.rtp.value >= 0):
        bad.append(f"RTP {par.rtp.value}")
    probs = [("hit frequency", par.hit_frequency), ("hit frequency ≥ bet", par.hit_frequency_bet),
             ("P(max win)", par.max_win_probability), *((f"P(win ≥ {m}× bet)", f) for m, f in par.tails.items())]
    for section in par.features:
        probs += [(f"{section.name}: {n}", f) for n, f in section.figures
                  if n.startswith("P(") or "probability" in n]
    for name, f in probs:
        if not (0 <= f.value <= 1 + 1e-12):
            bad.append(f"{name} = {f.value} outside [0, 1]")
    if not (math.isfinite(par.sd.value) and par.sd.value >= 0):
        bad.append(f"σ = {par.sd.value}")
    d = par.distribution
    p = d.probs()
    if (d.values < 0).any() or (p < 0).any():
        bad.append("negative win or probability in the distribution")
    if not _close(float(p.sum()) + d.lost_mass, 1.0, 1e-9):
        bad.append(f"distribution sums to {float(p.sum())} + lost {d.lost_mass}")
    if not _close(par.max_win.value, d.max_win / bet, 1e-12):
        bad.append(f"max win {par.max_win.value} is not the distribution's top {d.max_win / bet}")
    cap = par.cap.value if par.cap is not None else math.inf
    for e in par.entries:
        if e.hits and min(e.pay / bet, cap) > par.max_win.value * (1 + 1e-12):
            bad.append(f"max win {par.max_win.value} below the pay of {e.count} × {e.entry} ({e.pay / bet})")
        lines = par.lines if e.component == "lines" else 1
        if e.hits and e.probability.value / lines > par.hit_frequency.value * (1 + 1e-9):
            bad.append(f"hit frequency {par.hit_frequency.value} below P({e.count} × {e.entry})")
    if not _close(float(d.hit_frequency()), par.hit_frequency.value, 1e-12):
        bad.append("hit frequency differs from the distribution's P(win > 0)")
    if not _close(float(d.sf(bet)), par.hit_frequency_bet.value, 1e-12):
        bad.append("hit frequency ≥ bet differs from the distribution")
    if d.exact and par.rtp.exact is not None and d.rtp() != par.rtp.exact:
        bad.append("the exact distribution's mean is not the RTP")
    elif not d.exact and d.lost_mass == 0 and not _close(float(d.rtp()), par.rtp.value, 1e-6):
        bad.append(f"the distribution's mean {float(d.rtp())} is not the RTP {par.rtp.value}")
    if par.cycle != par.game.reel_set(par.reels).cycle:
        bad.append("cycle differs from the reel set's")
    return bad


def check_brute(par: Any) -> list[str]:
    """The base spin of a small game against the brute-force evaluator (hits, credits, distribution)."""
    from brute import brute_force

    game, base = par.game, par.base
    if base.cycle * max(base.lines, 1) > BRUTE_MAX:
        return []
    b = brute_force(game, base.reels, lines=base.lines, coins=base.coins)
    bad = []
    if base.components.cycle != b.cycle or base.rtp() != b.rtp():
        bad.append(f"base RTP {base.rtp()} differs from brute force {b.rtp()}")
    got = {w: int(c) for w, c in zip(base.win_distribution.values.tolist(), base.win_distribution.weights.tolist(),
                                     strict=True)}
    if got != {w: c for w, c in b.distribution.items() if c}:
        bad.append("base win distribution differs from brute force")
    return bad


# --------------------------------------------------------------------------- one case
def _located(exc: Exception, path: Path) -> bool:
    return bool(getattr(exc, "path", None) == str(path) and getattr(exc, "field", ""))


def _cli(path: Path) -> str | None:
    """``mathkit par FILE --json`` in-process: a problem, or ``None``."""
    from mathkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["par", str(path), "--json"])
    if status not in (0, 2) or "Traceback" in err.getvalue() or "internal error" in err.getvalue():
        return f"cli status {status}: {err.getvalue()[-300:]}"
    if status == 0:
        json.loads(out.getvalue())
    return None


def run_case(seed: int, index: int, folder: Path) -> dict[str, Any]:
    """Make, load and analyse case ``index``; the outcome as a JSON-ready dict."""
    from mathkit.errors import GameError, LimitError, ModelError
    from mathkit.io import dump_game, load_game, loads_game
    from mathkit.par import build_par

    base, data, mutations = make_case(seed, index)
    path = folder / f"case_{index}.toml"
    path.write_bytes(data)
    out: dict[str, Any] = {"case": index, "base": base, "mutations": mutations}
    start = time.perf_counter()
    cpu0 = time.process_time()
    try:
        try:
            game = load_game(path)
        except GameError as exc:
            out["outcome"] = "refused on load" if _located(exc, path) else "FAIL: unlocated error"
            head = exc.field.split(".")[0].split("[")[0] or "(no field)"
            out["class"] = "(the text, by line)" if head.startswith("line ") else head
            out["message"] = str(exc)[:300]
            return out
        again = loads_game(dump_game(game))
        if again != game:
            out["outcome"], out["class"] = "FAIL: invariant", "round trip"
            return out
        try:
            par = build_par(game, parallel=False)
        except (GameError, ModelError) as exc:
            kind = "limit" if isinstance(exc, LimitError) else type(exc).__name__
            out["outcome"] = f"refused by the {kind}" if _located(exc, path) else "FAIL: unlocated error"
            out["class"] = kind
            out["message"] = str(exc)[:300]
            return out
        bad = check_par(par) + check_brute(par)
        if bad:
            out["outcome"], out["class"], out["message"] = "FAIL: invariant", bad[0], "; ".join(bad)[:500]
        else:
            out["outcome"] = "accepted"
        if index % CLI_EVERY == 0 and base in CLI_BASES:
            problem = _cli(path)
            if problem:
                out["outcome"], out["class"], out["message"] = "FAIL: cli", "cli", problem
    except Exception as exc:
        out["outcome"], out["class"] = "FAIL: traceback", type(exc).__name__
        out["message"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        out["traceback"] = traceback.format_exc()[-2000:]
    finally:
        out["seconds"] = time.perf_counter() - start
        out["cpu"] = time.process_time() - cpu0
        path.unlink(missing_ok=True)
    return out


def _worker(conn: Connection, seed: int, folder: str) -> None:
    os.environ.update(LIMITS)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    while True:
        index = conn.recv()
        if index is None:
            return
        conn.send(run_case(seed, index, Path(folder)))


# --------------------------------------------------------------------------- the run
def _describe(seed: int, case: int) -> dict[str, Any]:
    base, _, mutations = make_case(seed, case)
    return {"base": base, "mutations": mutations}


def _cpu(proc: Any) -> float:
    """CPU seconds a worker has used (user + system, all its threads)."""
    import psutil

    try:
        t = psutil.Process(proc.pid).cpu_times()
    except psutil.Error:
        return 0.0
    return float(t.user + t.system)


class _Pool:
    """Worker processes started here, one case at a time each; a worker past the time limit is killed."""

    def __init__(self, n: int, seed: int, folder: str) -> None:
        self.ctx = mp.get_context("spawn")
        self.seed, self.folder = seed, folder
        self.workers: list[tuple[Any, Connection]] = [self._start() for _ in range(n)]

    def _start(self) -> tuple[Any, Connection]:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.seed, self.folder), daemon=True)
        proc.start()
        child.close()
        return proc, parent

    def replace(self, i: int) -> None:
        proc, conn = self.workers[i]
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        conn.close()
        self.workers[i] = self._start()

    def close(self) -> None:
        for proc, conn in self.workers:
            with contextlib.suppress(OSError, BrokenPipeError):
                conn.send(None)
            proc.join(5)
            if proc.is_alive():
                proc.kill()


def run_fuzz(count: int, *, seed: int = 0, workers: int = 2, timeout: float = 20.0, start: int = 0,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run cases ``start .. start+count-1``; counts by outcome and class, the failures, the run time.

    A case is a hang when its worker uses more than ``timeout`` CPU seconds on it, or more
    than five times that in wall time (the machine is shared: CPU time is what a case costs).
    """
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mathkit-fuzz-") as folder:
        pool = _Pool(workers, seed, folder)
        todo = list(range(start, start + count))
        busy: dict[int, tuple[int, float, float]] = {}  # worker -> (case, wall start, cpu at start)
        try:
            while todo or busy:
                for i in range(len(pool.workers)):
                    if i not in busy and todo:
                        case = todo.pop(0)
                        pool.workers[i][1].send(case)
                        busy[i] = (case, time.perf_counter(), _cpu(pool.workers[i][0]))
                conns = {pool.workers[i][1]: i for i in busy}
                ready = wait(list(conns), timeout=0.2)
                for conn in ready:
                    i = conns[conn]  # type: ignore[index]
                    case, _, _ = busy.pop(i)
                    try:
                        results.append(conn.recv())  # type: ignore[union-attr]
                    except (EOFError, OSError):
                        code = pool.workers[i][0].exitcode
                        results.append({"case": case, "outcome": "FAIL: crash", "class": f"exit {code}",
                                        **_describe(seed, case)})
                        pool.replace(i)
                    if progress:
                        progress(len(results), count)
                now = time.perf_counter()
                for i, (case, wall, cpu) in list(busy.items()):
                    used = _cpu(pool.workers[i][0]) - cpu
                    if used > timeout or now - wall > 5 * timeout:
                        busy.pop(i)
                        results.append({"case": case, "outcome": "FAIL: hang",
                                        "class": f"over {timeout:g} s ({used:.0f} s CPU, {now - wall:.0f} s wall)",
                                        **_describe(seed, case)})
                        pool.replace(i)
        finally:
            pool.close()
    outcomes = Counter(r["outcome"] for r in results)
    classes = Counter(f"{r['outcome']} — {r.get('class', '')}" for r in results)
    fails = [r for r in results if r["outcome"].startswith("FAIL")]
    slow = sorted((r for r in results if "cpu" in r), key=lambda r: -r["cpu"])[:5]
    samples: dict[str, list[str]] = {}
    for r in results:
        if r.get("message"):
            samples.setdefault(f"{r['outcome']} — {r.get('class', '')}", []).append(r["message"])
    return {"count": len(results), "seed": seed, "seconds": time.perf_counter() - t0, "outcomes": dict(outcomes),
            "classes": dict(classes), "failures": fails, "slowest": [(r["case"], round(r["cpu"], 2), round(r["seconds"], 2)) for r in slow],
            "cpu": sum(r.get("cpu", 0.0) for r in results),
            "samples": {k: v[:3] for k, v in samples.items()}}


def report(res: dict[str, Any]) -> str:
    """The run's summary as text."""
    lines = [f"{res['count']:,} mutated game files (seed {res['seed']}) in {res['seconds']:.0f} s "
             f"({res['count'] / max(res['seconds'], 1e-9):.1f} files/s)"]
    for k, v in sorted(res["outcomes"].items()):
        lines.append(f"  {k:<34} {v:>6,}")
    lines.append("by class:")
    for k, v in sorted(res["classes"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {v:>6,}  {k}")
    lines.append(f"CPU time in the cases: {res['cpu']:.0f} s; slowest (case, CPU s, wall s): {res['slowest']}")
    failures = res["failures"]
    lines.append(f"failures: {len(failures)}")
    for r in failures[:30]:
        lines.append(f"  case {r['case']} [{r.get('base')}] {r['outcome']} {r.get('class', '')}: {r.get('mutations')}")
        if r.get("message"):
            lines.append(f"      {r['message'][:300]}")
    return "\n".join(lines)


def _replay(seed: int, case: int) -> None:
    """Run one case in this process, with the limits, and print everything."""
    os.environ.update(LIMITS)
    base, _data, mutations = make_case(seed, case)
    print(f"case {case}: base {base}; mutations {mutations}")
    with tempfile.TemporaryDirectory() as folder:
        res = run_case(seed, case, Path(folder))
    print(json.dumps({k: v for k, v in res.items() if k != "traceback"}, indent=2, default=str))
    print(res.get("traceback", ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Fuzz mathkit with mutated game files.")
    p.add_argument("--count", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it counts as a hang")
    p.add_argument("--case", type=int, help="replay one case in this process")
    p.add_argument("--json", type=Path, help="also write the full result as JSON")
    args = p.parse_args(argv)
    if args.case is not None:
        _replay(args.seed, args.case)
        return 0

    def tick(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done:,}/{total:,}", file=sys.stderr, flush=True)

    res = run_fuzz(args.count, seed=args.seed, workers=args.workers, timeout=args.timeout, start=args.start,
                   progress=tick)
    print(report(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())

