"""The enumeration kernels' paths against brute force, and the ahead-of-time kernels against numba's.

The property tests of test_engine_property.py and test_stops_property.py run the
default kernels (the ahead-of-time extension once built) on games of 3 to 5
reels, one thread.  Here: games of 1, 2 and 6 reels (a prefix without a head,
a suffix without a rest, a rest of two reels), the threaded prefix pass,
grouping and combine, and numba's just-in-time kernels — each exactly equal to
:func:`brute.brute_force`.  Then the two builds of the kernels agree cell for
cell on the shipped games, and the extension's argument conversion refuses
what it cannot convert safely.
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from brute import brute_force
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_property import games_and_bets, positive

import mathkit.exact.cycle.lines
from mathkit.dev.warmup import ready
from mathkit.exact.cycle import joint_counts, kernels
from mathkit.gamefile.io import load_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables

ROOT = Path(__file__).resolve().parents[1]
PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def joint(game: Game, *, lines: int | None = None, coins: int | None = None,
          parallel: bool = False) -> tuple[dict[tuple[int, tuple[int, ...]], int], int]:
    """The kernel's joint counts as ``{(line total, scatter counts): weight}`` (as test_engine_property reads them)."""
    jc = joint_counts(pay_tables(game, lines=lines, coins=coins), stop_tables(game, SpinModel(game.default_reels)),
                      parallel=parallel)
    shown = [jc.digit(sp.symbol).tolist() for sp in game.scatter_pays]
    out: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    for i, (w, n) in enumerate(zip(jc.wins.tolist(), jc.counts.tolist(), strict=True)):
        out[(int(w), tuple(c[i] for c in shown))] += int(n)
    return positive(dict(out)), jc.cycle


@st.composite
def shaped_games(draw: st.DrawFn, n_reels: int) -> Game:
    """A random small lines game with ``n_reels`` reels: a paying wild with a multiplier, a scatter."""
    rows = draw(st.integers(1, 3))
    regular = ["A", "B", "C"]
    wild = Symbol("W", "wild", tuple(draw(st.lists(st.sampled_from(regular), min_size=1, unique=True))), (),
                  draw(st.booleans()), draw(st.sampled_from([1, 2, 3])))
    symbols = (*(Symbol(s) for s in regular), wild, Symbol("S", "scatter"))
    names = [*regular, "W", "S"]
    longest = max(rows, 4 if n_reels <= 2 else 3)
    strips = tuple(tuple(draw(st.lists(st.sampled_from(names), min_size=rows, max_size=longest)))
                   for _ in range(n_reels))
    weights = None
    if draw(st.booleans()):
        weights = tuple(tuple(draw(st.integers(1, 3)) for _ in s) for s in strips)

    def pays() -> tuple[tuple[int, tuple[int, ...]], ...]:
        counts = draw(st.lists(st.integers(1, n_reels), min_size=1, max_size=n_reels, unique=True))
        return tuple((k, (draw(st.integers(0, 40)),)) for k in sorted(counts))

    entries = tuple(PayEntry(s, (s,), pays()) for s in [*regular, "W"] if s != "W" or wild.pays)
    line = st.tuples(*(st.integers(0, rows - 1) for _ in range(n_reels)))
    paylines = tuple(draw(st.lists(line, min_size=1, max_size=5, unique=True)))
    game = Game("shaped", symbols, (ReelSet("base", strips, (rows,) * n_reels, weights),), entries,
                Bet(len(paylines)), paylines=paylines,
                scatter_pays=(ScatterPay("S", ((1, draw(st.integers(0, 5))), (2, draw(st.integers(0, 20))))),))
    validate_game(game)
    return game


@PROPERTY
@given(st.sampled_from([1, 2, 6]).flatmap(shaped_games))
def test_one_two_and_six_reels_equal_brute_force(game: Game) -> None:
    brute = brute_force(game)
    got, cycle = joint(game)
    assert cycle == brute.cycle
    assert got == brute.joint


@PROPERTY
@given(case=st.one_of(games_and_bets("lines"), st.sampled_from([2, 6]).flatmap(shaped_games).map(lambda g: (g, None, 1))))
def test_threaded_kernels_equal_brute_force(case: tuple[Game, int | None, int], monkeypatch: pytest.MonkeyPatch) -> None:
    # the threaded prefix pass, grouping by hash parts and chunked combine, forced on small cycles
    game, lines, coins = case
    monkeypatch.setattr(mathkit.exact.cycle.lines, "PARALLEL_MIN", 0)
    brute = brute_force(game, lines=lines, coins=coins)
    got, cycle = joint(game, lines=lines, coins=coins, parallel=True)
    assert cycle == brute.cycle
    assert got == brute.joint


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(games_and_bets("lines"), games_and_bets("ways")))
def test_jit_kernels_equal_brute_force(case: tuple[Game, int | None, int]) -> None:
    # numba's kernels: what runs when the ahead-of-time extension is missing or stale
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    with kernels.use("jit"):
        got, cycle = joint(game, lines=lines, coins=coins)
    assert cycle == brute.cycle
    assert got == brute.joint


# ----------------------------------------------------------------------------- the two builds of the kernels
def aot_in_use() -> bool:
    return kernels.aot_status() == "in use"


needs_aot = pytest.mark.skipif(not aot_in_use(), reason="the ahead-of-time extension is not built (no C compiler?)")


def test_extension_is_built_at_install() -> None:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: the kernels come from numba's cache")
    if not ready():
        pytest.skip("the kernels were not compiled for these sources yet (python -m mathkit.dev.warmup)")
    assert kernels.aot_status() == "in use"


@needs_aot
@pytest.mark.parametrize("path", ["benchmark_5x3", "dynasty", "classic_3reel", "three_scatter_5x3"])
def test_aot_and_jit_kernels_agree(path: str) -> None:
    game = load_game(ROOT / "data" / "games" / f"{path}.toml")
    t, sts = pay_tables(game), stop_tables(game, SpinModel(game.default_reels))
    with kernels.use("aot"):
        a = joint_counts(t, sts)
    with kernels.use("jit"):
        b = joint_counts(t, sts)
    for x, y in ((a.wins, b.wins), (a.codes, b.codes), (a.counts, b.counts)):
        assert np.array_equal(x, y)


@needs_aot
def test_extension_arguments_are_converted_or_refused() -> None:
    flat = np.array([0, 3, 0, 0, 5, 1, 0, 0, 2, 0], dtype=np.int64)
    with kernels.use("jit"):
        expected = kernels.K.compact(flat, 5)
    with kernels.use("aot"):
        compact = kernels.K.compact
        # a strided view and a narrower integer type are copied to what the extension was built for
        strided = np.repeat(flat, 2)[::2]
        for arg in (strided, flat.astype(np.int32)):
            got = compact(arg, 5)
            assert all(np.array_equal(x, y) for x, y in zip(got, expected, strict=True))
        with pytest.raises(TypeError, match="expected a 1-d int64 array"):
            compact(flat.astype(np.float64), 5)  # floats cannot become counts safely
        with pytest.raises(TypeError, match="expected a 1-d int64 array"):
            compact(flat.reshape(2, 5), 5)
        with pytest.raises(TypeError, match="arguments"):
            compact(flat)


def test_kernel_modes_are_checked() -> None:
    with pytest.raises(ValueError, match="kernel mode"):
        kernels.K.set_mode("fast")
    with pytest.raises(AttributeError):
        kernels.K.no_such_kernel  # noqa: B018
