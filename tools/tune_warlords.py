"""Design Warlords – Crystals of Power and tune it to a total RTP of 96.89% (exact, every feature and the cap included).

Usage::

    PYTHONPATH=. .venv/bin/python tools/tune_warlords.py [--write]

How it works (honest means only: the strips and pays are ours, the maths is exact)
---------------------------------------------------------------------------------
On unweighted circular strips every window row shows each symbol in proportion to
its count on the reel, so every line figure — the base game's, the overlay spins'
(a line's mean under forced wilds depends only on the reels where it crosses one),
the free spins' — depends only on the symbol counts per reel; the scatter laws
depend only on the counts too while scatters stay at least 3 stops apart (a reel
then shows at most one, in each row alike).  The design is therefore held as
counts per reel set and reel (:data:`DESIGN`), laid out by :func:`layout` (stacks
of the stacked symbols, scatters spread out, the rest interleaved deterministically).

The tuner moves one stop at a time on the base reels — one low symbol (a card)
replaced by another, lengths unchanged — while the RTP of the whole round
(:func:`mathkit.round.analyse` in floating point: a fraction of a second) gets
closer to the target, then checks the result exactly (the Fraction, the cap's
bound) and writes the game file with its readings.  The symbol hierarchy, the
stacks, the scatter counts and the feature design are never touched by it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from mathkit.gamefile.io import game_from_dict, loads_game
from mathkit.model.game import Game
from mathkit.round import analyse

TARGET = Fraction(9689, 10000)
TOL = Fraction(5, 100_000)  # ±0.005 percentage points
OUT = Path(__file__).resolve().parents[1] / "data" / "games" / "warlords.toml"

WARRIORS = ("BARBARIAN", "PRIESTESS", "SAMURAI")
ANIMALS = ("WOLF", "EAGLE", "TIGER")
CARDS = ("A", "K", "Q", "J", "TEN")
REGULAR = WARRIORS + ANIMALS + CARDS
SCATTERS = ("BLUE", "GREEN", "RED")
PAYTABLE: dict[str, dict[int, int]] = {
    "BARBARIAN": {3: 50, 4: 150, 5: 500},
    "PRIESTESS": {3: 40, 4: 120, 5: 400},
    "SAMURAI": {3: 30, 4: 100, 5: 300},
    "WOLF": {3: 20, 4: 60, 5: 200},
    "EAGLE": {3: 15, 4: 50, 5: 150},
    "TIGER": {3: 15, 4: 40, 5: 125},
    "A": {3: 10, 4: 25, 5: 100},
    "K": {3: 8, 4: 20, 5: 80},
    "Q": {3: 5, 4: 15, 5: 60},
    "J": {3: 5, 4: 12, 5: 50},
    "TEN": {3: 5, 4: 10, 5: 40},
}
PAYLINES = [
    [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2],
    [1, 0, 0, 0, 1], [1, 2, 2, 2, 1], [0, 0, 1, 2, 2], [2, 2, 1, 0, 0], [1, 2, 1, 0, 1],
    [1, 0, 1, 2, 1], [0, 1, 1, 1, 0], [2, 1, 1, 1, 2], [0, 1, 0, 1, 0], [2, 1, 2, 1, 2],
    [1, 1, 0, 1, 1], [1, 1, 2, 1, 1], [0, 0, 2, 0, 0], [2, 2, 0, 2, 2], [0, 2, 2, 2, 0],
    [2, 0, 0, 0, 2], [1, 0, 2, 0, 1], [1, 2, 0, 2, 1], [0, 2, 0, 2, 0], [2, 0, 2, 0, 2],
    [0, 2, 1, 2, 0], [2, 0, 1, 0, 2], [1, 0, 1, 0, 1], [1, 2, 1, 2, 1], [0, 1, 2, 2, 2],
]

Counts = list[dict[str, int]]
# Symbol counts per reel, per reel set (hand design; the tuner moves single card stops of the base reels).
EDGE = {"BARBARIAN": 3, "PRIESTESS": 3, "SAMURAI": 3, "WOLF": 4, "EAGLE": 4, "TIGER": 5,
        "A": 5, "K": 5, "Q": 6, "J": 6, "TEN": 6}
MIDDLE = {"WILD": 7, "BARBARIAN": 6, "PRIESTESS": 6, "SAMURAI": 6, "WOLF": 6, "EAGLE": 6, "TIGER": 6,
          "A": 7, "K": 7, "Q": 7, "J": 7, "TEN": 7}
CARDS_ONLY = {"BARBARIAN": 2, "PRIESTESS": 2, "SAMURAI": 2, "WOLF": 3, "EAGLE": 3, "TIGER": 3,
              "A": 5, "K": 5, "Q": 6, "J": 6, "TEN": 6}
DESIGN: dict[str, Counts] = {
    # reels 2-4 carry two scatter types each, so every battle can happen (BLUE on 2 and 4, GREEN on 2 and 3, RED on 3 and 4)
    # (the tuner's moves are written in)
    "base": [{**EDGE, "Q": 5, "K": 6}, {**MIDDLE, "WILD": 8, "WOLF": 8, "TEN": 4, "Q": 6, "J": 7, "A": 8, "BLUE": 1,
                                        "GREEN": 1},
             {**MIDDLE, "WOLF": 8, "TEN": 5, "J": 6, "A": 7, "Q": 8, "GREEN": 1, "RED": 1},
             {**MIDDLE, "WOLF": 8, "TEN": 5, "J": 6, "A": 8, "RED": 1, "BLUE": 1},
             {**EDGE, "J": 5, "Q": 7}],
    "overlay": [dict(CARDS_ONLY) for _ in range(5)],
    "respin": [{"BLUE": 2, "GREEN": 1, "RED": 1, "BARBARIAN": 3, "PRIESTESS": 3, "SAMURAI": 3, "WOLF": 3, "EAGLE": 3,
                "TIGER": 3, "A": 4, "K": 4, "Q": 4, "J": 4, "TEN": 4} for _ in range(5)],
    "barbarian": [{"BARBARIAN": 5, "PRIESTESS": 6, "SAMURAI": 7, "WOLF": 7, "EAGLE": 7, "TIGER": 8},
                  {"BARBARIAN": 5, "PRIESTESS": 6, "SAMURAI": 7, "WOLF": 7, "EAGLE": 7, "TIGER": 8},
                  {"BLUE": 1, "BARBARIAN": 5, "PRIESTESS": 6, "SAMURAI": 7, "WOLF": 7, "EAGLE": 7, "TIGER": 7},
                  {"BARBARIAN": 5, "PRIESTESS": 6, "SAMURAI": 7, "WOLF": 7, "EAGLE": 7, "TIGER": 8},
                  {"BARBARIAN": 5, "PRIESTESS": 6, "SAMURAI": 7, "WOLF": 7, "EAGLE": 7, "TIGER": 8}],
    "priestess": [dict(EDGE),
                  *({"GREEN": 1, "WILD": 4, "BARBARIAN": 4, "PRIESTESS": 4, "SAMURAI": 4, "WOLF": 4, "EAGLE": 4,
                     "TIGER": 4, "A": 4, "K": 4, "Q": 4, "J": 4, "TEN": 4} for _ in range(3)),
                  dict(EDGE)],
    "samurai": [dict(CARDS_ONLY),
                *({"RED": 1, "BARBARIAN": 1, "PRIESTESS": 1, "SAMURAI": 2, "WOLF": 2, "EAGLE": 2,
                   "TIGER": 3, "A": 5, "K": 6, "Q": 7, "J": 7, "TEN": 7} for _ in range(3)),
                dict(CARDS_ONLY)],
}
# Stacks: a symbol's stops on a reel are laid out in runs of this length (where the count allows).
STACKS: dict[str, dict[str, int]] = {
    "base": {"WILD": 3, "BARBARIAN": 3, "PRIESTESS": 3, "SAMURAI": 3},
    "overlay": {},
    "respin": {},
    "barbarian": {"BARBARIAN": 2, "PRIESTESS": 2, "SAMURAI": 2},
    "priestess": {"PRIESTESS": 2},
    "samurai": {"SAMURAI": 2},
}

OVERLAY = {
    "probability": "1/45", "reels": "overlay", "symbol": "WILD",
    "types": [
        {"name": "Barbarian Hammer", "weight": 40, "shape": "square", "size": 2, "reels": [1, 2, 3, 4]},
        {"name": "Priestess Arrow", "weight": 35, "shape": "cells", "counts": {"2": 40, "3": 30, "4": 20, "5": 10},
         "reels": [1, 2, 3, 4, 5]},
        {"name": "Samurai Sword", "weight": 25, "shape": "cells", "counts": {"2": 40, "3": 30, "4": 20, "5": 10},
         "reels": [1, 2, 3, 4]},
    ],
}
FINAL_CHANCE = {"coins": {"3": 50, "5": 30, "10": 12, "20": 5, "50": 2, "100": 1}, "scatter": 100, "reels": [1, 2, 3, 4, 5]}

DESCRIPTION = (
    "Warlords – Crystals of Power: 5 reels × 3 rows, 30 fixed lines, stacked symbols, a Wild, three scatter types "
    "(blue Barbarian, green Priestess, red Samurai) on reels 2–4 of the main game, Random Overlay Wilds, battle, "
    "re-spins, final chance and three free-spin games. The maximum total win of a round is capped at 100,000 coins "
    "× the bet level (3,333⅓ × the total bet). Strips and paytable are our design (none are published), tuned to "
    "the stated RTP of 96.89%."
)


def _reels_of(design: dict[str, Counts], reel_set: str, symbol: str) -> str:
    """'reels 2–4' (1-based) where ``symbol`` is on the design's reel set ``reel_set``."""
    on = [r + 1 for r, c in enumerate(design[reel_set]) if c.get(symbol, 0)]
    if len(on) == 1:
        return f"reel {on[0]}"
    if on == list(range(on[0], on[-1] + 1)):
        return f"reels {on[0]}–{on[-1]}"
    return "reels " + ", ".join(map(str, on))


def _per_reel(design: dict[str, Counts], reel_set: str, symbols: tuple[str, ...]) -> str:
    """'two BLUE, one GREEN and one RED on every reel' from the design's counts (the same on every reel)."""
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    counts = [[c.get(s, 0) for s in symbols] for c in design[reel_set]]
    assert all(c == counts[0] for c in counts), f"{reel_set}: the scatter counts differ by reel"
    parts = [f"{words.get(n, str(n))} {s}" for s, n in zip(symbols, counts[0], strict=True) if n]
    return (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]) + " on every reel"


def _either(xs: list[str]) -> str:
    return ", ".join(xs[:-1]) + " or " + xs[-1] if len(xs) > 1 else xs[0]


def _weights(law: dict[str, int]) -> str:
    return "/".join(str(w) for w in law.values())


def _readings(design: dict[str, Counts]) -> list[tuple[str, str, str]]:
    """The rule readings, every figure in them read from the design (:data:`OVERLAY`, :data:`FINAL_CHANCE`, ``design``)."""
    types = OVERLAY["types"]
    total = sum(t["weight"] for t in types)
    shares = ", ".join(f"{t['name']} {float(Fraction(100 * t['weight'], total)):g}%" for t in types)
    hammer, arrow, sword = types
    assert arrow["counts"] == sword["counts"], "the readings say Samurai Sword draws the counts of Priestess Arrow"
    counts = arrow["counts"]
    coins = FINAL_CHANCE["coins"]
    p_coins = Fraction(sum(coins.values()), sum(coins.values()) + FINAL_CHANCE["scatter"])
    fc_reels = FINAL_CHANCE["reels"]
    free_cells = 3 * len(fc_reels) - 2
    fc_where = f"reels {fc_reels[0]}–{fc_reels[-1]}" if fc_reels == list(range(fc_reels[0], fc_reels[-1] + 1)) else (
        "reels " + ", ".join(map(str, fc_reels)))
    return [
        ("bet", "the bet level is modelled at 1 (total bet 30 coins); every line win is × the bet level, the "
         "final-chance coins are × the total bet and the cap is in coins × the bet level, so every figure as a "
         "multiple of the bet is the same at every level",
         "the rules define line wins and the cap per bet level; nothing changes with it"),
        ("Random Overlay Wild: trigger", f"a main-game spin is an overlay spin with probability {OVERLAY['probability']} "
         f"(independent of everything else); the type is {shares}",
         "the rules give no odds: a design of ours, as data in [overlay_wilds]"),
        ("Random Overlay Wild: reel set", f"an overlay spin draws every reel from reel set '{OVERLAY['reels']}' (no "
         "scatters, no wild), then lays the wilds over it; line wins pay as usual, and the spin can start no re-spins",
         "the rules: 'uses a different reel set to the main game with no scatters on the reels'"),
        ("Random Overlay Wild: placements", f"{hammer['name']}: a {hammer['size']}×{hammer['size']} square on "
         f"{hammer['size']} adjacent reels of {hammer['reels'][0]}–{hammer['reels'][-1]} and {hammer['size']} adjacent "
         f"rows, each of the {(len(hammer['reels']) - hammer['size'] + 1) * (3 - hammer['size'] + 1)} positions alike; "
         f"{arrow['name']}: {_either(list(counts))} wilds (weights {_weights(counts)}) on "
         f"distinct cells of reels {arrow['reels'][0]}–{arrow['reels'][-1]}, every set of cells alike; "
         f"{sword['name']}: the same counts on distinct cells of reels {sword['reels'][0]}–{sword['reels'][-1]}",
         "the rules give the shapes and reels but not the odds; uniform placements are what a player would expect"),
        ("Wild", "WILD substitutes for every paying symbol (not the scatters) and pays no combination of its own; a line "
         "of wilds pays the best combination it completes", "'Wild symbol substitution pays the highest possible "
         "winning combination on a bet line'"),
        ("Scatters", "scatters pay nothing themselves; in the main game they appear on reels 2–4 only, at most one on a "
         "reel (the strips keep them at least 3 stops apart), so a window shows at most three",
         "'All coin wins pay on bet lines only, except for wins with the Final Chance feature'; the battle odds are "
         "given for 2 and 3 scatters"),
        ("Battle", "two different scatters: each wins 1/2; two of a type and one other: the pair's type 3/4; three "
         "different: 1/3 each; the losers turn into the winner's type where they stand", "the odds as stated"),
        ("Re-spins", "the active scatters hold their cells; every other cell re-spins on reel set 'respin' "
         f"({_per_reel(design, 'respin', SCATTERS)}, at least 3 stops apart); a new scatter of the active type is held and "
         "grants another re-spin; scatters of the other types are inactive and not held; no line wins are paid",
         "the rules; scatters 'can appear on all 5 reels during Re-Spins'"),
        ("Re-spins: free spins", "3 or more held scatters when a re-spin adds none start the active type's free spins "
         "with that many scatters (a start of 3 scatters re-spins first too)", "'3 or more Scatter symbols activate "
         "Free Spins'; 'When no more Re-Spins are activated, if there are 3 or more ... Free Spins will start'"),
        ("Final Chance", f"re-spins started by 2 scatters that add none end with a coin win of {_either(list(coins))} × the "
         f"total bet (weights {_weights(coins)}) with probability {p_coins}, else one more scatter of the active type "
         f"lands on one of the {free_cells} cells that hold none ({fc_where}, each alike) and the free spins start at "
         "once with 3 scatters",
         "the rules give the range 3–100 × 'the bet' (read as the total bet, the bet of the round) and 'a random "
         "position on the reels' (read as any free cell: scatters may land on all 5 reels after the main spin); the "
         "law is ours, as data"),
        ("Barbarian Free Spins", "3 spins per scatter, at least 9 (3 scatters: 9, 4: 12 ...); every blue scatter on a "
         "free spin adds 3 spins, without limit; reel set 'barbarian' holds warriors, animals and blue scatters only "
         f"(no wild, no cards), blue scatters on {_reels_of(design, 'barbarian', 'BLUE')}",
         "'only warrior and animal symbols are present'; the rules state no limit on the spins"),
        ("Priestess Free Spins", "7 spins; the multiplier starts at the number of scatters and each green scatter on a "
         "spin adds 1 before that spin's line wins are paid; reel set 'priestess' with green scatters on "
         f"{_reels_of(design, 'priestess', 'GREEN')}",
         "'1 Multiplier' per initial scatter; 'features ... activated immediately, and before calculating winnings'"),
        ("Samurai Free Spins", "5 spins; the cells of the scatters that start them are sticky wilds from the first "
         "spin, and every red scatter landing (reel set 'samurai': red scatters on "
         f"{_reels_of(design, 'samurai', 'RED')} only) is a wild in its own spin and a sticky wild after",
         f"'the Scatter symbol becomes a Sticky Wild'; keeping red scatters on {_reels_of(design, 'samurai', 'RED')} keeps "
         "the sticky cells that can grow to 9"),
        ("Cap", "a round's total win (main spin, final chance, free spins) is paid at most 100,000 coins × the bet "
         "level; the RTP is computed with the cap: no bound keeps the Barbarian (unlimited retriggers) and Priestess "
         "(multiplier) rounds below it, so the cap's effect is bounded (Chernoff bounds on those features' exponential "
         "moments, every other stage at its bound) and shown below 1e-9 × bet", "'The maximum total win in coins is "
         "capped at 100 000 times multiplied by the bet level'"),
    ]


def layout(counts: dict[str, int], stacks: dict[str, int], seed: int) -> list[str]:
    """A strip with these counts: stacks in runs, scatters at least 3 stops apart, the rest spread evenly.

    Deterministic: blocks (a stack, a scatter, a single stop) are placed in the order of
    their evenly spread target positions; a scatter is never placed within 2 stops of another.
    """
    n = sum(counts.values())
    blocks: list[tuple[float, str, int]] = []
    for k, (sym, c) in enumerate(sorted(counts.items())):
        size = stacks.get(sym, 1)
        runs = [size] * (c // size) + ([c % size] if c % size else [])
        for i, run in enumerate(runs):
            offset = ((k * 7 + seed) % 11) / 11
            blocks.append(((i + offset) / len(runs), sym, run))
    blocks.sort()
    strip: list[str] = []
    pending: list[tuple[float, str, int]] = []
    for b in blocks:
        pending.append(b)
        placed = []
        for p in pending:
            if p[1] in SCATTERS and any(s in SCATTERS for s in strip[-2:]):
                continue
            strip += [p[1]] * p[2]
            placed.append(p)
        pending = [p for p in pending if p not in placed]
    strip += [s for p in pending for s in [p[1]] * p[2]]
    # repair the wrap-around and any scatter still too close: swap it forward with a regular stop
    for _ in range(n):
        bad = [i for i in range(n) if strip[i] in SCATTERS and any(strip[(i + d) % n] in SCATTERS for d in (1, 2))]
        if not bad:
            break
        i = bad[0]
        for j in range(n):
            k = (i + 3 + j) % n
            if strip[k] in SCATTERS or any(strip[(k + d) % n] in SCATTERS for d in (-2, -1, 1, 2)):
                continue
            if stacks.get(strip[k], 1) > 1:
                continue
            strip[i], strip[k] = strip[k], strip[i]
            break
    assert sorted(strip) == sorted(s for s, c in counts.items() for _ in range(c))
    return strip


def game_dict(design: dict[str, Counts]) -> dict[str, Any]:
    symbols: dict[str, Any] = {"WILD": {"kind": "wild", "substitutes": "all", "pays": False}}
    symbols.update({s: {"kind": "scatter"} for s in SCATTERS})
    symbols.update({s: {} for s in REGULAR})
    reels = {name: {"rows": 3, "strips": [" ".join(layout(c, STACKS[name], 10 * k + r)) for r, c in enumerate(spec)]}
             for k, (name, spec) in enumerate(design.items())}
    return {
        "name": "Warlords – Crystals of Power",
        "description": DESCRIPTION,
        "declared_rtp": str(TARGET),
        "default_reels": "base",
        "paylines": PAYLINES,
        "bet": {"lines": 30, "coins": [1], "coin_value": "1/200"},
        "symbols": symbols,
        "reels": reels,
        "paytable": {s: {str(k): v for k, v in PAYTABLE[s].items()} for s in REGULAR},
        "overlay_wilds": OVERLAY,
        "scatter_respins": {
            "scatters": list(SCATTERS), "count": 2, "free_at": 3, "reels": "respin",
            "free_spins": {"BLUE": "barbarian", "GREEN": "priestess", "RED": "samurai"},
            "battle": {"pair_wins": "3/4"}, "final_chance": FINAL_CHANCE,
        },
        "free_spins": [{"name": "barbarian", "trigger": "BLUE", "reels": "barbarian",
                        "awards": {str(n): max(9, 3 * n) for n in range(3, 16)},
                        "retriggers": {str(n): 3 * n for n in range(1, 4)}, "from_feature": "scatter_respins"}],
        "multiplier_free_spins": [{"name": "priestess", "trigger": "GREEN", "spins": 7, "reels": "priestess",
                                   "min_count": 3, "step": 1, "from_feature": "scatter_respins"}],
        "sticky_free_spins": [{"name": "samurai", "trigger": "RED", "wild": "WILD", "spins": 5, "reels": "samurai",
                               "min_count": 3, "from_feature": "scatter_respins"}],
        "cap": {"coins": 100000},
        "readings": [{"rule": r, "reading": a, "reason": b} for r, a, b in _readings(design)],
    }


def _v(x: Any) -> str:
    """A TOML value: strings quoted, lists and flat tables inline."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str):
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, list):
        return "[" + ", ".join(_v(y) for y in x) + "]"
    if isinstance(x, dict):
        return "{ " + ", ".join(f"{k} = {_v(y)}" for k, y in x.items()) + " }"
    return str(x)


REEL_NOTES = {
    "base": "main game: stacks of 3 warriors and wilds; WILD on reels 2-4; one BLUE/GREEN/RED per reel on reels 2-4 "
            "(BLUE on 2 and 4, GREEN on 2 and 3, RED on 3 and 4), at least 3 stops apart",
    "overlay": "overlay spins (Random Overlay Wild): no scatters, no wild of its own, few high symbols",
    "respin": f"re-spins: {_per_reel(DESIGN, 'respin', SCATTERS)} (all 5 reels), every scatter at least 3 stops from the next",
    "barbarian": "Barbarian Free Spins: warriors and animals only (stacks of 2 warriors), BLUE on reel 3",
    "priestess": "Priestess Free Spins: WILD and GREEN on reels 2-4, stacks of 2 PRIESTESS",
    "samurai": "Samurai Free Spins: RED on reels 2-4 only (the sticky cells), mostly cards, no wild on the strips",
}


def to_toml(d: dict[str, Any]) -> str:
    """The game file, laid out for a reader: one table per feature, the readings at the end."""
    w = ["# Warlords – Crystals of Power (seed: ../../../shared/seeds/warlords-crystals-of-power-rules.txt).",
         "# Written by tools/tune_warlords.py: the design (symbol counts per reel) is there; edit it there and",
         "# re-run it. Strips and paytable are ours (none are published). Rule readings: [[readings]] at the end.",
         ""]
    for k in ("name", "description", "declared_rtp", "default_reels"):
        w.append(f"{k} = {_v(d[k])}")
    w += ["", "# rows from the top (0) of each reel", "paylines = ["]
    w += [f"  {_v(line)}," for line in d["paylines"]]
    w += ["]", "", "# the bet level is modelled at 1: 30 lines × 1 coin", "[bet]"]
    w += [f"{k} = {_v(v)}" for k, v in d["bet"].items()]
    kinds = {"WILD": "the wild", "BLUE": "Barbarian scatter", "GREEN": "Priestess scatter", "RED": "Samurai scatter",
             **{s: "warrior" for s in WARRIORS}, **{s: "animal" for s in ANIMALS}, **{s: "card" for s in CARDS}}
    for name, spec in d["symbols"].items():
        w += ["", f"[symbols.{name}]  # {kinds[name]}"]
        w += [f"{k} = {_v(v)}" for k, v in spec.items()]
    for name, spec in d["reels"].items():
        w += ["", f"# {REEL_NOTES[name]}", f"[reels.{name}]", f"rows = {spec['rows']}", "strips = ["]
        w += [f"  {_v(strip)}," for strip in spec["strips"]]
        w.append("]")
    w += ["", "# line pays in coins per bet line at one coin (× the bet level)", "[paytable]"]
    w += [f"{k} = {_v({str(n): p for n, p in v.items()})}" for k, v in d["paytable"].items()]
    ov = d["overlay_wilds"]
    w += ["", "# Random Overlay Wild: see the readings", "[overlay_wilds]"]
    w += [f"{k} = {_v(v)}" for k, v in ov.items() if k != "types"]
    for t in ov["types"]:
        w += ["", "[[overlay_wilds.types]]"] + [f"{k} = {_v(v)}" for k, v in t.items()]
    rs = d["scatter_respins"]
    w += ["", "# Battle, Re-Spins and Final Chance", "[scatter_respins]"]
    w += [f"{k} = {_v(v)}" for k, v in rs.items() if k != "final_chance"]
    w += ["", "[scatter_respins.final_chance]"] + [f"{k} = {_v(v)}" for k, v in rs["final_chance"].items()]
    for kind, note in (("free_spins", "Barbarian Free Spins: 3 spins per scatter, at least 9; +3 per new scatter"),
                       ("multiplier_free_spins", "Priestess Free Spins: 7 spins, the multiplier starts at the scatters, +1 each"),
                       ("sticky_free_spins", "Samurai Free Spins: 5 spins, every scatter a sticky wild")):
        for f in d[kind]:
            w += ["", f"# {note}", f"[[{kind}]]"] + [f"{k} = {_v(v)}" for k, v in f.items()]
    w += ["", "# 100,000 coins × the bet level: 3,333⅓ × the total bet on 30 lines", "[cap]", f"coins = {d['cap']['coins']}"]
    for r in d["readings"]:
        w += ["", "[[readings]]"] + [f"{k} = {_v(v)}" for k, v in r.items()]
    return "\n".join(w) + "\n"


def make(design: dict[str, Counts]) -> Game:
    return game_from_dict(game_dict(design))


def rtp_float(game: Game) -> float:
    return float(analyse(game, level="mean", precision="float").rtp())


Move = tuple[int, str, str]  # (base reel, card out, card in)


def moves(design: dict[str, Counts]) -> list[Move]:
    base = design["base"]
    return [(r, a, b) for r in range(5) for a in CARDS for b in CARDS if a != b and base[r].get(a, 0) > 2]


def apply(design: dict[str, Counts], mv: Move) -> dict[str, Counts]:
    r, a, b = mv
    out = {k: [dict(c) for c in v] for k, v in design.items()}
    out["base"][r][a] -= 1
    out["base"][r][b] = out["base"][r].get(b, 0) + 1
    return out


def tune(design: dict[str, Counts], *, verbose: bool = True) -> tuple[dict[str, Counts], float]:
    """Greedy single-stop moves of cards on the base reels towards the target (float RTP), best first."""
    cur = rtp_float(make(design))
    target = float(TARGET)
    if verbose:
        print(f"start {cur:.6%}", flush=True)
    while abs(cur - target) > float(TOL) / 4:
        best = None
        for mv in moves(design):
            cand = apply(design, mv)
            value = rtp_float(make(cand))
            if abs(value - target) < abs(cur - target) and (best is None or abs(value - target) < abs(best[1] - target)):
                best = (cand, value, mv)
        if best is None:
            break
        design, cur, mv = best
        if verbose:
            print(f"  {mv}: {cur:.6%}", flush=True)
    return design, cur


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUT}")
    parser.add_argument("--no-tune", action="store_true", help="only evaluate the hand design")
    args = parser.parse_args(argv)
    design = DESIGN
    t = time.perf_counter()
    if not args.no_tune:
        design, _ = tune(design)
    game = make(design)
    exact = analyse(game, level="mean")
    r = exact.rtp()
    print(f"exact RTP {float(r):.8%} [{exact.outcome.method}], error bound {exact.outcome.error / exact.total_bet:.3g}; "
          f"{time.perf_counter() - t:.1f} s")
    for k, v in exact.breakdown().items():
        print(f"  {k:<40} {float(v):.6%}")
    if abs(Fraction(r) - TARGET) > TOL:
        print("not within ±0.005 pp of the target", file=sys.stderr)
        return 1
    if args.write:
        text = to_toml(game_dict(design))
        if loads_game(text) != game:
            print("the file written would not load back to the game tuned", file=sys.stderr)
            return 1
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
