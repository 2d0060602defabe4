"""Dynasty: the declared RTP, line options, the gamble, the shrunken game against a brute-force
expansion of its rules, and the figures against a literal player.

:class:`Literal` reads the rules straight from the game data — strips, paylines, paytable, the
Seal substituting for every regular symbol, Emperors counted anywhere — and pays windows with
plain numpy, sharing nothing with mathkit's tables, kernels or exact engine.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction as F

import numpy as np
import numpy.typing as npt
import pytest
from scipy import fft as sfft

from mathkit.chains.ladder import Always, Never, UntilTarget, check_fair, ladder_distribution
from mathkit.features.free_spins import FreeSpins
from mathkit.features.gamble import Gamble, gamble_lines, ladder_arrays
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.report.par import ParSheet, build_par
from mathkit.round import Engine, analyse, rtp_breakdown

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
GAME = load_game("data/games/dynasty.toml")
SMALL = load_game("data/games/dynasty_small.toml")


def free_spins(game: Game) -> FreeSpins:
    fs = game.feature("free_spins")
    assert isinstance(fs, FreeSpins)
    return fs


def gamble(game: Game) -> Gamble:
    g = game.feature("gamble")
    assert isinstance(g, Gamble)
    return g


# ----------------------------------------------------------------------------- a literal reading
class Literal:
    """One reel set of a Dynasty-like game, paid window by window as the rules say."""

    def __init__(self, game: Game, reels: str, lines: int | None = None) -> None:
        self.names = [s.name for s in game.symbols]
        sid = {n: i for i, n in enumerate(self.names)}
        rs = game.reel_set(reels)
        self.strips = [np.array([sid[s] for s in strip]) for strip in rs.strips]
        self.rows = rs.rows[0]
        self.lines = np.array(game.paylines[: lines or game.bet.lines])
        self.bet = len(self.lines)  # one coin per line
        self.wild = sid["SEAL"]
        self.emperor = sid["EMPEROR"]
        self.pays = {}  # symbol id -> pay by run length 0..5 (largest declared count not above the run)
        for e in game.line_pays:
            table = dict(e.pays)
            self.pays[sid[e.name]] = np.array([max((table[k][0] for k in table if k <= n), default=0)
                                               for n in range(6)])
        (sp,) = game.scatter_pays
        self.scatter = np.array([max((v for k, v in sp.pays if k <= c), default=0) for c in range(16)])

    def windows(self, stops: list[IntArray]) -> IntArray:
        """``[spin, reel, row]`` symbol ids for the given stops per reel."""
        cols = [strip[(stop[:, None] + np.arange(self.rows)[None, :]) % len(strip)]
                for strip, stop in zip(self.strips, stops, strict=True)]
        return np.stack(cols, axis=1)

    def line_wins(self, win: IntArray) -> IntArray:
        """Sum over lines of the best combination: for each symbol, the run of reels from reel 1
        showing it or a Seal, paid for the largest count not above the run."""
        total = np.zeros(win.shape[0], dtype=np.int64)
        small = win.astype(np.uint8)
        for line in self.lines:
            seq = small[:, np.arange(len(line)), line]  # [spin, reel]
            wild = seq == self.wild
            best = np.zeros(win.shape[0], dtype=np.int64)
            for s, pay in self.pays.items():
                on = (seq[:, 0] == s) | wild[:, 0]
                run = on.astype(np.uint8)
                for r in range(1, seq.shape[1]):
                    on &= (seq[:, r] == s) | wild[:, r]
                    run += on
                np.maximum(best, pay[run], out=best)
            total += best
        return total

    def emperors(self, win: IntArray) -> IntArray:
        return (win == self.emperor).sum(axis=(1, 2))

    def every_outcome(self) -> list[IntArray]:
        grid = np.indices([len(s) for s in self.strips]).reshape(len(self.strips), -1)
        return list(grid)


def literal_law(game: Game, reels: str, *, free: bool) -> dict[tuple[int, int], int]:
    """Every outcome of one spin: ``(win, spins awarded or added) -> count``, free spins ×2 on lines."""
    lit = Literal(game, reels)
    win = lit.windows(lit.every_outcome())
    count = lit.emperors(win)
    lines = lit.line_wins(win) * (2 if free else 1)
    total = lines + lit.scatter[count] * lit.bet  # the scatter win is not doubled
    spins = np.where(count >= 3, 10, 0)
    keys, counts = np.unique(np.stack([total, spins]), axis=1, return_counts=True)
    return {(int(w), int(a)): int(c) for (w, a), c in zip(keys.T, counts, strict=True)}


@functools.cache
def small_laws() -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    return literal_law(SMALL, "base", free=False), literal_law(SMALL, "free", free=True)


@functools.cache
def small_expansion(tol: float) -> tuple[FloatArray, float, float, float]:
    return expand(small_laws()[1], 10, tol)


def expand(law: dict[tuple[int, int], int], n: int, tol: float) -> tuple[FloatArray, float, float, float]:
    """The feature from ``n`` spins, played spin by spin until at most ``tol`` is still playing.

    Returns the (sub-)distribution of the total win of the features that ended, the
    probability still playing, and E[N; ended], E[N²; ended].  (Long convolutions go by
    FFT, all features still playing at once: exact to about 1e-17, far below what the tests compare.)
    """
    cycle = sum(law.values())
    kernels = {}
    width = max(w for w, _ in law) + 1
    for a in {a for _, a in law}:
        k = np.zeros(width)
        for (w, b), c in law.items():
            if b == a:
                k[w] += c / cycle
        kernels[a] = k
    lefts = [n]  # spins left of each row of ``alive``: the win distribution of features still playing
    alive = np.ones((1, 1))
    done = np.zeros(1)
    e_n = e_n2 = 0.0
    step = 0
    dropped = 0.0
    while alive.sum() + dropped > tol:
        step += 1
        rows: dict[int, FloatArray] = {}
        size = alive.shape[1] + width - 1
        nfft = sfft.next_fast_len(size, real=True)
        spectrum = sfft.rfft(alive, nfft, axis=1)
        for a, k in kernels.items():
            out = np.maximum(sfft.irfft(spectrum * sfft.rfft(k, nfft), nfft, axis=1)[:, :size], 0.0)
            for left, row in zip(lefts, out, strict=True):
                to = left - 1 + a
                if to == 0:
                    done = np.pad(done, (0, max(0, len(row) - len(done))))
                    done[: len(row)] += row
                    e_n += step * row.sum()
                    e_n2 += step * step * row.sum()
                else:
                    rows[to] = rows[to] + row if to in rows else row.copy()
        dropped += sum(float(r.sum()) for r in rows.values() if r.sum() < 1e-20)  # counted as still playing
        lefts = sorted(x for x, r in rows.items() if r.sum() >= 1e-20)
        alive = np.array([rows[x] for x in lefts]) if lefts else np.zeros((0, 1))
    return done, float(alive.sum()) + dropped, e_n, e_n2


# ----------------------------------------------------------------------------- the shrunken game
def test_small_spin_laws_match_the_literal_reading() -> None:
    fs, engine = free_spins(SMALL), Engine(SMALL)
    for law, ref in ((fs.trigger_law(engine), small_laws()[0]), (fs.spin_law(engine), small_laws()[1])):
        got = {(int(w), int(a)): int(c) for w, a, c in zip(law.wins, law.added, law.weights, strict=True)}
        assert got == ref


def test_small_feature_against_a_brute_force_expansion() -> None:
    free_law = small_laws()[1]
    tol = 1e-8
    brute, leftover, e_n, e_n2 = small_expansion(tol)
    assert leftover <= tol
    chain = free_spins(SMALL).chain(Engine(SMALL))
    # P(3 Emperors) = (3/14)^3 on the free reels (one Emperor on each of reels 1, 3, 5 of 14 stops)
    assert chain.m == 10 * F(3, 14) ** 3
    mo = chain.moments(10)
    assert mo.mean_spins == F(10) / (1 - chain.m)
    # The expansion misses only features longer than it went: every figure is short by at most
    # what those carry.  E[W; N > T] ≤ x_max·E[N; N > T], E[W²; N > T] ≤ x_max²·E[N²; N > T].
    x_max = max(w for w, _ in free_law)
    tail_n = float(mo.mean_spins) - e_n
    tail_n2 = float(mo.var_spins + mo.mean_spins**2) - e_n2
    assert 0 <= tail_n <= 1e-5
    assert 0 <= tail_n2 <= 1e-3
    values = np.arange(len(brute))
    mean_b = float(values @ brute)
    assert 0 <= float(mo.mean_win) - mean_b <= x_max * tail_n + 1e-9
    second_b = float(values.astype(float) ** 2 @ brute)
    assert 0 <= float(mo.var_win + mo.mean_win**2) - second_b <= x_max**2 * tail_n2 + 1e-6
    # the outcome-by-outcome RewardChain (markov.py's solve, cut at 150 spins left) has the same mean
    rc = chain.reward_chain(10, max_left=150)
    assert chain.overflow(10, max_left=150) < 1e-15
    assert rc.expected_reward(chain.start(10), exact=False) == pytest.approx(float(mo.mean_win), rel=1e-12)
    # value by value, the Markov feature distribution (Kemperman + FFT) holds the expansion plus at
    # most the leftover probability
    trig = free_spins(SMALL).trigger_law(Engine(SMALL))
    feat = analyse(SMALL).stats["free_spins"].laws[10].branches[()].dist
    assert feat is not None
    model = np.zeros(max(len(brute), int(feat.values.max()) + 1))
    model[feat.values] = feat.probs
    diff = model[: len(brute)] - brute
    assert diff.min() >= -1e-13
    assert diff.max() <= leftover + 1e-13
    assert abs(model.sum() - brute.sum() - leftover) <= 1e-10
    assert trig.p_added(10) == F(3 * 3 * 3, 10 * 10 * 10)  # base: one Emperor on reels 1, 3, 5 of 10 stops
    # P(length > t) from the chain against the expansion's own count of features still playing
    for t in (10, 20, 30):
        assert chain.survival(t, 10) == pytest.approx(_still_playing(free_law, 10, t), rel=1e-12)


def _still_playing(law: dict[tuple[int, int], int], n: int, t: int) -> float:
    """P(the feature from n spins has not ended after t spins), by pushing the spins left forward."""
    cycle = sum(law.values())
    p_add = {a: sum(c for (_, b), c in law.items() if b == a) / cycle for a in {a for _, a in law}}
    alive = {n: 1.0}
    for _ in range(t):
        new: dict[int, float] = {}
        for left, p in alive.items():
            for a, q in p_add.items():
                if left - 1 + a > 0:
                    new[left - 1 + a] = new.get(left - 1 + a, 0.0) + p * q
        alive = new
    return sum(alive.values())


def test_small_whole_play_against_the_expansion() -> None:
    base_law = small_laws()[0]
    brute, leftover, _, _ = small_expansion(1e-8)
    cycle = sum(base_law.values())
    expect = np.zeros(max(w for w, _ in base_law) + len(brute))
    for (w, a), c in base_law.items():
        if a:
            expect[w : w + len(brute)] += c / cycle * brute
        else:
            expect[w] += c / cycle
    play = build_par(SMALL).distribution
    assert play.lost_mass <= 1e-12
    got = np.zeros(max(len(expect), int(play.values.max()) + 1))
    got[play.values] = play.probs
    p_trig = sum(c for (_, a), c in base_law.items() if a) / cycle
    diff = got[: len(expect)] - expect
    assert diff.min() >= -1e-13
    assert diff.max() <= p_trig * leftover + 1e-13


# ----------------------------------------------------------------------------- Dynasty
@pytest.fixture(scope="module")
def par() -> ParSheet:
    return build_par(GAME)


def test_declared_rtp_matches_the_exact_total(par: ParSheet) -> None:
    parts = rtp_breakdown(GAME)
    total = sum(parts.values(), F(0))
    assert GAME.declared_rtp == F(95, 100)
    assert abs(total - GAME.declared_rtp) <= F(5, 100_000)  # ±0.005 percentage points
    assert par.rtp.exact == total
    assert {k: f.exact for k, f in par.components.items()} == parts
    assert par.distribution.lost_mass <= 1e-12
    # the float law's mean is short by the far tail the FFT's round-off floor zeroes (in lost_mass):
    # about 1.5e-14 of probability at wins up to ~6,000× bet, 1.0e-12 of the RTP
    assert float(par.distribution.rtp()) == pytest.approx(float(total), rel=2e-12, abs=0)


def test_rtp_is_the_same_at_every_line_count_and_sigma_is_not() -> None:
    total = sum(rtp_breakdown(GAME).values(), F(0))
    for lines in GAME.bet.line_options:
        assert sum(rtp_breakdown(GAME, lines=lines).values(), F(0)) == total
    sd = {}
    for lines in (1, 25):
        out = analyse(GAME, lines=lines, level="moments").outcome
        assert out.mean / lines == total  # credits per spin / credits bet
        assert out.m2 is not None
        sd[lines] = math.sqrt(out.m2 - out.mean**2) / lines
    assert sd[1] > 2 * sd[25]  # one line: far fewer, relatively larger wins


def test_gamble_returns_exactly_one_for_both_options(par: ParSheet) -> None:
    assert [(c.option, c.ratio) for c in check_fair(gamble(GAME))] == [("colour", 1), ("suit", 1)]
    rows = gamble_lines(gamble(GAME), par.base.win_distribution, par.distribution)
    assert {g.strategy: g.return_exact_base for g in rows} == {
        "never": 1, "always colour": 1, "always suit": 1, "colour until 500": 1, "suit until 500": 1}
    for g in rows:
        assert g.return_play == pytest.approx(1.0, abs=1e-12)
    # the vectorised ladder agrees with gamble.ladder_distribution around the limit and the rungs
    g = gamble(GAME)
    values = np.array([0, 1, 25, 313, 2500, 2501, 4999, 5000, 5001, 99999], dtype=np.int64)
    for strategy in (Never(), Always("colour"), Always("suit"), UntilTarget("suit", 500)):
        up, k, p = ladder_arrays(g, strategy, values)
        for v, u, kk in zip(values.tolist(), up.tolist(), k.tolist(), strict=True):
            ref = ladder_distribution(g, strategy, v)
            assert ref.get(u, F(0)) == (p**kk if u else 1)


def test_gamble_table_is_beside_the_rtp(par: ParSheet) -> None:
    assert "gamble" not in " ".join(par.components)
    names = [s.name for s in par.features]
    assert names == ["Free spins", "Gamble"]
    lines = gamble_lines(gamble(GAME), par.base.win_distribution, par.distribution, [Never()])
    assert lines[0].sd_after == pytest.approx(par.distribution.sd_per_bet(), rel=1e-12)
    # σ on the sheet comes from the exact second moment; the truncated distribution misses only its far tail
    assert par.sd.method == "exact"
    assert par.distribution.sd_per_bet() == pytest.approx(par.sd.value, rel=1e-9)


def test_every_reading_has_a_reason() -> None:
    assert len(GAME.readings) >= 10
    assert all(r.rule and r.reading and r.reason for r in GAME.readings)
    assert any("multiply_scatter = false" in r.reading for r in GAME.readings)
    fs = free_spins(GAME)
    assert not fs.multiply_scatter and fs.multiplier == 2 and fs.max_spins is None
    seal = GAME.symbol("SEAL")
    assert seal.reels == (2, 3, 4) and not seal.pays and "EMPEROR" not in seal.substitutes


# ----------------------------------------------------------------------------- the literal player
def play_literally(game: Game, n_plays: int, rng: np.random.Generator) -> dict[str, FloatArray]:
    """Play ``n_plays`` whole games by the rules: a base spin, then the free spins it awards, turn by turn."""
    base, free = Literal(game, "base"), Literal(game, "free")
    bet = base.bet
    win = base.windows([rng.integers(0, len(s), n_plays) for s in base.strips])
    count = base.emperors(win)
    total = (base.line_wins(win) + base.scatter[count] * bet).astype(np.float64)
    who = np.flatnonzero(count >= 3)
    left = np.full(len(who), 10)
    length = np.zeros(len(who))
    feature = np.zeros(len(who))
    while (left > 0).any():
        on = np.flatnonzero(left > 0)
        w = free.windows([rng.integers(0, len(s), len(on)) for s in free.strips])
        c = free.emperors(w)
        feature[on] += 2 * free.line_wins(w) + free.scatter[c] * bet  # line wins doubled, scatter not
        left[on] += np.where(c >= 3, 10, 0) - 1
        length[on] += 1
    total[who] += feature
    return {"win": total / bet, "triggered": (count >= 3).astype(np.float64), "length": length,
            "feature": feature / bet}


def test_figures_against_a_literal_player() -> None:
    rng = np.random.default_rng(20240605)
    n = 400_000
    sim = play_literally(GAME, n, rng)
    a = analyse(GAME)
    bet = a.total_bet
    out = a.outcome
    assert out.m2 is not None
    p_trig = a.stats["free_spins"].p_enter
    mo = free_spins(GAME).chain(a.engine).moments(10)
    z = 2.576  # 99%

    def within(sample: FloatArray, mean: float, sd: float) -> None:
        err = z * sd / math.sqrt(len(sample))
        assert abs(float(sample.mean()) - mean) <= err, (float(sample.mean()), mean, err)

    total = float(sum(rtp_breakdown(GAME).values(), F(0)))
    within(sim["win"], total, math.sqrt(float(out.m2 - out.mean**2)) / bet)
    p = float(p_trig)
    within(sim["triggered"], p, math.sqrt(p * (1 - p)))
    hit = float(build_par(GAME).hit_frequency.value)
    within((sim["win"] > 0).astype(np.float64), hit, math.sqrt(hit * (1 - hit)))
    within(sim["length"], float(mo.mean_spins), math.sqrt(float(mo.var_spins)))
    within(sim["feature"], float(mo.mean_win) / bet, math.sqrt(float(mo.var_win)) / bet)
