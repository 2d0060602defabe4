"""Variable heights, cash stacks and jackpots on random small games: the composed round against brute force, exactly.

The brute force here shares nothing with the blocks but the game data: for every
height it visits every stop combination, builds the window, pays the lines by
:mod:`brute`'s rules, finds the stacks itself (runs of PRIZE cells read bottom up,
split in plain Python), gives them their values, counts the jackpot PRIZEs and
convolves their reveals — all in Fractions — and mixes the heights by their law.
The round the composer builds (mean by component, second moment, distribution)
must equal it: means and second moments as Fractions, the distribution to round-off.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict
from fractions import Fraction

from brute import _Rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathkit.features.cash_stacks import CashStacks
from mathkit.features.heights import VariableHeights
from mathkit.features.jackpots import Jackpots
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.model.validate import validate_game
from mathkit.round import analyse

PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VALUES = {"X": Fraction(1), "Y": Fraction(5, 2)}
JACKPOTS = (("Mini", 10), ("Major", 200))
BET = 2


@st.composite
def prince_like(draw: st.DrawFn) -> Game:
    """3 reels of 3–6 stops drawn 1–3 rows high (one line per row); activators X, Y on reels 1 and 3."""
    edge = ["A", "B", "P", "J", "X", "Y"]
    middle = ["A", "B", "W", "P", "J"]
    n = [draw(st.integers(3, 6)) for _ in range(3)]
    strips = [tuple(draw(st.lists(st.sampled_from(edge if r != 1 else middle), min_size=n[r], max_size=n[r])))
              for r in range(3)]
    for r in draw(st.lists(st.integers(0, 2), max_size=2, unique=True)):  # a stack with a jackpot PRIZE inside
        strips[r] = ("P", "J", "P", *strips[r][3:])
    heights = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=3,
                            unique_by=lambda x: x[0]))
    reveal = (("Mini", draw(st.integers(1, 5))), ("Major", draw(st.integers(0, 2))))
    g = Game(
        name="prince-like",
        symbols=(Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A", "B"), (2,)),
                 *(Symbol(s, "bonus") for s in VALUES),
                 Symbol("P", "bonus"), Symbol("J", "bonus", mark="jackpot")),
        reel_sets=(ReelSet("base", tuple(strips), (3, 3, 3)),),
        line_pays=(PayEntry("A", ("A",), ((2, (1,)), (3, (6,)))), PayEntry("B", ("B",), ((3, (4,)),))),
        bet=Bet(1, total=BET),
        paylines=((0, 0, 0), (1, 1, 1), (2, 2, 2)),
        features=(VariableHeights(name="variable_heights", heights=tuple(sorted(heights)), lines_per_row=1),
                  CashStacks(name="cash_stacks", activators=tuple(VALUES.items()), reels=(1, 3), prizes=("P", "J"),
                             chain=draw(st.sampled_from(["pass", "restart"]))),
                  Jackpots(name="jackpots", requires=("X", "Y"), prizes=JACKPOTS, reveal=reveal)),
    )
    validate_game(g)
    return g


def stack_cash(column: tuple[str, ...], a: Fraction, restart: bool) -> Fraction:
    """The cash one column pays: its stacks split out bottom up, eligible PRIZEs counted along each."""
    out = Fraction(0)
    bottom_up = list(reversed(column))
    for is_prize, run in itertools.groupby(bottom_up, key=lambda s: s in ("P", "J")):
        if not is_prize:
            continue
        cells = list(run)
        segments: list[list[str]] = [[]]
        for s in cells:
            if s == "J":
                if restart:
                    segments.append([])
            else:
                segments[-1].append(s)
        for seg in segments:
            out += a * sum(range(1, len(seg) + 1))
    return out


def reveal_law(k: int, reveal: tuple[tuple[str, int], ...]) -> dict[int, Fraction]:
    """The sum of ``k`` independent reveals, in credits."""
    total = sum(w for _, w in reveal)
    one = {v * BET: Fraction(w, total) for (_, v), (_, w) in zip(JACKPOTS, reveal, strict=True) if w}
    law = {0: Fraction(1)}
    for _ in range(k):
        nxt: dict[int, Fraction] = defaultdict(Fraction)
        for x, p in law.items():
            for y, q in one.items():
                nxt[x + y] += p * q
        law = dict(nxt)
    return law


def brute_round(g: Game) -> tuple[dict[int, Fraction], dict[str, Fraction]]:
    """The round's win law (credits) and its mean by component (× bet), by visiting everything."""
    heights = g.feature("variable_heights")
    cash_block = g.feature("cash_stacks")
    jack = g.feature("jackpots")
    assert isinstance(heights, VariableHeights) and isinstance(cash_block, CashStacks) and isinstance(jack, Jackpots)
    restart = cash_block.chain == "restart"
    rules = _Rules(g, 1)
    rs = g.reel_set()
    law: dict[int, Fraction] = defaultdict(Fraction)
    parts: dict[str, Fraction] = defaultdict(Fraction)
    total_w = sum(w for _, w in heights.heights)
    for h, w in heights.heights:
        ph = Fraction(w, total_w)
        cols = [[tuple(s[(i + k) % len(s)] for k in range(h)) for i in range(len(s))] for s in rs.strips]
        cycle = len(cols[0]) * len(cols[1]) * len(cols[2])
        for window in itertools.product(*cols):
            p = ph / cycle
            lines = sum(rules.line(tuple(window[r][row] for r in range(3)))[0] for row in range(h))
            shown = [s for col in window for s in col]
            a = sum((VALUES.get(s, Fraction(0)) for s in shown), Fraction(0))
            cash = Fraction(0)
            marks = 0
            if a > 0 and any(s in ("P", "J") for s in shown):
                cash = sum((stack_cash(col, a, restart) for col in window), Fraction(0)) * BET
                marks = shown.count("J")
            assert cash.denominator == 1
            parts["lines"] += p * lines / BET
            parts["cash stacks"] += p * cash / BET
            total_reveal = sum(w for _, w in jack.reveal)
            for (name, v), (_, wt) in zip(JACKPOTS, jack.reveal, strict=True):
                if wt:
                    parts[f"jackpots: {name}"] += p * marks * Fraction(wt, total_reveal) * v
            for x, q in reveal_law(marks, jack.reveal).items():
                law[lines + int(cash) + x] += p * q
    return dict(law), {k: v for k, v in parts.items() if v}


@PROPERTY
@given(prince_like())
def test_heights_cash_stacks_and_jackpots_equal_brute_force(g: Game) -> None:
    equals_brute_force(g)


def equals_brute_force(g: Game) -> None:
    """The composed round's breakdown, mean, second moment and win law are the brute force's, exactly."""
    law, parts = brute_round(g)
    a = analyse(g, level="distribution")
    assert {k: v for k, v in a.breakdown().items() if v} == parts
    mean = sum((x * p for x, p in law.items()), Fraction(0))
    second = sum((x * x * p for x, p in law.items()), Fraction(0))
    assert a.outcome.mean == mean
    assert a.outcome.m2 == second
    d = a.outcome.dist
    assert d is not None
    got = dict(zip(d.values.tolist(), d.probs.tolist(), strict=True))
    want = {x: float(p) for x, p in law.items() if p}
    assert set(got) == set(want)
    assert all(abs(got[x] - want[x]) <= 1e-12 for x in want)
    # the fast mean path agrees with the composed round
    assert analyse(g, level="mean").breakdown() == a.breakdown()


@st.composite
def tall_stacks(draw: st.DrawFn) -> Game:
    """:func:`prince_like` with a stack of 4–5 PRIZE cells holding two or three jackpot PRIZEs on every reel.

    The window is at most 3 rows high, so some stop of each reel shows its stack cut by the top edge, some by the
    bottom edge, and some (the window inside the run) by both; two or three jackpot PRIZEs can show in one stack.
    """
    g = draw(prince_like())
    rs = g.reel_set("base")
    strips = []
    for r in range(rs.n_reels):
        size = draw(st.integers(4, 5))
        cells = ["P"] * size
        for k in draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=3, unique=True)):
            cells[k] = "J"
        rest = draw(st.lists(st.sampled_from(["A", "B", "X", "Y"] if r != 1 else ["A", "B", "W"]), min_size=2,
                             max_size=3))
        strips.append((*cells, *rest))
    out = dataclasses.replace(g, reel_sets=(dataclasses.replace(rs, strips=tuple(strips)),))
    validate_game(out)
    return out


@PROPERTY
@given(tall_stacks())
def test_multi_jackpot_stacks_cut_at_both_edges_equal_brute_force(g: Game) -> None:
    equals_brute_force(g)
