"""Bet modes (``[modes.NAME]``): an ante, a bonus buy, a mode with its own cap — each a Game → Game transform.

A mode is the game it plays (:func:`mode_game`) and its cost in units of the base bet
(:attr:`~mathkit.model.game.Mode.cost`): every engine — the exact round composer, the PAR sheet,
the simulator — computes the transformed game as it computes any game, and the mode's RTP is
that game's expected win over ``cost`` × the base bet (:mod:`mathkit.report.modes`).

What a mode changes:

* ``reels = { base = "ante" }``: wherever the game plays reel set ``base`` it plays the strips,
  weights and rows of ``ante`` (an ante's scatter-rich strips or trigger weights; a buy's own
  free-spin strips);
* ``buy = { feature = "free_spins", counts = { 3 = 90, 4 = 10 } }``: the round starts with a
  bought trigger spin instead of the base spin (:class:`~mathkit.features.bought_entry.BoughtEntry`);
* ``cap = 5000``: the most a round pays, × the base bet (it replaces the game's ``[cap]``).

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> g = load_game("data/games/modes_5x3.toml")
>>> [m.name for m in g.modes], [f.kind for f in mode_game(g, "buy").features][-1]
(['ante', 'buy'], 'bought_entry')
"""

from __future__ import annotations

import dataclasses

from ..errors import GameError
from ..model.game import Game, Mode, Symbol, Targets
from ..model.validate import validate_game
from .base import Block
from .bought_entry import BLANK, BoughtEntry
from .cap import Cap

__all__ = ["buy_trigger", "check_modes", "mode_game"]


def buy_trigger(game: Game, mode: Mode) -> str:
    """The trigger symbol of the feature ``mode`` buys (its ``trigger``, or a pick bonus's ``symbol``)."""
    assert mode.buy is not None
    where = f"modes.{mode.name}.buy.feature"
    names = [f.name for f in game.features if f.role == "sequence"]
    if mode.buy.feature not in names:
        msg = f"no sequence feature {mode.buy.feature!r}"
        raise GameError(msg, field=where, fix=f"name the feature bought: {', '.join(names) or '(the game has none)'}")
    block = game.feature(mode.buy.feature)
    trigger = getattr(block, "trigger", None) or getattr(block, "symbol", None)
    if not isinstance(block, Block) or not isinstance(trigger, str) or not block.trigger_digits(game):
        msg = f"{mode.buy.feature!r} is not started by a count of trigger symbols in the base spin"
        raise GameError(msg, field=where, fix="buy a feature the base spin's scatters start (free spins, free games ...)")
    return trigger


def _blank(game: Game) -> str:
    name = BLANK
    while name in game.symbol_names:
        name += "_"
    return name


def mode_game(game: Game, name: str) -> Game:
    """The game mode ``name`` plays (its reels swapped, its bought trigger spin, its cap), without modes.

    The result is validated; its declared RTP and targets are cleared (they are per base bet, the
    mode's per ``cost`` × the base bet).
    """
    mode = game.mode(name)
    where = f"modes.{name}"
    sets = {rs.name: rs for rs in game.reel_sets}
    new_sets = dict(sets)
    for played, instead in mode.reels:
        for value in (played, instead):
            if value not in sets:
                msg = f"no reel set {value!r}"
                raise GameError(msg, field=f"{where}.reels.{played}", fix=f"write reel set = reel set played instead, "
                                f"both among: {', '.join(sets)}")
        new_sets[played] = dataclasses.replace(sets[instead], name=played, declared_rtp=None)
    g = dataclasses.replace(game, reel_sets=tuple(dataclasses.replace(rs, declared_rtp=None) for rs in new_sets.values()),
                            modes=(), declared_rtp=None, targets=Targets(), tuning=None)
    features = list(g.features)
    if mode.cap is not None:
        features = [f for f in features if f.kind != "cap"] + [Cap(name="cap", multiple=mode.cap)]
    if mode.buy is not None:
        trigger = buy_trigger(game, mode)
        modifiers = [f.name for f in game.features if f.role == "modifier"]
        if modifiers:
            msg = f"a bought trigger spin is a fixed window, which the game's modifiers ({', '.join(modifiers)}) would change"
            raise GameError(msg, field=f"{where}.buy", fix="buy on a game without modifiers (heights, overlays, cash stacks)")
        blank = _blank(g)
        g = dataclasses.replace(g, symbols=(*g.symbols, Symbol(blank, "bonus")))
        block = game.feature(mode.buy.feature)
        assert isinstance(block, Block)
        digits = dict.fromkeys(block.trigger_digits(game), 0)
        for k, w in mode.buy.counts:
            if w and block.entry({**digits, trigger: k}) is None:
                msg = f"{k} × {trigger} does not start {mode.buy.feature!r}"
                raise GameError(msg, field=f"{where}.buy.counts.{k}",
                                fix=f"give only trigger counts that start the feature (its awards), or weight {k} 0")
        entry = BoughtEntry(name=name, trigger=trigger, counts=mode.buy.counts, blank=blank)
        entry.validate(g, f"{where}.buy")
        features.append(entry)
    g = dataclasses.replace(g, features=tuple(features))
    try:
        validate_game(g)
    except GameError as exc:
        msg = f"the game mode {name!r} plays is invalid: {exc.message}"
        raise GameError(msg, field=f"{where}: {exc.field}", fix=exc.fix) from None
    return g


def check_modes(game: Game) -> None:
    """Every mode of ``game`` builds a valid game (raises a located :class:`~mathkit.errors.GameError` otherwise)."""
    for m in game.modes:
        mode_game(game, m.name)
