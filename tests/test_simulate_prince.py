"""The simulator's generic driver on Prince of Riches, replayed round by round in plain Python.

The replay below plays the seed's rules as the game file reads them, with nothing of
mathkit's but the frozen game data and :mod:`brute`'s line rule: the height drawn from
the base stream, then each reel's stop; the lines of that height; the Cash Activate
Stacks cell by cell (each eligible PRIZE of a stack worth the one below it plus the
activators' sum, a jackpot PRIZE skipped and passing the value on — or, in the
``restart`` variant, starting it again); every jackpot PRIZE revealing a jackpot from the
feature stream; free games at the trigger height, each a spin as the base game plays one
(cash and jackpots in it), growing by one row with the file's probability after every game but
the last (no growth is drawn once no game is left).  Every
round's win must equal the driver's, draw for draw (the streams are documented in
``docs/simulator.md``).  Agreement with the exact figures is in ``tests/test_simulate.py``.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from brute import _Rules
from test_simulate_features import _kernel_wins  # the driver's win of each play of block 0

from mathkit.errors import ModelError
from mathkit.gamefile.io import load_game, loads_game
from mathkit.model.game import Game
from mathkit.play import vocabulary as play
from mathkit.sim import simulate
from mathkit.sim.cluster import block_streams
from mathkit.sim.kernels import play_block
from mathkit.sim.layout import SQ_SHIFT
from mathkit.sim.rng import generator_state
from mathkit.sim.spec import compile_game

PRINCE = Path(__file__).resolve().parents[1] / "data" / "games" / "prince_of_riches.toml"


class Replay:
    """Prince of Riches played literally from the two documented streams (base spins, everything else)."""

    def __init__(self, game: Game, root: np.random.SeedSequence) -> None:
        base, free, _ = block_streams(root, 0)
        self.base, self.free = np.random.Generator(base), np.random.Generator(free)
        self.game = game
        self.rules = _Rules(game, game.bet.coins[0])
        self.bet = game.total_bet()
        f: dict[str, Any] = {b.kind: b for b in game.features}
        self.heights = list(f["variable_heights"].heights)
        self.per_row = f["variable_heights"].lines_per_row
        cash, jack, games = f["cash_stacks"], f["jackpots"], f["free_games"]
        self.values = {s: int(v) for s, v in cash.activators}
        self.prizes = set(cash.prizes)
        self.skipped = {s for s in cash.prizes if game.symbol(s).mark == cash.skip}
        self.restart = cash.chain == "restart"
        self.marked = {s.name for s in game.symbols if s.mark == jack.mark}
        self.requires = set(jack.requires)
        self.jackpots = [v for _, v in jack.prizes]
        self.reveal = list(accumulate(w for _, w in jack.reveal))
        self.trigger, self.award, self.more = games.trigger, dict(games.awards), dict(games.retriggers)
        self.grow = dict(games.grow)
        rs = game.reel_set(games.reels)
        self.strips = rs.strips
        self.cash_plays = 0  # base spins whose cash stacks play
        self.last: list[int] = []  # the height of each free games' last game
        self.cum = [list(accumulate(rs.stop_weights(r))) for r in range(rs.n_reels)]

    def window(self, gen: np.random.Generator, h: int) -> list[list[str]]:
        out = []
        for strip, cum in zip(self.strips, self.cum, strict=True):
            u = int(gen.integers(0, cum[-1], dtype=np.uint32))
            stop = bisect_right(cum, u)
            out.append([strip[(stop + k) % len(strip)] for k in range(h)])
        return out

    def spin(self, x: list[list[str]]) -> int:
        """One spin's win as the base game plays it: lines, cash stacks, jackpots (drawn from the feature stream)."""
        h = len(x[0])
        win = sum(self.rules.line(tuple(x[r][row] for r, row in enumerate(line)))[0]
                  for line in self.game.paylines[: self.per_row * h])
        shown = [s for col in x for s in col]
        a = sum(self.values.get(s, 0) for s in shown)
        if a and any(s in self.prizes for s in shown):
            for col in x:
                value = 0  # the value of the PRIZE below (0: none)
                for s in reversed(col):
                    if s not in self.prizes:
                        value = 0
                    elif s in self.skipped:
                        value = 0 if self.restart else value
                    else:
                        value += a
                        win += value * self.bet
        if any(s in self.requires for s in shown):
            for _ in range(sum(s in self.marked for s in shown)):
                u = int(self.free.integers(0, self.reveal[-1], dtype=np.uint32))
                win += self.jackpots[bisect_right(self.reveal, u)] * self.bet
        return win

    def added(self, x: list[list[str]], table: dict[int, int]) -> int:
        n = sum(col.count(self.trigger) for col in x)
        keys = [k for k in table if k <= n]
        return table[max(keys)] if keys else 0

    def round(self) -> tuple[int, int]:
        """One round's win and the free games it played."""
        total = sum(w for _, w in self.heights)
        u = int(self.base.integers(0, total, dtype=np.uint32))
        h = self.heights[bisect_right(list(accumulate(w for _, w in self.heights)), u)][0]
        x = self.window(self.base, h)
        shown = {s for col in x for s in col}
        self.cash_plays += bool(shown & set(self.values)) and bool(shown & self.prizes)
        win = self.spin(x)
        left, played = self.added(x, self.award), 0
        while left > 0:
            y = self.window(self.free, h)
            win += self.spin(y)
            played += 1
            left += self.added(y, self.more) - 1
            p = self.grow.get(h, 0)
            if p and left > 0:  # (no growth is drawn after the last game)
                h += int(self.free.integers(0, p.denominator, dtype=np.uint32)) >= p.denominator - p.numerator
        if played:
            self.last.append(h)
        return win, played


@pytest.mark.parametrize(("chain", "rounds"), [("pass", 4000), ("restart", 1500)])
def test_prince_replayed_from_the_streams(chain: str, rounds: int) -> None:
    text = PRINCE.read_text(encoding="utf-8")
    game = loads_game(text.replace('chain = "pass"', f'chain = "{chain}"'))
    root = np.random.SeedSequence(41)
    replay = Replay(game, root)
    plays = [replay.round() for _ in range(rounds)]
    assert sum(1 for _, g in plays if g) >= rounds // 200  # free games were played (1 round in 66)
    assert _kernel_wins(game, rounds, root) == [w for w, _ in plays]


def test_prince_counters_replayed_from_the_streams() -> None:
    # the counters behind the three PAR figures the simulator checks (mathkit simulate --json): the cash stacks
    # playing in a base spin (not in a free game), each free games' length (and its square) and last height
    game = load_game(PRINCE)
    root = np.random.SeedSequence(43)
    replay = Replay(game, root)
    rounds = 3000
    lengths = [g for _, g in (replay.round() for _ in range(rounds)) if g]
    base_bg, free_bg, _ = block_streams(root, 0)
    kind, st_base = generator_state(base_bg)
    spec = compile_game(game)
    acc, facc = spec.new_sums()
    play_block(rounds, np.vstack([st_base, generator_state(free_bg)[1]]), kind, spec, acc, facc,
               np.zeros(0, dtype=np.int64))
    slot = spec.slots
    assert len(lengths) >= 20
    assert acc[slot["cash_stacks:plays"]] == replay.cash_plays > 0
    assert acc[slot["free_games:entered"]] == len(lengths)
    assert acc[slot["free_games:spins"]] == sum(lengths)
    spins = slot["free_games:spins"]
    assert (int(acc[spins + 1]) << SQ_SHIFT) + int(acc[spins + 2]) == sum(g * g for g in lengths)
    assert {h: int(acc[slot[f"free_games:last at {h}"]]) for h in range(3, 8)} == {
        h: replay.last.count(h) for h in range(3, 8)}


def test_prince_components_as_the_par_sheet_names_them() -> None:
    res = simulate(load_game(PRINCE), 50_000, seed=3)
    jackpots = [f"jackpots: {j}" for j in ("Mini", "Minor", "Major", "Grand")]
    assert set(res.components) == {"lines", "scatter", "cash stacks", *jackpots, "free games: lines",
                                   "free games: cash stacks", *(f"free games: {j}" for j in jackpots)}
    assert res.features == ("jackpots", "free_games")  # cash stacks modify every spin: not a feature entered
    assert sum(e.value for e in res.breakdown.values()) == pytest.approx(res.rtp.value)


def test_a_height_without_lines_stops_the_run() -> None:
    # growth past 7 rows, where no rule gives the lines: the run stops instead of playing 30 lines
    text = PRINCE.read_text(encoding="utf-8").replace('6 = "1/7" }', '6 = "1/7", 7 = "1" }')
    with pytest.raises(ModelError, match="height"):
        simulate(loads_game(text), 200_000, seed=4)


def test_a_feature_with_stages_inside_a_spin_played_as_the_base_game_is_refused() -> None:
    from mathkit.sim.program import Builder

    scatters = play.Count(("S",))
    free = play.Sequence(registers=(), trigger=(play.Test(scatters, ">=", 3),),
                         stages=(play.Stage("spin", spins=(play.Spin("base", as_base=True),)),))
    other = play.Sequence(registers=(), trigger=(play.Test(scatters, ">=", 2),),
                          stages=(play.Stage("spin", spins=(play.Spin("base"),)),))
    b = Builder("G", ("S", "L"), [("free", "free", free), ("other", "other", other)], 1, 1, ("base",))
    b.feature(0)
    b.feature(1)
    with pytest.raises(ModelError, match=r"feature 'other'.*has stages"):
        b.component_map()
