"""How the simulator plays scatter re-spins (:mod:`mathkit.features.scatter_respins`): battle, re-spins, final chance.

The rules, played literally in the vocabulary of :mod:`mathkit.play.vocabulary`:

1. **Trigger**: the base window shows ``count`` or more of the scatters (any types).
2. **Battle** (entry): the active type is drawn from the battle odds of the window's types
   (:func:`mathkit.features.battle.battle`, keyed by how many of each type show); every scatter
   cell is held, the losers turned into the winner's type where they stand.
3. **Re-spins** (stage ``respin``): the held cells show the active scatter, every other cell
   re-spins on the re-spin reel set; no line or scatter wins.  New scatters of the active type
   are held; while a re-spin adds one, another follows.
4. **Free spins** (stage ``free``): ``free_at`` or more held scatters start the active type's
   free-spin feature, its entry read from the window as it stands (the held cells show the
   active scatter, no other cell does).
5. **Final chance** (stage ``final``): otherwise one draw of its law — a coin win × the total
   bet, or one more scatter of the active type placed on a free cell of its reels (each alike),
   which starts the free spins at once.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> from mathkit.play.vocabulary import Stake
>>> game = load_game("data/games/warlords.toml")
>>> table = respin_table(game.feature("scatter_respins"), game, Stake(30, 30, 1, 3))
>>> [st.name for st in table.stages], table.component
(['respin', 'free', 'final'], 'final chance coins')
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..model.game import Game
from ..play.vocabulary import (
    Action,
    Bits,
    Cells,
    Const,
    Count,
    Force,
    Goto,
    Law,
    Lookup,
    Or,
    Pay,
    Pick,
    Random,
    Reg,
    Sequence,
    Set,
    Show,
    Spin,
    Stage,
    Stake,
    Start,
    Sum,
    Tally,
    Test,
    Without,
)
from .battle import battle

if TYPE_CHECKING:
    from .scatter_respins import ScatterRespins

__all__ = ["respin_table"]


def _battle_laws(block: ScatterRespins, most: int) -> tuple[Law, ...]:
    """The active type's law for each window, keyed ``Σ_t count_t·(most + 1)^t`` (counts up to ``most``).

    Windows the battle has no odds for (four or more scatters of several types) cannot be shown by a
    base window (:meth:`ScatterRespins.validate`); they get type 0 with no draw and are never played.
    """
    n = len(block.scatters)
    laws = []
    for key in range((most + 1) ** n):
        counts = [key // (most + 1) ** t % (most + 1) for t in range(n)]
        types = [t for t in range(n) for _ in range(counts[t])]
        shown = len(types)
        if shown < block.count or shown > 3 or not types:
            laws.append(Law((0,), (1,)))
            continue
        odds = battle(types, block.pair_wins)
        den = math.lcm(*(p.denominator for p in odds.values()))
        kept = sorted(odds.items())
        laws.append(Law(tuple(t for t, _ in kept), tuple(int(p * den) for _, p in kept)))
    return tuple(laws)


def respin_table(block: ScatterRespins, game: Game, stake: Stake) -> Sequence:
    """The simulator's table of ``block`` (see the module notes)."""
    n = len(block.scatters)
    most = 3  # a base window shows at most three scatters (validated)
    key = Sum(tuple(Lookup(tuple(c * (most + 1) ** t for c in range(most + 1)), Count((s,)))
                    for t, s in enumerate(block.scatters)))
    is_type = [(Test(Reg("type"), "==", t),) for t in range(n)]
    respin = Stage(
        "respin",
        spins=tuple(Spin(block.reels, forced=(Force(Reg("held"), s),), line_multiplier=Const(0),
                         scatter_multiplier=Const(0)) for s in block.scatters),
        pick=Reg("type"),
        actions=tuple(a for t, s in enumerate(block.scatters) for a in (
            Set("new", Bits(Without(Cells((s,)), Reg("held"))), when=is_type[t]),
            Or("held", Cells((s,)), when=is_type[t]))),
        then=(Goto("respin", when=(Test(Reg("new"), ">", 0),)),
              Goto("free", when=(Test(Bits(Reg("held")), ">=", block.free_at),)),
              Goto("final" if block.final_chance is not None else None)),
    )
    targets = dict(block.free_spins)
    free = Stage("free", actions=tuple(Start(targets[s], when=is_type[t], tally=f"free spins {s}")
                                       for t, s in enumerate(block.scatters)))
    stages = [respin, free]
    fc = block.final_chance
    if fc is not None:
        rows = game.reel_set(block.reels).rows
        eligible = stake.mask(fc.cells(set(), rows))
        scatter = (Test(Reg("fc"), "<", 0),)
        actions: list[Action] = [
            Set("fc", Random((Law((-1, *(k for k, _ in fc.coins)), (fc.scatter, *(w for _, w in fc.coins))),))),
            Tally(tally="final chance"),
            Pay(Reg("fc"), "bet", when=(Test(Reg("fc"), ">", 0),), tally="final chance coins"),
            Set("cell", Pick(Without(Const(eligible), Reg("held")), Const(1)), when=scatter,
                tally="final chance scatter"),
            *(Show(Reg("cell"), s, when=scatter + is_type[t]) for t, s in enumerate(block.scatters)),
            Or("held", Reg("cell"), when=scatter),
        ]
        stages.append(Stage("final", actions=tuple(actions), then=(Goto("free", when=scatter),)))
    return Sequence(
        registers=("type", "held", "new", "fc", "cell"),
        trigger=(Test(Sum(tuple(Count((s,)) for s in block.scatters)), ">=", block.count),),
        entry=(Set("type", Random(_battle_laws(block, most), key)), Set("held", Cells(block.scatters))),
        stages=tuple(stages),
        component=block.coins_component,
    )
