"""Tuning one game to one target: :func:`tune`, its :class:`TuneResult`, and saving it (:func:`write_result`).

The result is within ``tolerance`` (default :data:`TOLERANCE`, ±0.005 pp) of
the target in exact arithmetic, or the nearest design found with
``reached=False``; its declared RTP is the target when reached, otherwise the
achieved RTP rounded to 0.0001 pp.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..game import Game
from ..validate import validate_game
from .constraints import Constraints
from .moves import Move
from .search import SHAPE_RTP, FloatArray, Vary, _Search

__all__ = ["TOLERANCE", "TuneResult", "tune", "write_result"]

#: ±0.005 percentage points
TOLERANCE = Fraction(5, 100_000)


@dataclass(frozen=True)
class TuneResult:
    """The outcome of :func:`tune`.

    ``game`` is the tuned game with its declared RTP set (see the module notes);
    ``rtp`` its exact RTP; ``hit_frequency`` and ``sd`` are the base spin's when
    secondary targets were asked for (otherwise ``None``).
    """

    game: Game
    original: Game
    reels: str
    target: Fraction
    tolerance: Fraction
    rtp_before: Fraction
    rtp: Fraction
    reached: bool
    moves: tuple[Move, ...]
    evaluations: int
    seconds: float
    hit_frequency: float | None = None
    sd: float | None = None
    secondary_ok: bool | None = None
    notes: tuple[str, ...] = ()

    @property
    def error_pp(self) -> float:
        """Achieved minus target, in percentage points."""
        return 100 * float(self.rtp - self.target)


def _declared(rtp: Fraction, target: Fraction, reached: bool) -> Fraction:
    return target if reached else Fraction(round(rtp * 1_000_000), 1_000_000)


def tune(
    game: Game,
    target: Fraction | float | str,
    *,
    vary: Vary = "strips",
    reels: str | None = None,
    constraints: Constraints | None = None,
    tolerance: Fraction = TOLERANCE,
    hit_frequency: float | None = None,
    sd: float | None = None,
    hf_tol: float = 0.005,
    sd_tol: float | None = None,
    seed: int = 0,
    max_steps: int = 500,
    max_evals: int = 50_000,
    progress: bool | None = False,
) -> TuneResult:
    """Change strips and/or pays of ``game`` until its exact RTP is ``target`` ± ``tolerance``.

    Parameters
    ----------
    target
        The RTP as a fraction of the bet (``0.92``, ``"23/25"``).
    vary
        ``"strips"``, ``"pays"`` or ``"both"``.
    reels
        The reel set to change (default: the game's default set).  Editing the
        free-spin set is judged by the RTP of a play from the default set.
    hit_frequency, sd, hf_tol, sd_tol
        Secondary targets (base spin) with their tolerances; ``sd_tol`` defaults
        to 5% of ``sd``.
    progress
        A tqdm progress bar on stderr: ``True``, ``False``, or ``None`` for "when
        stderr is a terminal".

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> res = tune(load_game("data/games/classic_3reel.toml"), "0.80")
    >>> res.reached, abs(res.rtp - Fraction("0.80")) <= TOLERANCE, res.game.declared_rtp
    (True, True, Fraction(4, 5))
    """
    t0 = time.perf_counter()
    goal = Fraction(str(target)) if isinstance(target, float) else Fraction(target)
    name = game.reel_set(reels).name
    bar = None
    if progress is not False:
        from tqdm import tqdm

        bar = tqdm(desc=f"tune → {100 * float(goal):.3f}%", unit="move", file=sys.stderr,
                   disable=None if progress is None else False, leave=False)
    try:
        s = _Search(game, goal, reels=name, vary=vary, constraints=constraints or Constraints(), tolerance=tolerance,
                    hit_frequency=hit_frequency, sd=sd, hf_tol=hf_tol, sd_tol=sd_tol, seed=seed,
                    max_evals=max_evals, progress=bar)
        rtp0 = s.rtp

        def rtp_done() -> bool:
            return abs(s.rtp - goal) <= tolerance

        if s.secondary:
            def shape_done() -> bool:
                f = s.figures(s.game)
                # aim inside half the tolerances, so the RTP phase has room to move
                return float(s.secondary_cost(f)) <= 0.25 and abs(f[0] - float(goal)) < SHAPE_RTP

            s.descend(s.shape_cost, None, shape_done, max_steps)
            f_start = s.figures(s.game)
            keep = s.secondary_ok(f_start)
            worst = float(s.secondary_cost(f_start))

            def guard(f: FloatArray) -> bool:
                return s.secondary_ok(f) if keep else float(s.secondary_cost(f)) <= worst + 1e-9

            s.descend(s.rtp_cost, guard, rtp_done, max_steps, pairs=40)
        else:
            s.descend(s.rtp_cost, None, rtp_done, max_steps)
    finally:
        if bar is not None:
            bar.close()
    reached = rtp_done()
    hf = sd_v = None
    sec_ok = None
    notes = list(s.notes)
    if s.secondary:
        f = s.figures(s.game)
        hf, sd_v, sec_ok = float(f[1]), s.sd_of(f), s.secondary_ok(f)
        if not sec_ok:
            notes.append("secondary targets (hit frequency / σ) not met within their tolerances")
    if not reached:
        notes.append(f"target {100 * float(goal):.4f}% not reached within ±{100 * float(tolerance):g} pp under the "
                     f"constraints: nearest {100 * float(s.rtp):.6f}%")
    out = dataclasses.replace(s.game, declared_rtp=_declared(s.rtp, goal, reached))
    validate_game(out)
    return TuneResult(out, game, name, goal, tolerance, rtp0, s.rtp, reached, tuple(s.moves), s.evaluations,
                      time.perf_counter() - t0, hf, sd_v, sec_ok, tuple(notes))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.exists() and a.samefile(b))
    except OSError:
        return False


def write_result(result: TuneResult, out: str | Path, *, force: bool = False, source: str | Path | None = None) -> Path:
    """Save the tuned game atomically; never over ``source``; an existing file only with ``force``."""
    target = Path(out)
    if source is not None and _same_file(Path(source), target):
        msg = f"{target} is the input game: write the tuned game to another file"
        raise FileExistsError(msg)
    from ..io import save_game

    return save_game(result.game, target, overwrite=force)
