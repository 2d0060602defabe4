"""RTP variants that differ from one another by as few edits as possible.

:func:`tune_variants` tunes one game per target RTP as a **chain**: the targets
below the original RTP are reached one after another going down, each from the
variant just above it (the original first), and those above going up, so two
neighbouring variants differ only by the fewest edits between their RTPs; every
variant still keeps the constraints relative to the original (counts within
±25% of the original's ...).  :func:`variants_table` compares them;
:func:`variant_path` names their files (``d.toml`` → ``d_rtp92.toml``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..model.edits import play_reels
from ..model.game import Game
from .changes import diff
from .constraints import Constraints
from .measure import measure
from .result import TuneResult
from .solve import tune
from .targets import Target, TargetSet

__all__ = ["table_csv", "table_text", "tune_variants", "variant_path", "variants_table"]


def tune_variants(game: Game, rtps: Sequence[Fraction | float | str], targets: Iterable[Target] = (),
                  constraints: Constraints | None = None, **kwargs: Any) -> list[TuneResult]:
    """One tuned game per target RTP, chained from the original (see the module notes), in the order given.

    ``targets`` are further bands every variant aims at besides its RTP.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.tuner.changes import diff
    >>> g = load_game("data/games/dynasty.toml")
    >>> low, lower = tune_variants(g, ["0.94", "0.93"])
    >>> low.start is g, lower.start is low.game, diff(low.game, lower.game).count <= 3
    (True, True, True)
    """
    values = [Fraction(str(t)) if isinstance(t, float) else Fraction(t) for t in rtps]
    rtp0 = Fraction(measure(game, play_reels(game, _first_set(kwargs))).rtp)
    extra = list(targets)
    done: dict[Fraction, TuneResult] = {}
    for side in (sorted((v for v in values if v < rtp0), reverse=True), sorted(v for v in values if v >= rtp0)):
        start = game
        for v in side:
            if v in done:
                continue
            goal = TargetSet.build(game, [*extra, Target.of("rtp", v)], play_reels(game, _first_set(kwargs)))
            done[v] = tune(game, goal, constraints, start=start, **kwargs)
            start = done[v].game
    return [done[v] for v in values]


def _first_set(kwargs: dict[str, Any]) -> str | None:
    reels = kwargs.get("reels")
    if isinstance(reels, str):
        return reels
    return reels[0] if reels else None


def variant_path(out: str | Path, target: Fraction) -> Path:
    """``d.toml`` and 0.92 → ``d_rtp92.toml``; 0.945 → ``d_rtp94_5.toml``.

    Examples
    --------
    >>> variant_path("out/d.toml", Fraction("0.945")).name
    'd_rtp94_5.toml'
    """
    p = Path(out)
    pct = f"{float(100 * target):.6f}".rstrip("0").rstrip(".").replace(".", "_")
    return p.with_name(f"{p.stem}_rtp{pct}{p.suffix or '.toml'}")


def variants_table(results: Sequence[TuneResult], paths: Sequence[Path]) -> list[dict[str, Any]]:
    """One row per variant: target, exact RTP, σ, hit frequency, edits from the original and from its neighbour."""
    rows = []
    names = {id(r.game): str(p) for r, p in zip(results, paths, strict=True)}
    for res, path in zip(results, paths, strict=True):
        f = res.best.figures
        rtp = Fraction(f.rtp)
        rows.append({"file": str(path), "target": float(res.targets.rtp.value), "rtp": float(rtp),
                     "rtp_exact": f"{rtp.numerator}/{rtp.denominator}",
                     "error_pp": 100 * float(rtp - res.targets.rtp.value), "reached": res.reached, "sd": f.sd,
                     "hit_frequency": float(f.hit_frequency or 0), "edits_from_original": diff(res.original, res.game).count,
                     "from": names.get(id(res.start), "original"), "edits_from_neighbour": res.best.edits.count})
    return rows


def table_text(rows: list[dict[str, Any]]) -> str:
    head = (f"{'variant':<26} {'target':>8} {'RTP':>11} {'Δ pp':>10} {'σ':>8} {'hit freq':>9} {'edits':>6}"
            f" {'from neighbour':>15}  reached")
    out = [head]
    for r in rows:
        nb = f"{r['edits_from_neighbour']} ({Path(r['from']).name})"
        out.append(f"{Path(r['file']).name:<26} {100 * r['target']:>7.3f}% {100 * r['rtp']:>10.5f}% "
                   f"{r['error_pp']:>+10.6f} {r['sd']:>8.4f} {100 * r['hit_frequency']:>8.4f}% "
                   f"{r['edits_from_original']:>6} {nb:>15}  {'yes' if r['reached'] else 'NO'}")
    return "\n".join(out)


def table_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["file"], lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()
