"""Design Prince of Riches' reel strips and tune the game to a total RTP of 96.00% (exact/Markov, every feature in).

Usage::

    PYTHONPATH=. .venv/bin/python tools/design_prince.py [--write]

How it works (honest means only: the strips, pays and laws are ours, the maths is the engine's)
----------------------------------------------------------------------------------------------
Every reel is 80 stops in ten sections of eight.  A section opens with at most one
feature item — an activator (reels 1 and 5), a SCATTER, a PRIZE stack of 2–5 (with a
jackpot PRIZE at the bottom or inside some) or a WILD stack (reels 2–4) — and is filled
with regular symbols in the counts of :data:`FILL`, laid out by a seeded shuffle that
never puts one regular symbol twice in a row.  Items open sections eight stops apart, so a
window of at most seven rows shows at most one activator and one SCATTER per reel.
Every reel carries PRIZE stacks (sizes 2–5 over the game), taller than a 3-row window, so the
window's top and bottom edges cut them; reel 3 carries two jackpot PRIZEs (the bottom of a
stack of 4 and the middle of a stack of 5) and reel 2 one (the middle of a stack of 3), so two
jackpots can show together and the stack rule passes a jackpot PRIZE; the activators of reels 1
and 5 can show together.  Every stop weighs 1 (no virtual stops: no near-miss weighting, see
``mathkit check``'s ``near_miss``).
The pays, the activators' values and the jackpot prizes are the design of
:data:`PAYTABLE`, :data:`ACTIVATORS` and the rules; the height law of the base game
and the growth law of the free games are data.  The tuner (:func:`tune`) then moves
jackpot reveal weight from Mini to Minor and Major — the RTP is exactly linear in it,
:func:`mathkit.round.rtp_breakdown` being the fast mean path — to land within ±0.005 pp.
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from mathkit.gamefile.io import game_from_dict
from mathkit.round import rtp_breakdown

TARGET = Fraction(96, 100)
TOL = Fraction(5, 100_000)  # ±0.005 percentage points
OUT = Path(__file__).resolve().parents[1] / "data" / "games" / "prince_of_riches.toml"
TOTAL_BET = 50
SECTION = 8

REGULAR = ("PRINCE", "MAIDEN", "HORSE", "BOW", "QUIVER", "A", "K", "Q", "J", "TEN")
PAYTABLE: dict[str, dict[int, int]] = {  # credits per line at a total bet of 50 credits
    "PRINCE": {3: 55, 4: 165, 5: 688},
    "MAIDEN": {3: 33, 4: 110, 5: 330},
    "HORSE": {3: 28, 4: 69, 5: 220},
    "BOW": {3: 16, 4: 55, 5: 138},
    "QUIVER": {3: 14, 4: 41, 5: 110},
    "A": {3: 8, 4: 28, 5: 82},
    "K": {3: 8, 4: 22, 5: 69},
    "Q": {3: 8, 4: 16, 5: 55},
    "J": {3: 8, 4: 16, 5: 55},
    "TEN": {3: 6, 4: 14, 5: 41},
}
ACTIVATORS = {"ACT1": 1, "ACT2": 2, "ACT3": 3, "ACT4": 4, "ACT5": 5}
JACKPOTS = {"Mini": 10, "Minor": 20, "Major": 200, "Grand": 500}
REVEAL = {"Mini": 9929, "Minor": 22, "Major": 47, "Grand": 2}  # as tuned (--tune: from Mini 9990, Minor 5, Major 3)
HEIGHTS = {3: 420, 4: 260, 5: 170, 6: 100, 7: 50}
GROW = {3: "1/4", 4: "1/5", 5: "1/6", 6: "1/7"}

# Feature items per reel, one per section (None: a plain section); "P3J1" is a PRIZE stack of 3 whose
# middle cell (from the bottom: 1, 2 ...) is the jackpot PRIZE.
ITEMS: list[list[str | None]] = [
    ["ACT1", "SCATTER", "P2", None, None, None, "SCATTER", None, None, None],
    ["SCATTER", "P2", "W2", None, "P3J2", "SCATTER", None, "W1", None, None],
    ["SCATTER", "P4J1", "W3", "SCATTER", None, "P5J3", "SCATTER", "W2", None, None],
    ["SCATTER", "P3", "W2", None, "P2", "SCATTER", None, "W1", None, None],
    ["ACT2", "SCATTER", "P3", None, None, None, "SCATTER", None, None, None],
]
FILL: list[dict[str, int]] = [  # weights of the regular symbols filling each reel (counts by largest remainder)
    {"PRINCE": 3, "MAIDEN": 4, "HORSE": 5, "BOW": 6, "QUIVER": 6, "A": 7, "K": 7, "Q": 8, "J": 8, "TEN": 9},
    {"PRINCE": 3, "MAIDEN": 4, "HORSE": 5, "BOW": 5, "QUIVER": 6, "A": 7, "K": 7, "Q": 7, "J": 7, "TEN": 7},
    {"PRINCE": 3, "MAIDEN": 3, "HORSE": 5, "BOW": 5, "QUIVER": 6, "A": 6, "K": 7, "Q": 7, "J": 7, "TEN": 7},
    {"PRINCE": 3, "MAIDEN": 4, "HORSE": 5, "BOW": 5, "QUIVER": 6, "A": 7, "K": 7, "Q": 7, "J": 8, "TEN": 8},
    {"PRINCE": 3, "MAIDEN": 4, "HORSE": 5, "BOW": 6, "QUIVER": 6, "A": 7, "K": 7, "Q": 8, "J": 8, "TEN": 9},
]


def item_cells(item: str | None) -> list[str]:
    """The cells of one feature item, top to bottom."""
    if item is None:
        return []
    if item.startswith("W"):
        return ["WILD"] * int(item[1:])
    if item.startswith("P"):
        size, _, jack = item[1:].partition("J")
        cells = ["PRIZE"] * int(size)
        if jack:
            cells[len(cells) - int(jack)] = "PRIZE_J"  # counted from the bottom
        return cells
    return [item]


def counts(weights: dict[str, int], total: int) -> dict[str, int]:
    """``total`` stops shared in proportion to ``weights`` (largest remainder, ties in table order)."""
    w = sum(weights.values())
    exact = {s: Fraction(v * total, w) for s, v in weights.items()}
    out = {s: int(x) for s, x in exact.items()}
    for s in sorted(exact, key=lambda k: -(exact[k] - out[k]))[: total - sum(out.values())]:
        out[s] += 1
    return out


def strip(reel: int, seed: int) -> list[str]:
    """Reel ``reel`` (from 0): ten sections of eight, each an item then regular symbols."""
    rng = random.Random(seed * 101 + reel)
    heads = [item_cells(i) for i in ITEMS[reel]]
    need = SECTION * len(heads) - sum(len(h) for h in heads)
    fill = [s for s, n in counts(FILL[reel], need).items() for _ in range(n)]
    for _ in range(10_000):
        rng.shuffle(fill)
        out: list[str] = []
        k = 0
        for head in heads:
            out += head
            take = SECTION - len(head)
            out += fill[k: k + take]
            k += take
        if all(out[i] != out[(i + 1) % len(out)] or out[i] in ("PRIZE", "WILD") for i in range(len(out))):
            return out
    msg = f"reel {reel + 1}: no layout without two equal regular symbols in a row"
    raise SystemExit(msg)


def paylines() -> list[list[int]]:
    """70 lines over 7 rows: the first 10·h stay in rows 0..h−1."""
    first = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2],
             [1, 0, 0, 0, 1], [1, 2, 2, 2, 1], [0, 0, 1, 2, 2], [2, 2, 1, 0, 0], [1, 2, 1, 0, 1],
             [1, 0, 1, 2, 1], [0, 1, 1, 1, 0], [2, 1, 1, 1, 2], [0, 1, 0, 1, 0], [2, 1, 2, 1, 2],
             [1, 1, 0, 1, 1], [1, 1, 2, 1, 1], [0, 0, 2, 0, 0], [2, 2, 0, 2, 2], [0, 2, 2, 2, 0],
             [2, 0, 0, 0, 2], [1, 0, 2, 0, 1], [1, 2, 0, 2, 1], [0, 2, 0, 2, 0], [2, 0, 2, 0, 2],
             [0, 2, 1, 2, 0], [2, 0, 1, 0, 2], [1, 0, 1, 0, 1], [1, 2, 1, 2, 1], [0, 1, 2, 2, 2]]
    out = [list(x) for x in first]
    for top in range(3, 7):  # ten more lines reaching row `top`
        t, u, v = top, top - 1, top - 2
        out += [[t] * 5, [u, t, t, t, u], [t, u, u, u, t], [v, u, t, u, v], [t, u, v, u, t],
                [t, t, u, v, v], [v, v, u, t, t], [u, t, u, t, u], [t, u, t, u, t], [0, top // 2, t, top // 2, 0]]
    return out


READINGS = [
    ("The RTP is shown in-game.",
     "The game declares a total RTP of 96.00% (declared_rtp = 0.96), base game and every feature included.",
     "The rules give no figure; 96.00% is the RTP we declare for this game unless a reason says otherwise."),
    ("The game is played with 30 to 70 lines. / Bet line or way wins pay ...",
     "A lines game: 70 paylines over 7 rows, the first 10·h active at height h (pay_mode = \"lines\").",
     "The rules count active pay lines per height (30 at 3 rows ... 70 at 7), which only a lines game has; "
     "\"or way\" is the provider's boilerplate."),
    ("Increasing and decreasing your Total Bet will result in the Paytable adjusting by the same proportion.",
     "The total bet is fixed at 50 credits whatever the height (bet.total = 50); a line pays its credits at every "
     "height, so a taller window (more lines) returns more; every pay, activator value and jackpot scales with the "
     "bet (coins).",
     "The player sets one total bet; the rows (and so the lines) change by chance each spin, so the stake cannot "
     "depend on them."),
    ("Randomly at the beginning of each spin, the number of reel rows can change from 3 up to 7 symbols high.",
     "Each base spin draws its height from the variable_heights weights, independently of everything else.",
     "\"Randomly\" with no further rule: a fixed law (data), the same for every spin."),
    ("WILD substitutes for all symbols except PRIZE, ACTIVATOR, and SCATTER.",
     "WILD stands in for the ten regular symbols, pays nothing on its own, and appears on reels 2-4.",
     "The rules give WILD no pays of its own; its reels are our design."),
    ("All wins pay on bet lines or ways only.",
     "Line wins are the only combination wins (SCATTER pays nothing itself); cash stack values and jackpots are "
     "feature awards paid in addition to the lines.",
     "The Cash Activate Stacks and jackpot rules pay credit values that lie on no line; the sentence is read as "
     "\"symbol combinations pay on lines only\"."),
    ("ACTIVATOR will appear with a credit value: 1x - 5x total bet.",
     "Five activator symbols ACT1-ACT5 carry 1-5 x the total bet (cash_stacks.activators); how often each value "
     "shows is the strips' composition on reels 1 and 5.",
     "The value shows on the symbol as it lands; strip symbols keep every value's frequency in the data and make the "
     "cash an exact per-stop quantity."),
    ("each ACTIVATOR will assign its value to the lowest PRIZE symbol in each PRIZE symbol stack on each reel. / "
     "Every PRIZE symbol ... is given the credit value of the PRIZE directly below it, plus the sum of all ACTIVATOR "
     "symbol credit values shown on the reels.",
     "A = the sum of the values of every activator showing; in every stack the lowest eligible PRIZE gets A and each "
     "eligible PRIZE above it the value of the eligible PRIZE below plus A (the k-th gets k·A).",
     "\"Each ACTIVATOR assigns its value\" and \"plus the sum of all ACTIVATOR values\" together say the lowest PRIZE "
     "gets the total of all activators, once."),
    ("PRIZE symbols containing a Jackpot indicator are skipped, and the value is assigned to the next eligible PRIZE "
     "symbol in the stack.",
     "A jackpot PRIZE gets no value and does not break its stack: the value it would have had passes to the next "
     "eligible PRIZE above it (cash_stacks.chain = \"pass\"; \"restart\" would start the chain again at A above it).",
     "\"The value is assigned to the next eligible PRIZE\": the value moves on, so the chain continues over the "
     "skipped symbol; the other reading is a switch."),
    ("PRIZE stacks can appear on all reels.",
     "A stack is a maximal run of PRIZE symbols on one reel as the window shows it; a stack cut by the window edge "
     "starts at its lowest visible PRIZE, and cells off screen count for nothing.",
     "Only symbols on screen take part in a spin (\"appear on the reels\"); the player cannot see the rest."),
    ("if both one or more ACTIVATOR and PRIZE symbols appear on the reels at the same time, the Cash Activate Stacks "
     "feature is triggered.",
     "Cash values are paid, and jackpot PRIZEs revealed, only when at least one activator and one PRIZE show; a "
     "jackpot PRIZE counts as a PRIZE.",
     "The jackpot reveal is described as a step of the Cash Activate Stacks feature."),
    ("any PRIZE symbol containing a Jackpot indicator will reveal a Jackpot: Mini (10x), Minor (20x), Major (200x), "
     "Grand (500x)",
     "Each jackpot PRIZE reveals one jackpot, independently, drawn with the jackpots.reveal weights; jackpots are "
     "fixed multiples of the total bet (not progressive) and several are paid in full.",
     "The rules fix the prizes but not how often each is revealed: a law in the data."),
    ("3 or more SCATTER symbols trigger 10 Free Games. / ... award an additional 10 Free Games.",
     "3+ SCATTER anywhere in the window award 10 free games; 3+ in a free game add 10, without limit; a SCATTER pays "
     "nothing itself.",
     "The rules set no limit on retriggers and no scatter pay."),
    ("The height of the reels when the Free Games are triggered remains like this for the start of the feature. / "
     "The Variable Reels may grow during the Free Games.",
     "The first free game is played at the trigger height; after every free game the window grows by one row with "
     f"probability free_games.grow ({', '.join(f'{p} at {h} rows' for h, p in GROW.items())}), never shrinks, and "
     "stops at 7 rows; the base game's random height does not apply in free games.",
     "\"May grow\" with no rule: a growth law of our own, as data; \"remains ... for the start\" and \"grow\" rule out "
     "the base game's draw and any shrinking."),
    ("Free Games are played at the same bet value as the round that activated Free Games.",
     "Free games use the base reels, the height's lines, and every feature of a spin (cash stacks, jackpots), at "
     "the triggering bet.",
     "The rules name no other reels and no feature that stops in free games."),
    ("(no maximum win is stated)",
     "No cap: a round pays in full; with unlimited retriggers a round's win has no upper bound.",
     "The rules state no maximum win."),
]


ALTERNATIVES = {  # the rule (READINGS' first field, its start) -> (the other reading, how to play it)
    "PRIZE symbols containing a Jackpot indicator are skipped": (
        'chain = "restart" (the chain starts again at A above a jackpot PRIZE)', "restart"),
    "each ACTIVATOR will assign its value to the lowest PRIZE": (
        '"lowest" read as the top of the window (every reel read upside down; the cash stacks only); it moves the '
        'values between the PRIZEs of a stack but never changes what a window pays: a run of k eligible PRIZEs is '
        'worth k(k+1)/2 · A from either end (pass), and so is each run between jackpot PRIZEs (restart)', "flip"),
    "if both one or more ACTIVATOR and PRIZE symbols appear": (
        "a jackpot PRIZE reveals its jackpot without an activator (jackpots.requires = [])", "free jackpots"),
}


FLIP_RESTART = "both: restart, and lowest read as the top"


def alternative_rtps(reveal: dict[str, int]) -> dict[str, Fraction]:
    """The total RTP under each alternative reading of :data:`ALTERNATIVES`, by the engine's mean path.

    Reading the stacks from the top is the same strips reversed; it changes only the cash stacks (the windows a
    reel shows are the same, mirrored: scatters, jackpot PRIZEs and the free games' law are unchanged, the lines are
    not the question), so that reading is the design's RTP with its cash components from the reversed strips.
    """
    d = game_dict(reveal)
    base = rtp_breakdown(game_from_dict(d))
    out: dict[str, Fraction] = {}
    restart_d = {**d, "cash_stacks": {**d["cash_stacks"], "chain": "restart"}}
    restart = rtp_breakdown(game_from_dict(restart_d))
    for rule, (_, how) in {**ALTERNATIVES, FLIP_RESTART: ("", "flip restart")}.items():
        alt = {**d, "cash_stacks": dict(d["cash_stacks"]), "jackpots": dict(d["jackpots"])}
        if how == "restart":
            alt["cash_stacks"]["chain"] = "restart"
        elif how == "flip restart":
            alt["cash_stacks"]["chain"] = "restart"
            alt["reels"] = {"base": {"rows": 7, "strips": [" ".join(reversed(x.split())) for x in
                                                          d["reels"]["base"]["strips"]]}}
        elif how == "free jackpots":
            alt["jackpots"]["requires"] = []
        else:
            alt["reels"] = {"base": {"rows": 7, "strips": [" ".join(reversed(x.split())) for x in
                                                          d["reels"]["base"]["strips"]]}}
        parts = rtp_breakdown(game_from_dict(alt))
        if how.startswith("flip"):
            parts = {k: (parts[k] if "cash stacks" in k else v) for k, v in base.items()}
            if how == "flip restart":
                parts = {k: v + (restart[k] - base[k] if "cash stacks" not in k else 0) for k, v in parts.items()}
        out[rule] = Fraction(sum(parts.values(), Fraction(0)))
    return out


def readings(reveal: dict[str, int], figures: dict[str, Fraction] | None = None) -> list[tuple[str, str, str]]:
    """:data:`READINGS`, each ambiguous clause with the RTP under our reading and under the other (``figures``)."""
    if figures is None:
        return READINGS
    ours = rtp(reveal)
    out = []
    for rule, reading, why in READINGS:
        reason = why
        for start, (other, how) in ALTERNATIVES.items():
            if rule.startswith(start):
                reason = (f"{reason} RTP under this reading {float(ours):.4%}; under the other ({other}) "
                          f"{float(figures[start]):.4%} ({100 * float(figures[start] - ours):+.4f} pp).")
                if figures.get(FLIP_RESTART) is not None and how == "flip":
                    both = figures[FLIP_RESTART]
                    reason += (f" With chain = \"restart\" and lowest read as the top: {float(both):.4%}, the same as "
                               f"\"restart\" alone ({100 * float(both - ours):+.4f} pp from ours).")
        out.append((rule, reading, reason))
    return out


def game_dict(reveal: dict[str, int], figures: dict[str, Fraction] | None = None) -> dict[str, Any]:
    strips = [" ".join(strip(r, 7)) for r in range(5)]
    return {
        "name": "Prince of Riches",
        "description": "5 reels, 3-7 rows drawn per spin (30-70 lines), Cash Activate Stacks with activators on "
                       "reels 1 and 5, four fixed jackpots, free games whose window may grow. Strips, pays and laws "
                       "are our design (tools/design_prince.py).",
        "pay_mode": "lines",
        "declared_rtp": "24/25",
        "default_reels": "base",
        "paylines": paylines(),
        "bet": {"lines": 30, "total": TOTAL_BET, "coins": [1]},
        "variable_heights": {"heights": {str(h): w for h, w in HEIGHTS.items()}, "lines_per_row": 10},
        "cash_stacks": {"activators": ACTIVATORS, "reels": [1, 5], "prizes": ["PRIZE", "PRIZE_J"],
                        "skip": "jackpot", "chain": "pass"},
        "jackpots": {"mark": "jackpot", "requires": list(ACTIVATORS), "prizes": JACKPOTS, "reveal": reveal},
        "free_games": {"trigger": "SCATTER", "awards": {"3": 10}, "retriggers": {"3": 10}, "reels": "base",
                       "grow": {str(h): p for h, p in GROW.items()}},
        "symbols": {
            "WILD": {"kind": "wild", "substitutes": "all", "reels": [2, 3, 4]},
            "SCATTER": {"kind": "scatter"},
            "PRIZE": {"kind": "bonus"},
            "PRIZE_J": {"kind": "bonus", "mark": "jackpot"},
            **{a: {"kind": "bonus"} for a in ACTIVATORS},
            **{s: {} for s in REGULAR},
        },
        "reels": {"base": {"rows": 7, "strips": strips}},
        "paytable": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
        "readings": [{"rule": r, "reading": x, "reason": y} for r, x, y in readings(reveal, figures)],
    }


def _q(text: str) -> str:
    """A TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _inline(table: dict[Any, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {_q(v) if isinstance(v, str) else v}" for k, v in table.items()) + " }"


def render(reveal: dict[str, int], figures: dict[str, Fraction] | None = None) -> str:
    """The game file, laid out for a reader: the same data as :func:`game_dict`, with comments."""
    d = game_dict(reveal, figures)
    lines = [
        "# Prince of Riches — the game as we designed it (none of it is published): strips, pays, the height law,",
        "# the activators' values, the jackpot reveal law and the free games' growth are ours; every rule reading",
        "# is in [[readings]] at the end.  Written by tools/design_prince.py (the design and the RTP tuning);",
        "# the RTP (96.00%) is computed by `mathkit par data/games/prince_of_riches.toml`.",
        f"name = {_q(d['name'])}",
        f"description = {_q(d['description'])}",
        'pay_mode = "lines"',
        'declared_rtp = "24/25"',
        'default_reels = "base"',
        "",
        "# 70 lines over 7 rows (rows from the top, 0); the first 10·h are active at height h: lines 31-40 reach",
        "# row 3, 41-50 row 4, 51-60 row 5, 61-70 row 6",
        "paylines = [",
    ]
    pl = d["paylines"]
    for i in range(0, len(pl), 5):
        lines.append("  " + ", ".join(str(x) for x in pl[i:i + 5]) + ",")
    lines += [
        "]",
        "",
        "# the total bet is fixed at 50 credits whatever the height; line pays are credits per line at that bet",
        "[bet]",
        "lines = 30",
        f"total = {TOTAL_BET}",
        "coins = [1]",
        "",
        "# the base game draws the height of every spin: rows = weight; 10 lines per row",
        "[variable_heights]",
        f"heights = {_inline(HEIGHTS)}",
        "lines_per_row = 10",
        "",
        "# activators (× total bet) on reels 1 and 5; PRIZE stacks on every reel; a jackpot PRIZE is skipped and",
        "# the value passes on to the next eligible PRIZE above it (\"restart\" would start the chain again)",
        "[cash_stacks]",
        f"activators = {_inline(ACTIVATORS)}",
        "reels = [1, 5]",
        'prizes = ["PRIZE", "PRIZE_J"]',
        'skip = "jackpot"',
        'chain = "pass"',
        "",
        "# each jackpot PRIZE reveals one jackpot, drawn with these weights, when an activator shows",
        "[jackpots]",
        'mark = "jackpot"',
        f"requires = [{', '.join(_q(a) for a in ACTIVATORS)}]",
        f"prizes = {_inline(JACKPOTS)}   # × total bet",
        f"reveal = {_inline(reveal)}",
        "",
        "# 3+ SCATTER: 10 free games at the trigger height; 3+ in a free game add 10; after every free game the",
        "# window grows one row with these probabilities (a height without one never grows)",
        "[free_games]",
        'trigger = "SCATTER"',
        'awards = { 3 = 10 }',
        'retriggers = { 3 = 10 }',
        'reels = "base"',
        f"grow = {_inline(GROW)}",
        "",
        "[symbols.WILD]",
        'kind = "wild"',
        'substitutes = "all"',
        "reels = [2, 3, 4]",
        "",
        "[symbols.SCATTER]",
        'kind = "scatter"',
        "",
        "[symbols.PRIZE]",
        'kind = "bonus"',
        "",
        "[symbols.PRIZE_J]",
        'kind = "bonus"',
        'mark = "jackpot"',
        "",
    ]
    for a in ACTIVATORS:
        lines += [f"[symbols.{a}]", 'kind = "bonus"', ""]
    lines += [f"[symbols.{r}]" for r in REGULAR]
    lines += [
        "",
        "# 80 stops per reel, ten sections of eight (see tools/design_prince.py); every stop weighs 1",
        "[reels.base]",
        "rows = 7",
        "strips = [",
        *(f"  {_q(x)}," for x in d["reels"]["base"]["strips"]),
        "]",
        "",
        "# credits per line at a total bet of 50 credits",
        "[paytable]",
        *(f"{k} = {_inline(v)}" for k, v in PAYTABLE.items()),
        "",
    ]
    for rule, reading, reason in readings(reveal, figures):
        lines += ["[[readings]]", f"rule = {_q(rule)}", f"reading = {_q(reading)}", f"reason = {_q(reason)}", ""]
    return "\n".join(lines)


def rtp(reveal: dict[str, int]) -> Fraction:
    parts = rtp_breakdown(game_from_dict(game_dict(reveal)))
    return Fraction(sum(parts.values(), Fraction(0)))


def tune(reveal: dict[str, int]) -> dict[str, int]:
    """Move reveal weight from Mini to Minor and Major until the RTP is within ±0.005 pp of the target.

    The RTP is exactly linear in the mean jackpot E[Y] a mark reveals (every jackpot component is
    ``E[marks revealed] · P(jackpot) · prize``), so one evaluation gives the effect of a unit moved
    from Mini (10×) to Minor (20×), and a unit moved to Major (200×) does 19 times as much.
    """
    r0 = rtp(reveal)
    one = dict(reveal, Mini=reveal["Mini"] - 1, Minor=reveal["Minor"] + 1)
    step = rtp(one) - r0
    need = (TARGET - r0) / step  # in units moved from Mini to Minor
    major = int(need / 19)
    minor = round(need - 19 * major)
    out = dict(reveal, Mini=reveal["Mini"] - major - minor, Minor=reveal["Minor"] + minor,
               Major=reveal["Major"] + major)
    got = rtp(out)
    print(f"  reveal {out}: RTP {float(got):.8%} (gap {float(got - TARGET) * 100:+.6f} pp)", file=sys.stderr)
    if abs(got - TARGET) > TOL:
        msg = "the reveal weights cannot bring the RTP within ±0.005 pp: change the design"
        raise SystemExit(msg)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help=f"write {OUT}")
    p.add_argument("--tune", action="store_true", help="tune the jackpot reveal weights to the target")
    args = p.parse_args()
    reveal = tune(REVEAL) if args.tune else dict(REVEAL)
    game = game_from_dict(game_dict(reveal))
    parts = rtp_breakdown(game)
    from mathkit.round import analyse

    a = analyse(game, level="mean")
    fg = a.stats["free_games"]
    print(f"free games: 1 in {float(1 / fg.p_enter):.1f}", file=sys.stderr)
    eng = a.engine
    fgb = game.feature("free_games")
    for h in fgb.heights(eng):  # type: ignore[attr-defined]
        law = fgb.added_law(eng, h)  # type: ignore[attr-defined]
        print(f"  height {h}: m = {float(sum(k * v for k, v in law.items())):.4f}", file=sys.stderr)
    for k, v in parts.items():
        print(f"{k:<40} {float(v):.6%}")
    print(f"{'total':<40} {float(sum(parts.values(), Fraction(0))):.6%}   reveal {reveal}")
    if args.write:
        import tomllib

        figures = alternative_rtps(reveal)
        for rule, value in figures.items():
            print(f"  other reading of {rule[:50]!r}…: RTP {float(value):.6%}", file=sys.stderr)
        text = render(reveal, figures)
        if game_from_dict(tomllib.loads(text)) != game_from_dict(game_dict(reveal, figures)):
            msg = "the rendered file does not hold the designed game"
            raise SystemExit(msg)
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
