"""Running the checks: the registry :data:`CHECKS` in order, and :func:`run_checks`.

A check that cannot even be computed (an invalid game, a feature that never
ends) fails with the reason; :func:`run_checks` never raises for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import MathkitError
from ..model.game import Game
from .awards import check_award_odds, check_awards_reachable, check_declared_rtp, check_game_valid, check_rtp_bounds
from .limits import check_cycle_64bit, check_features_terminate, check_hit_frequency, check_win_overflow, feature_checks
from .modes import check_modes
from .nearmiss import check_near_miss
from .profiles import PROFILES, Check, Profile, _Ctx

__all__ = ["CHECKS", "CHECK_NAMES", "run_checks"]

CHECKS: tuple[Callable[[_Ctx], Check], ...] = (
    check_game_valid, check_declared_rtp, check_rtp_bounds, check_awards_reachable, check_award_odds,
    check_features_terminate, check_win_overflow, check_cycle_64bit, check_hit_frequency, check_near_miss,
)

#: the names of the checks every game gets, in the order they run; each feature block adds its own after them
CHECK_NAMES = tuple(fn.__name__.removeprefix("check_") for fn in CHECKS)


def run_checks(game: Game, profile: str | Profile = "gli11", *, reels: str | None = None,
               only: Sequence[str] | None = None) -> list[Check]:
    """Every certification check on ``game`` under ``profile`` (``gli11``, ``anz``, ``ukgc`` or a :class:`Profile`).

    ``only`` restricts the run to the named checks (see :data:`CHECK_NAMES`).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> checks = run_checks(load_game("data/games/dynasty.toml"))
    >>> len(checks) >= 8, [c.name for c in checks if not c.passed]
    (True, [])
    >>> # the classic machine's blanks weigh 3 beside a WILD of weight 1: its top award is seen missing
    >>> [c.name for c in run_checks(load_game("data/games/classic_3reel.toml")) if not c.passed]
    ['near_miss']
    """
    prof = PROFILES[profile] if isinstance(profile, str) else profile
    name = reels or game.default_reels
    ctx = _Ctx(game, prof, name)
    out = []
    for fn in CHECKS:
        check_name = fn.__name__.removeprefix("check_")
        if only is not None and check_name not in only:
            continue
        try:
            out.append(fn(ctx))
        except MathkitError as exc:
            out.append(Check(check_name, False, f"cannot be computed: {exc}"))
        except (ArithmeticError, ValueError, KeyError, IndexError) as exc:
            out.append(Check(check_name, False, f"cannot be computed: {type(exc).__name__}: {exc}"))
    if game.modes and (only is None or "modes" in only):  # a game with bet modes: the band and each declared RTP
        try:
            out.append(check_modes(ctx))
        except MathkitError as exc:
            out.append(Check("modes", False, f"cannot be computed: {exc}"))
    if only is None or any(n not in CHECK_NAMES for n in only):
        try:
            out += [c for c in feature_checks(ctx) if only is None or c.name in only]
        except (MathkitError, ArithmeticError, ValueError, KeyError, IndexError) as exc:
            if only is None:
                out.append(Check("features", False, f"cannot be computed: {type(exc).__name__}: {exc}"))
    return out
