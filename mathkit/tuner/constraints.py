"""What a tuning keeps: :class:`Constraints` (switches and bounds) and the per-reel rules they imply.

Kept by default, each switchable:

* **fixed symbols** — every wild, scatter and bonus symbol keeps its stops
  (``fixed``; give another set, or an empty one, to let them move);
* **stack shapes** — a wild, scatter or bonus symbol whose runs on a reel set
  all have one length ``k ≥ 2``, or any symbol declared in ``stacks = { SEAL = 3 }``,
  is only added or removed as whole runs of exactly ``k`` (``keep_stacks``);
* **per-reel counts** within ``±count_tolerance`` (25%, at least ±1) of the
  original, or explicit ``[min, max]`` bounds; a paying symbol keeps at least
  one stop on a reel it was on (every award stays reachable), a blank may go,
  and no symbol appears on a reel it was not on unless explicit bounds allow it;
* **runs** — no symbol's run grows longer than its longest run on the
  original reel set (``max_run`` per symbol; ``no_adjacent`` symbols never
  touch); scatters stay ``scatter_spacing`` stops apart (default: the window
  height, or the original's closest pair if closer);
* **strip lengths** (``keep_length``);
* **feature frequency** within ``±feature_frequency_tolerance`` (5%) of the
  original unless it is a target;
* the **pay order's frequencies** (``keep_order``): on every reel, a symbol
  that pays at least as much as another at every count (more at one) and had no
  more stops than it still has no more (the hierarchy the designer built,
  found on the strips: more DRAGON than PHOENIX never appears where there was none);
* a declared **symbol hierarchy** (tiers from the highest pay down): on every
  reel a symbol is never more frequent than one of a lower tier;
* **pays** (``--vary pays``) stay whole numbers ≥ 1, never fall as the count
  grows, and a pay larger than another at the same count stays at least as large.

Examples
--------
>>> sorted(runs(("A", "B", "B", "A")).items())
[('A', 2), ('B', 2)]
>>> count_bounds(10, Fraction(1, 4)), count_bounds(1, Fraction(1, 4)), count_bounds(0, Fraction(1, 4))
((8, 12), (1, 2), (0, 0))
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import ModelError
from ..model.edits import allowed_on
from ..model.game import Game

__all__ = ["Constraints", "ReelRules", "SetRules", "count_bounds", "length_change", "outranks", "paying_symbols", "runs",
           "set_rules"]


@dataclass(frozen=True)
class Constraints:
    """What a tuning must keep (see the module notes for the defaults)."""

    fixed: frozenset[str] | None = None
    count_tolerance: Fraction = Fraction(1, 4)
    counts: tuple[tuple[str, str, tuple[tuple[int, int], ...]], ...] = ()
    keep_stacks: bool = True
    stacks: tuple[tuple[str, int], ...] = ()
    keep_length: bool = True
    scatter_spacing: int | None = None
    no_adjacent: frozenset[str] = frozenset()
    max_run: tuple[tuple[str, int], ...] = ()
    hierarchy: tuple[tuple[str, ...], ...] = ()
    keep_order: bool = True
    feature_frequency_tolerance: Fraction | None = Fraction(1, 20)
    keep_pay_order: bool = True

    @classmethod
    def build(cls, game: Game, **overrides: Any) -> Constraints:
        """The game's declared constraints (``[tuning]``), then ``overrides`` (``None`` values are ignored)."""
        t = game.tuning
        base: dict[str, Any] = {}
        if t is not None:
            base = {
                "fixed": None if t.fixed is None else frozenset(t.fixed),
                "count_tolerance": t.count_tolerance, "counts": t.counts, "keep_stacks": t.keep_stacks,
                "stacks": t.stacks, "keep_length": t.keep_length, "scatter_spacing": t.scatter_spacing,
                "no_adjacent": frozenset(t.no_adjacent), "max_run": t.max_run, "hierarchy": t.hierarchy,
                "keep_order": t.keep_order,
                "feature_frequency_tolerance": t.feature_frequency_tolerance,
            }
        base.update(overrides)
        return dataclasses.replace(cls(), **{k: v for k, v in base.items() if v is not None})

    def fixed_symbols(self, game: Game) -> frozenset[str]:
        """The fixed symbols: as given, or every wild, scatter and bonus symbol."""
        if self.fixed is not None:
            unknown = sorted(self.fixed - set(game.symbol_names))
            if unknown:
                msg = f"fixed symbol(s) {', '.join(unknown)} not in the game ({', '.join(game.symbol_names)})"
                raise ModelError(msg)
            return self.fixed
        return frozenset(s.name for s in game.symbols if s.kind != "regular")


def runs(strip: Sequence[str]) -> dict[str, int]:
    """Longest circular run of each symbol on a strip."""
    n = len(strip)
    out: dict[str, int] = {}
    if len(set(strip)) == 1:
        return {strip[0]: n}
    start = next(i for i in range(n) if strip[i] != strip[i - 1])
    k = 0
    for j in range(n):
        i = (start + j) % n
        k = k + 1 if j and strip[i] == strip[i - 1] else 1
        out[strip[i]] = max(out.get(strip[i], 0), k)
    return out


def run_lengths(strip: Sequence[str], symbol: str) -> list[int]:
    """Lengths of every circular run of ``symbol``."""
    n = len(strip)
    if all(s == symbol for s in strip):
        return [n]
    start = next(i for i in range(n) if strip[i] != strip[i - 1])
    out: list[int] = []
    for j in range(n):
        i = (start + j) % n
        if strip[i] == symbol:
            if strip[i - 1] == symbol and j:
                out[-1] += 1
            else:
                out.append(1)
    return out


def count_bounds(n0: int, tolerance: Fraction, *, keep_one: bool = True) -> tuple[int, int]:
    """Counts allowed for a symbol with ``n0`` stops: ``n0 ± max(1, ⌊n0·tolerance⌋)``, at least 1 when
    ``keep_one`` (a paying symbol stays on its reel); 0 stays 0."""
    if n0 == 0:
        return 0, 0
    w = max(1, math.floor(n0 * tolerance))
    return max(1 if keep_one else 0, n0 - w), n0 + w


def length_change(length: int, cons: Constraints) -> int:
    """How many stops a strip may gain or lose when lengths may change: ``max(1, ⌊L·count_tolerance⌋)``."""
    return max(1, math.floor(length * cons.count_tolerance))


def outranks(game: Game) -> tuple[tuple[str, str], ...]:
    """Pairs ``(a, b)`` of symbols whose line pays ``a`` dominates: at least ``b``'s at every count, more at one.

    Only single-symbol paytable entries take part (a mixed group ranks no symbol).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> pairs = outranks(load_game("data/games/dynasty.toml"))
    >>> ("DRAGON", "PHOENIX") in pairs, ("KING", "QUEEN") in pairs, ("TEN", "NINE") in pairs
    (True, True, False)
    """
    pays = {e.name: dict(e.pays) for e in game.line_pays if e.symbols == (e.name,)}

    def at(p: dict[int, tuple[int, ...]], k: int) -> tuple[int, ...]:
        below = [c for c in p if c <= k]
        return p[max(below)] if below else (0,)

    out = []
    for a, pa in pays.items():
        for b, pb in pays.items():
            if a == b:
                continue
            ks = sorted(set(pa) | set(pb))
            va = [at(pa, k) for k in ks]
            vb = [at(pb, k) for k in ks]
            if all(x >= y for x, y in zip(va, vb, strict=True)) and va != vb:
                out.append((a, b))
    return tuple(out)


def paying_symbols(game: Game) -> frozenset[str]:
    """Symbols an award needs: in a pay entry, paying as a scatter, wild, or read by a feature."""
    out = {s for e in game.line_pays for s in e.symbols}
    out |= {sp.symbol for sp in game.scatter_pays}
    out |= {s.name for s in game.symbols if s.kind != "regular"}
    for f in game.features:
        out |= set(f.symbols())
    return frozenset(out)


@dataclass(frozen=True)
class ReelRules:
    """The rules for one reel of a varied reel set.

    ``bounds[s]`` is the allowed count of each movable symbol (in stops);
    ``stack[s]`` its stack shape (1: single stops); ``max_run[s]`` its longest run;
    ``order`` the pairs ``(a, b)`` kept at ``count(a) ≤ count(b)`` (``keep_order``).
    """

    reel: int
    length: int
    counts: dict[str, int]
    bounds: dict[str, tuple[int, int]]
    stack: dict[str, int]
    max_run: dict[str, int]
    order: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SetRules:
    """The rules for one varied reel set."""

    name: str
    fixed: frozenset[str]
    scatters: frozenset[str]
    spacing: int
    reels: tuple[ReelRules, ...]
    hierarchy: tuple[tuple[str, ...], ...]


def _spacing(strips: Sequence[Sequence[str]], scatters: frozenset[str], rows: int) -> int:
    closest = rows
    for strip in strips:
        marks = [i for i, s in enumerate(strip) if s in scatters]
        n = len(strip)
        for k, a in enumerate(marks):
            for b in marks[k + 1:]:
                closest = min(closest, (b - a) % n, (a - b) % n)
    return max(1, closest)


def set_rules(game: Game, reels: str, cons: Constraints) -> SetRules:
    """Resolve ``cons`` on reel set ``reels`` of the original ``game``."""
    rs = game.reel_set(reels)
    fixed = cons.fixed_symbols(game)
    scatters = frozenset(s.name for s in game.scatters)
    strips = rs.strips
    declared_stacks = dict(cons.stacks)
    explicit_runs = dict(cons.max_run)
    longest: dict[str, int] = {}
    lengths: dict[str, set[int]] = {}
    for strip in strips:
        for s, k in runs(strip).items():
            longest[s] = max(longest.get(s, 0), k)
        for s in set(strip):
            lengths.setdefault(s, set()).update(run_lengths(strip, s))
    stack: dict[str, int] = {}
    if cons.keep_stacks:
        special = {s.name for s in game.symbols if s.kind != "regular"}
        for s, ls in lengths.items():
            if s in special and len(ls) == 1 and min(ls) >= 2:
                stack[s] = min(ls)
        stack.update(declared_stacks)
    paying = paying_symbols(game)
    explicit: dict[tuple[str, int], tuple[int, int]] = {}
    for name, sym, pairs in cons.counts:
        if name != rs.name:
            continue
        for r in range(rs.n_reels):
            explicit[(sym, r)] = pairs[0] if len(pairs) == 1 else pairs[r]
    ranked = outranks(game) if cons.keep_order else ()
    out = []
    for r, strip in enumerate(strips):
        n0 = Counter(strip)
        order = tuple((a, b) for a, b in ranked if 0 < n0[a] <= n0[b] and not {a, b} <= fixed)
        bounds: dict[str, tuple[int, int]] = {}
        max_run: dict[str, int] = {}
        for s in game.symbol_names:
            if s in fixed:
                continue
            k = stack.get(s, 1)
            if (s, r) in explicit:
                lo, hi = explicit[(s, r)]
                if hi > 0 and not allowed_on(game, s, r):
                    msg = f"tuning.counts.{rs.name}.{s}: {s} may not appear on reel {r + 1}"
                    raise ModelError(msg)
            else:
                units = count_bounds(n0[s] // k, cons.count_tolerance, keep_one=s in paying)
                lo, hi = units[0] * k, units[1] * k
            m = 1 if s in cons.no_adjacent else explicit_runs.get(s, max(1, longest.get(s, 1)))
            max_run[s] = k if k > 1 else m
            # at most ⌊L·m/(m+1)⌋ stops can hold a symbol whose runs are at most m long (L: the longest strip allowed)
            longest_strip = len(strip) + (0 if cons.keep_length else length_change(len(strip), cons))
            cap = longest_strip * max_run[s] // (max_run[s] + 1) if k == 1 else longest_strip
            bounds[s] = (lo, min(hi, cap))
        out.append(ReelRules(r, len(strip), dict(n0), bounds, stack, max_run, order))
    spacing = cons.scatter_spacing if cons.scatter_spacing is not None else _spacing(strips, scatters, max(rs.rows))
    return SetRules(rs.name, fixed, scatters, spacing, tuple(out), cons.hierarchy)
