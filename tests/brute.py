"""A deliberately simple brute-force evaluator, used only by the tests.

It shares nothing with mathkit's tables, evaluation kernels or exact engine:
it reads the frozen game dataclasses and nothing else, visits every stop
combination of a reel set, builds the window from the strips and pays it by
the rules, in plain Python, written out the long way.

The rules (as stated in :mod:`mathkit.spin.evaluate`)
------------------------------------------------
* A line pays left to right from reel 1.  For every pay entry the run is the
  number of leading positions whose symbol counts towards it: the symbol
  itself, a member of a mixed group, or a wild that substitutes for one of
  the entry's symbols.
* The run pays the entry's pay for the largest declared count not above the
  run, times the product of the multipliers of the symbols in the run: a wild's
  multiplier, or a multiplier symbol's (a regular symbol with a multiplier: it
  counts only as itself, in its own entry and the mixed groups listing it); a
  wild's own combination, and an entry declared flat, are never multiplied.
* With ``multiplier_rule = "once"`` the run is paid times the largest factor among
  its symbols, once, instead of their product.  A wild's own entry declared
  ``multiplied`` is paid times its wilds' factors like any other entry.
* With ``line_symbol = "first"`` the first symbol on the line that is not a wild
  fixes the line's symbol: an entry whose run is wilds alone pays nothing (but a
  wild's own entry), so a line of wilds only pays the wilds' own combination.
* Only the highest win of a line is paid; ties go to the entry listed first.
* Ways: for each entry, the ways are the product, over consecutive reels from
  reel 1, of the number of window positions counting towards it (a wild with
  multiplier m counts as m positions); every entry pays independently.
* With ``all_wild_ways = "void"`` a way whose every cell is a wild pays nothing;
  with ``void_ways_at_wilds = n`` a window showing n wilds or more pays no way.
* A reel-ordered entry names per reel the symbols that count on that reel; a
  wild counts on a reel when it substitutes for one of that reel's symbols.
* A scatter counts anywhere in the window and pays, for the largest declared
  count not above the count shown, that multiple of the total bet — or of the
  line bet (the coins per line) when the game says ``scatter_unit = "line_bet"``, or
  with ``scatter_unit = "credits"`` that many credits at a total bet of
  ``scatter_bet``, scaled to the total bet played.
* A wild that lists a scatter in ``counts_as_scatter`` is counted as that
  scatter too, wherever it shows: the count that pays, and the count a feature
  reads (the scatter's digit), are scatters plus those wilds.

Hit keys are ``(component, entry name, paytable count)`` where the paytable
count is the largest declared count not above the run (or the number of
scatters shown).  Line hits count (outcome, line) pairs; ways and scatter
hits count outcomes.

This is slow on purpose (every outcome is visited); keep games small.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from mathkit.model.game import Game, PayEntry

__all__ = ["BruteResult", "BruteSpin", "brute_force", "brute_spin", "brute_window", "digit_value", "scatter_bet",
           "scatter_shown"]

HitKey = tuple[str, str, int]


@dataclass(frozen=True)
class BruteResult:
    """Everything a full-cycle visit of one reel set finds, in integers.

    Attributes
    ----------
    cycle
        Total weight of all outcomes (product of the reels' stop weights).
    total_bet
        Credits staked per spin.
    distribution
        ``{total win in credits: weight}`` (line or ways wins plus scatter wins).
    joint
        ``{(line or ways total, scatter counts): weight}``, the counts listed in
        the order of ``game.scatter_pays``.
    entries
        ``{(component, entry, paytable count): (hits, credits)}`` for paying combinations.
    paid_lines
        Weight of every (outcome, line) pair whose line pays (0 for ways games).
    lines
        Lines played (0 for ways games).
    """

    cycle: int
    total_bet: int
    distribution: dict[int, int]
    joint: dict[tuple[int, tuple[int, ...]], int]
    entries: dict[HitKey, tuple[int, int]]
    paid_lines: int = 0
    lines: int = 0

    def hit_frequency_per_line(self) -> Fraction:
        """P(a line pays), averaged over the lines played: paid (outcome, line) pairs / (cycle × lines)."""
        return Fraction(self.paid_lines, self.cycle * self.lines)

    def credits(self, component: str | None = None) -> int:
        return sum(c for (comp, _, _), (_, c) in self.entries.items() if component in (None, comp))

    def rtp(self, component: str | None = None) -> Fraction:
        return Fraction(self.credits(component), self.cycle * self.total_bet)

    def variance(self) -> Fraction:
        """Variance of the total win of one spin, in credits squared."""
        mean = Fraction(sum(w * n for w, n in self.distribution.items()), self.cycle)
        second = Fraction(sum(w * w * n for w, n in self.distribution.items()), self.cycle)
        return second - mean * mean


def scatter_bet(game: Game, lines: int, coins: int) -> int:
    """Credits one unit of scatter pay is worth: the line bet (the coins on one line; in a ways game the coins per
    bet unit), the total bet, or — pays written in credits at a total bet of ``scatter_bet`` — the bet played over it."""
    if game.scatter_unit == "line_bet":
        return coins
    if game.scatter_unit == "credits":
        assert game.scatter_bet is not None
        unit = Fraction(game.bet.total_bet(lines, coins), game.scatter_bet)
        assert unit.denominator == 1, "the game promises whole credits"
        return int(unit)
    return game.bet.total_bet(lines, coins)


def scatter_shown(game: Game, scatter: str, column: tuple[str, ...]) -> int:
    """How many cells of ``column`` count as scatter ``scatter``: the scatter, and every wild listing it."""
    n = 0
    for name in column:
        if name == scatter:
            n += 1
            continue
        for s in game.symbols:
            if s.name == name and s.kind == "wild" and scatter in s.counts_as_scatter:
                n += 1
    return n


def _largest_declared(counts: list[int], n: int) -> int:
    """The largest declared count not above ``n`` (0 when there is none)."""
    best = 0
    for k in counts:
        if best < k <= n:
            best = k
    return best


class _Rules:
    """The pay rules of one game at one coin option, looked up by symbol name."""

    def __init__(self, game: Game, coins: int) -> None:
        self.game = game
        self.coins = coins
        self.coin_index = game.bet.coins.index(coins)
        self.kind = {s.name: s.kind for s in game.symbols}
        # wilds and multiplier symbols (regular symbols with a factor) multiply; scatters and bonus never
        self.multiplier = {s.name: (s.multiplier if s.kind in ("wild", "regular") else 1) for s in game.symbols}
        self.substitutes = {s.name: set(s.substitutes) for s in game.symbols if s.kind == "wild"}

    def is_own(self, entry: PayEntry) -> bool:
        """The entry is a wild's own combination."""
        return len(entry.symbols) == 1 and self.kind[entry.symbols[0]] == "wild"

    def is_flat(self, entry: PayEntry) -> bool:
        """The entry is paid without multipliers: a wild's own combination (unless declared multiplied), or flat."""
        return entry.flat or (self.is_own(entry) and not entry.multiplied)

    def factor(self, names: list[str]) -> int:
        """The factor a run of ``names`` is paid by: the product of its symbols' multipliers, or with
        ``multiplier_rule = "once"`` the largest of them, once."""
        if self.game.multiplier_rule == "once":
            return max([self.multiplier[n] for n in names], default=1)
        out = 1
        for n in names:
            out *= self.multiplier[n]
        return out

    def counts_towards(self, entry: PayEntry, name: str, reel: int) -> bool:
        """Whether symbol ``name`` on ``reel`` (0-based) counts towards ``entry``.

        A reel-ordered entry lists in ``entry.reels[reel]`` the symbols it needs on that reel;
        a wild counts there when it substitutes for one of them.  Other entries need
        ``entry.symbols`` on every reel.
        """
        needed = entry.reels[reel] if entry.reels else entry.symbols
        if name in needed:
            return True
        if self.kind[name] != "wild" or self.is_own(entry):
            return False
        return any(member in self.substitutes[name] for member in needed)

    def pay(self, entry: PayEntry, count: int) -> int:
        """Credits for a run of ``count`` at this coin option (before multipliers).

        The declared count paid is the largest not above the run; its value is paid per
        coin (times the coins) unless the file listed one value per coin option.
        """
        paid = _largest_declared(list(entry.counts), count)
        if paid == 0:
            return 0
        values = dict(entry.pays)[paid]
        if paid in entry.per_option:
            return values[self.coin_index]
        return values[0] * self.coins

    def line(self, seq: tuple[str, ...]) -> tuple[int, PayEntry | None, int]:
        """``(win, entry, run)`` of one line; the first entry wins a tie."""
        best_win, best_entry, best_run = 0, None, 0
        for entry in self.game.line_pays:
            run = 0
            for reel, name in enumerate(seq):
                if not self.counts_towards(entry, name, reel):
                    break
                run += 1
            win = self.pay(entry, run)
            if (self.game.line_symbol == "first" and not self.is_own(entry)
                    and all(self.kind[name] == "wild" for name in seq[:run])):
                win = 0  # the first non-wild symbol fixes the line: wilds alone stand for no other symbol
            if not self.is_flat(entry):
                win *= self.factor(list(seq[:run]))
            if win > best_win:
                best_win, best_entry, best_run = win, entry, run
        return best_win, best_entry, best_run

    def ways(self, window: tuple[tuple[str, ...], ...]) -> list[tuple[int, PayEntry, int]]:
        """``(win, entry, run)`` for every entry that pays in a ways window.

        Every way is listed, one cell per reel of the run; a cell with a ×m symbol counts m times.  With
        ``all_wild_ways = "void"`` a way whose cells are all wilds is not counted; with
        ``void_ways_at_wilds = n`` a window showing n wilds or more pays no way.
        """
        wilds_shown = sum(1 for column in window for name in column if self.kind[name] == "wild")
        if self.game.void_ways_at_wilds and wilds_shown >= self.game.void_ways_at_wilds:
            return []
        out = []
        for entry in self.game.line_pays:
            cells = []
            for reel, column in enumerate(window):
                here = [name for name in column if self.counts_towards(entry, name, reel)]
                if not here:
                    break
                cells.append(here)
            run = len(cells)
            ways = 0
            for way in product(*cells):
                if self.game.all_wild_ways == "void" and all(self.kind[name] == "wild" for name in way):
                    continue
                count = 1
                for name in way:
                    count *= self.multiplier[name]
                ways += count
            win = self.pay(entry, run) * ways if run else 0
            if win > 0:
                out.append((win, entry, run))
        return out


def brute_force(game: Game, reels: str | None = None, *, lines: int | None = None,
                coins: int | None = None) -> BruteResult:
    """Visit every stop combination of reel set ``reels`` and pay each window.

    ``lines`` is the number of paylines played (the first ones; default
    ``game.bet.lines``), ``coins`` the coins per line (default the first
    option).
    """
    rs = game.reel_set(reels)
    coin = game.bet.coins[0] if coins is None else coins
    n_lines = game.bet.lines if lines is None else lines
    total_bet = game.bet.total_bet(n_lines, coin)  # lines × coins, or the fixed total × coins
    scatter_unit = scatter_bet(game, n_lines, coin)
    rules = _Rules(game, coin)
    paylines = game.paylines[:n_lines] if game.pay_mode == "lines" else ()
    component = game.pay_mode

    # every stop of every reel: (weight, the column of symbols it shows)
    reel_stops = []
    for r, strip in enumerate(rs.strips):
        weights = rs.weights[r] if rs.weights is not None else (1,) * len(strip)
        stops = []
        for i, weight in enumerate(weights):
            column = tuple(strip[(i + k) % len(strip)] for k in range(rs.rows[r]))
            stops.append((weight, column))
        reel_stops.append(stops)

    line_cache: dict[tuple[str, ...], tuple[int, PayEntry | None, int]] = {}
    cycle = 0
    distribution: dict[int, int] = defaultdict(int)
    joint: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    hits: dict[HitKey, list[int]] = defaultdict(lambda: [0, 0])
    paid_lines = 0

    for combo in product(*reel_stops):
        weight = 1
        for w, _ in combo:
            weight *= w
        window = tuple(column for _, column in combo)
        cycle += weight

        line_total = 0
        if component == "lines":
            for rows in paylines:
                seq = tuple(window[r][row] for r, row in enumerate(rows))
                if seq not in line_cache:
                    line_cache[seq] = rules.line(seq)
                win, entry, run = line_cache[seq]
                if win > 0:
                    assert entry is not None
                    key = (component, entry.name, _largest_declared(list(entry.counts), run))
                    hits[key][0] += weight
                    hits[key][1] += win * weight
                    line_total += win
                    paid_lines += weight
        else:
            for win, entry, run in rules.ways(window):
                key = (component, entry.name, _largest_declared(list(entry.counts), run))
                hits[key][0] += weight
                hits[key][1] += win * weight
                line_total += win

        scatter_total = 0
        shown = []
        for sp in game.scatter_pays:
            count = sum(scatter_shown(game, sp.symbol, column) for column in window)
            shown.append(count)
            win = sp.pay(count) * scatter_unit
            if win > 0:
                key = ("scatter", sp.symbol, _largest_declared([k for k, _ in sp.pays], count))
                hits[key][0] += weight
                hits[key][1] += win * weight
                scatter_total += win

        distribution[line_total + scatter_total] += weight
        joint[(line_total, tuple(shown))] += weight

    return BruteResult(
        cycle=cycle,
        total_bet=total_bet,
        distribution=dict(distribution),
        joint=dict(joint),
        entries={k: (h, c) for k, (h, c) in hits.items()},
        paid_lines=paid_lines,
        lines=len(paylines),
    )


# ----------------------------------------------------------------------------- one modified spin
ColumnDigit = Callable[[int, tuple[str, ...]], int]


@dataclass(frozen=True)
class BruteSpin:
    """A full-cycle visit of one modified spin (a :class:`mathkit.laws.stage.SpinModel`), in integers.

    ``distribution``: ``{total win: weight}``; ``joint``: ``{(total win, digit values): weight}``
    (digits in the order asked); ``credits``: credits over the cycle by component (``lines`` or
    ``ways``, ``scatter`` and each extra's component); ``paid_lines``: the weight of every
    (outcome, line) pair whose line pays (0 for ways games), ``lines`` the lines active.
    """

    cycle: int
    total_bet: int
    distribution: dict[int, int]
    joint: dict[tuple[int, tuple[int, ...]], int]
    credits: dict[str, int]
    paid_lines: int = 0
    lines: int = 0

    def rtp(self) -> Fraction:
        return Fraction(sum(self.credits.values()), self.cycle * self.total_bet)

    def variance(self) -> Fraction:
        mean = Fraction(sum(w * n for w, n in self.distribution.items()), self.cycle)
        second = Fraction(sum(w * w * n for w, n in self.distribution.items()), self.cycle)
        return second - mean * mean


def digit_value(name: str, reel: int, column: tuple[str, ...], symbols: set[str], game: Game | None = None) -> int:
    """The built-in digits, written out: ``SYMBOL`` counts it in the column (a scatter with the wilds counting
    as it, when ``game`` is given), ``SYMBOL@r`` its rows on reel ``r``."""
    if name in symbols:
        if game is not None and game.symbol(name).kind == "scatter":
            return scatter_shown(game, name, column)
        return sum(1 for s in column if s == name)
    sym, _, r = name.rpartition("@")
    if int(r) - 1 != reel:
        return 0
    mask = 0
    for row, s in enumerate(column):
        if s == sym:
            mask += 2**row
    return mask


def brute_spin(game: Game, model: Any, *, lines: int | None = None, coins: int | None = None,
               digits: tuple[str, ...] = (), custom: dict[str, ColumnDigit] | None = None) -> BruteSpin:
    """Visit every stop combination of ``model``'s spin and pay each window by the rules.

    The model's fields, read the long way: ``rows`` (every reel shows that many stops),
    ``lines`` (the first paylines active), ``forced`` cells shown whatever the stop, ``remap``
    (the line rule reads a symbol as another; digits and scatters see what is shown),
    ``restrict`` (only the stops of a reel where a digit takes given values), ``extra``
    (credits per unit of a digit, not multiplied), ``products`` (credits times the product of
    two digits' totals, not multiplied) and the multipliers.  ``custom`` gives the
    value functions of digits that are not built in.
    """
    custom = custom or {}
    rs = game.reel_set(model.reels)
    coin = game.bet.coins[0] if coins is None else coins
    n_lines = (game.bet.lines if lines is None else lines) if model.lines is None else model.lines
    total_bet = game.bet.total_bet(n_lines, coin)
    scatter_unit = scatter_bet(game, n_lines, coin)
    rules = _Rules(game, coin)
    paylines = game.paylines[:n_lines] if game.pay_mode == "lines" else ()
    names = {s.name for s in game.symbols}
    read_as = dict(model.remap)

    def value(name: str, reel: int, column: tuple[str, ...]) -> int:
        return custom[name](reel, column) if name in custom else digit_value(name, reel, column, names, game)

    # every stop of every reel: (weight, the column shown, the column read, its digit values, its scatter counts)
    reel_stops = []
    for r, strip in enumerate(rs.strips):
        height = rs.rows[r] if model.rows is None else model.rows
        weights = rs.weights[r] if rs.weights is not None else (1,) * len(strip)
        stops = []
        for i, weight in enumerate(weights):
            column = [strip[(i + k) % len(strip)] for k in range(height)]
            for reel, row, sym in model.forced:
                if reel == r:
                    column[row] = sym
            shown = tuple(column)
            if all(value(d, r, shown) in allowed for reel, d, allowed in model.restrict if reel == r):
                read = tuple(read_as.get(s, s) for s in shown)
                seen = tuple(value(d, r, shown) for d in digits)
                extras = tuple(value(d, r, shown) for _, d, _ in model.extra)
                counts = tuple(scatter_shown(game, sp.symbol, shown) for sp in game.scatter_pays)
                factors = tuple((value(a, r, shown), value(b, r, shown)) for _, a, b, _ in model.products)
                stops.append((weight, read, seen, extras, counts, factors))
        reel_stops.append(stops)

    line_cache: dict[tuple[str, ...], int] = {}
    ways_cache: dict[tuple[tuple[str, ...], ...], int] = {}
    cycle = 0
    distribution: dict[int, int] = defaultdict(int)
    joint: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    credits: dict[str, int] = defaultdict(int)
    paid_lines = 0
    for combo in product(*reel_stops):
        weight = 1
        for stop in combo:
            weight *= stop[0]
        cycle += weight
        read = tuple(stop[1] for stop in combo)
        line_total = 0
        if game.pay_mode == "lines":
            for rows in paylines:
                seq = tuple(read[r][row] for r, row in enumerate(rows))
                if seq not in line_cache:
                    line_cache[seq] = rules.line(seq)[0]
                line_total += line_cache[seq]
                if line_cache[seq] > 0:
                    paid_lines += weight
        else:
            if read not in ways_cache:
                ways_cache[read] = sum(win for win, _, _ in rules.ways(read))
            line_total = ways_cache[read]
        line_total *= model.line_multiplier
        scatter_total = 0
        for k, sp in enumerate(game.scatter_pays):
            count = sum(stop[4][k] for stop in combo)
            scatter_total += sp.pay(count) * scatter_unit * model.scatter_multiplier
        total = line_total + scatter_total
        credits[game.pay_mode] += line_total * weight
        credits["scatter"] += scatter_total * weight
        for k, (component, _, unit) in enumerate(model.extra):
            x = unit * sum(stop[3][k] for stop in combo)
            credits[component] += x * weight
            total += x
        for k, (component, _, _, unit) in enumerate(model.products):
            a_total = sum(stop[5][k][0] for stop in combo)
            b_total = sum(stop[5][k][1] for stop in combo)
            x = unit * a_total * b_total
            credits[component] += x * weight
            total += x
        seen = tuple(sum(stop[2][k] for stop in combo) for k in range(len(digits)))
        distribution[total] += weight
        joint[(total, seen)] += weight
    return BruteSpin(cycle, total_bet, dict(distribution), dict(joint), {k: v for k, v in credits.items() if v},
                     paid_lines, len(paylines))


def brute_window(game: Game, window: tuple[tuple[str, ...], ...], *, lines: int | None = None,
                 coins: int | None = None) -> int:
    """The credits one window pays (reels left to right, rows top to bottom), by the rules above."""
    coin = game.bet.coins[0] if coins is None else coins
    n_lines = game.bet.lines if lines is None else lines
    rules = _Rules(game, coin)
    total = 0
    if game.pay_mode == "lines":
        for rows in game.paylines[:n_lines]:
            total += rules.line(tuple(window[r][row] for r, row in enumerate(rows)))[0]
    else:
        total += sum(win for win, _, _ in rules.ways(window))
    unit = scatter_bet(game, n_lines, coin)
    for sp in game.scatter_pays:
        total += sp.pay(sum(scatter_shown(game, sp.symbol, column) for column in window)) * unit
    return total
