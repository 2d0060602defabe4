"""mathkit: exact slot-game mathematics.

Importing the package is cheap: the numeric modules (numba kernels) load on
first use.

Examples
--------
>>> import mathkit
>>> game = mathkit.load_game("data/games/classic_3reel.toml")
>>> 0 < mathkit.exact_rtp(game) < 1
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import GameError, MathkitError, ModelError
from .game import Game
from .io import load_game, loads_game, save_game

if TYPE_CHECKING:
    from .exact import rtp as exact_rtp
    from .exact import spin
    from .par import build_par

__all__ = ["Game", "GameError", "MathkitError", "ModelError", "build_par", "exact_rtp", "load_game", "loads_game",
           "save_game", "spin"]
__version__ = "0.1.0"

_LAZY = {"exact_rtp": ("exact", "rtp"), "spin": ("exact", "spin"), "build_par": ("par", "build_par")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    msg = f"module 'mathkit' has no attribute {name!r}"
    raise AttributeError(msg)
