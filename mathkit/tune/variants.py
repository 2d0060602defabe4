"""RTP variants: one tuned game per target (strips only), their file names and the comparison table.

``d.toml`` with targets 0.92 and 0.945 gives ``d_rtp92.toml`` and
``d_rtp94_5.toml`` (:func:`variant_path`); :func:`variants_table` compares
their exact RTP, σ and hit frequency (text or CSV).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..game import Game
from ..sensitivity import play_figures, play_reels
from .solve import TuneResult, tune

__all__ = ["tune_variants", "variant_path", "variants_table"]


def tune_variants(game: Game, targets: Sequence[Fraction | float | str], **kwargs: Any) -> list[TuneResult]:
    """One :func:`tune` per target, each from the original game, strips only."""
    kwargs = {k: v for k, v in kwargs.items() if k != "vary"}
    return [tune(game, t, vary="strips", **kwargs) for t in targets]


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
    """Comparison rows: target, exact RTP, σ and hit frequency (PAR-sheet scope) per variant."""
    rows = []
    for res, path in zip(results, paths, strict=True):
        fig = play_figures(res.game, play_reels(res.game, res.reels))
        rows.append({"file": str(path), "target": float(res.target), "rtp": float(res.rtp),
                     "rtp_exact": f"{res.rtp.numerator}/{res.rtp.denominator}", "error_pp": res.error_pp,
                     "reached": res.reached, "sd": fig.sd, "hit_frequency": fig.hit_frequency, "scope": fig.scope,
                     "moves": len(res.moves)})
    return rows


def _table_text(rows: list[dict[str, Any]]) -> str:
    head = f"{'variant':<28} {'target':>8} {'RTP':>11} {'Δ pp':>10} {'σ':>8} {'hit freq':>9}  reached"
    lines = [head]
    for r in rows:
        lines.append(f"{Path(r['file']).name:<28} {100 * r['target']:>7.3f}% {100 * r['rtp']:>10.5f}% "
                     f"{r['error_pp']:>+10.6f} {r['sd']:>8.4f} {100 * r['hit_frequency']:>8.4f}%  "
                     f"{'yes' if r['reached'] else 'NO'}")
    return "\n".join(lines)


def _table_csv(rows: list[dict[str, Any]]) -> str:
    import csv
    import io

    buf = io.StringIO()
    keys = ["file", "target", "rtp", "rtp_exact", "error_pp", "reached", "sd", "hit_frequency", "scope", "moves"]
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()
