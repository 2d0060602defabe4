"""``mathkit tune``: tune to a target RTP, write RTP variants, or print the exact sensitivities.

Exit status 0 when every target is reached, 1 when one is not reachable under
the constraints (the nearest design is still written), 2 on a bad game file or
bad arguments (see :mod:`mathkit.tune`).
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..cliargs import check_output, nonnegative, number, positive
from ..errors import MathkitError, located
from ..sensitivity import play_reels
from .constraints import Constraints
from .solve import TuneResult, _same_file, tune, write_result
from .variants import _table_csv, _table_text, tune_variants, variant_path, variants_table

__all__ = ["cli"]


def _parse_rtp(text: str) -> Fraction:
    t = text.strip()
    try:
        value = (Fraction(t[:-1]) / 100 if t.endswith("%") else Fraction(t)) if len(t) <= 40 else None
    except (ValueError, ZeroDivisionError):
        value = None
    if value is None:
        msg = f"not an RTP: {text!r} (write 0.92, 92% or 23/25)"
        raise argparse.ArgumentTypeError(msg)
    if not 0 < value <= 1:
        msg = (f"RTP {text} is {float(value):.4%} of the bet: a target RTP lies above 0% and at most 100% "
               "(write 0.92 or 92%)")
        raise argparse.ArgumentTypeError(msg)
    return value


def _probability(text: str) -> float:
    value = number(text)
    if not 0 < value < 1:
        msg = f"{text} is not a probability between 0 and 1 (write 0.25)"
        raise argparse.ArgumentTypeError(msg)
    return value


def _positive_number(text: str) -> float:
    value = number(text)
    if value <= 0:
        msg = f"must be more than 0, not {text}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _steps(text: str) -> int:
    value = positive(text)
    if value > 100_000:
        msg = f"{value:,} steps: at most 100,000"
        raise argparse.ArgumentTypeError(msg)
    return value


def _parse_list(text: str) -> list[Fraction]:
    return [_parse_rtp(x) for x in text.split(",") if x.strip()]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit tune", description="Solve strips or pays for a target RTP, exactly.",
                                epilog="Exit status: 0 target(s) reached, 1 not reachable (nearest written), "
                                       "2 bad game or arguments.")
    p.add_argument("game", type=Path, help="game file (TOML); never overwritten")
    p.add_argument("--target-rtp", type=_parse_rtp, help="target RTP: 0.92, 92%% or 23/25")
    p.add_argument("--variants", type=_parse_list, help="comma-separated targets (strips only), one file each")
    p.add_argument("--out", type=Path, help="output game file (variants: the name pattern's base)")
    p.add_argument("--sensitivity", action="store_true",
                   help="print the exact ∂RTP/∂(symbol on reel) and ∂RTP/∂(pay) tables instead of tuning")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.add_argument("--vary", choices=("strips", "pays", "both"), default="strips")
    p.add_argument("--reels", help="reel set to change (default: the game's default set)")
    p.add_argument("--hit-frequency", type=_probability, help="secondary target: base-spin hit frequency (0.25)")
    p.add_argument("--hf-tol", type=_positive_number, default=0.005, help="tolerance on the hit frequency (default 0.005)")
    p.add_argument("--sd", type=_positive_number, help="secondary target: base-spin σ per total bet")
    p.add_argument("--sd-tol", type=_positive_number, help="tolerance on σ (default 5%% of --sd)")
    p.add_argument("--keep-length", action=argparse.BooleanOptionalAction, default=True,
                   help="keep strip lengths (default); --no-keep-length allows inserting and deleting stops")
    p.add_argument("--min-scatter-spacing", type=nonnegative, help="stops between two scatters at least (default: rows)")
    p.add_argument("--max-stack", type=positive, help="longest run of one symbol (default: the original's per symbol)")
    p.add_argument("--fixed", default="", help="comma-separated symbols whose stops must not change")
    p.add_argument("--tolerance-pp", type=_positive_number, default=0.005, help="RTP tolerance in pp (default 0.005)")
    p.add_argument("--seed", type=nonnegative, default=0, help="seed for the choice between equivalent stops")
    p.add_argument("--max-steps", type=_steps, default=500, help="most moves (default 500, at most 100000)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def _summary(res: TuneResult, path: Path) -> dict[str, Any]:
    return {
        "file": str(path), "target": float(res.target), "rtp": float(res.rtp),
        "rtp_exact": f"{res.rtp.numerator}/{res.rtp.denominator}", "rtp_before": float(res.rtp_before),
        "error_pp": res.error_pp, "reached": res.reached, "declared_rtp": float(res.game.declared_rtp or 0),
        "moves": [m.text for m in res.moves], "evaluations": res.evaluations, "seconds": res.seconds,
        "hit_frequency": res.hit_frequency, "sd": res.sd, "secondary_ok": res.secondary_ok, "notes": list(res.notes),
    }


def _print_result(res: TuneResult, path: Path) -> None:
    print(f"{path}: RTP {100 * float(res.rtp_before):.4f}% → {100 * float(res.rtp):.6f}% "
          f"(target {100 * float(res.target):.4f}%, Δ {res.error_pp:+.6f} pp) — "
          f"{'reached' if res.reached else 'NOT reached'}; {len(res.moves)} moves, {res.evaluations} exact "
          f"evaluations, {res.seconds:.1f} s")
    for m in res.moves:
        print(f"  {m.text}")
    if res.hit_frequency is not None:
        print(f"  base spin: hit frequency {100 * res.hit_frequency:.4f}%, σ {res.sd:.4f}")
    for n in res.notes:
        print(f"  note: {n}")


def _sensitivity_cli(args: argparse.Namespace) -> int:
    from ..io import load_game
    from ..sensitivity import pay_sensitivity, sensitivity_text, symbol_sensitivity

    game = load_game(args.game)
    with located(path=args.game):
        sym = symbol_sensitivity(game, args.reels)
        pays = pay_sensitivity(game, play_reels(game, sym.reels))
    if args.json:
        print(json.dumps({
            "reels": sym.reels, "rtp": float(sym.rtp), "heatmap": sym.heatmap(),
            "symbols": [{**r, "delta": None if r["delta"] is None else str(r["delta"])} for r in sym.rows()],
            "pays": [{"pay": p.cell.label(), "kind": p.cell.kind, "entry": p.cell.entry, "count": p.cell.count,
                      "value": list(p.pay), "hits": p.hits, "delta": str(p.delta), "delta_pp": 100 * float(p.delta),
                      "marginal": None if p.marginal is None else str(p.marginal)} for p in pays],
        }, indent=2, ensure_ascii=False))
    else:
        print(sensitivity_text(sym, pays), end="")
    return 0


def cli(argv: list[str]) -> int:
    """``mathkit tune``: see the module notes; returns the exit status."""
    args = _parser().parse_args(argv)
    from ..io import load_game

    try:
        if args.sensitivity:
            return _sensitivity_cli(args)
        if args.out is None:
            print("mathkit tune: give --out FILE", file=sys.stderr)
            return 2
        if args.target_rtp is None and not args.variants:
            print("mathkit tune: give --target-rtp R or --variants R1,R2,...", file=sys.stderr)
            return 2
        game = load_game(args.game)
        targets = args.variants or [args.target_rtp]
        outs = [variant_path(args.out, t) for t in targets] if args.variants else [args.out]
        for o in [*outs, *([variant_path(args.out, Fraction(0)).with_name(f"{args.out.stem}_variants.csv")]
                           if args.variants else [])]:
            if _same_file(args.game, o):
                print(f"error: {o} is the input game: the original is never overwritten; choose another --out",
                      file=sys.stderr)
                return 2
            if o.exists() and not args.force:
                print(f"error: {o} exists; pass --force to replace it", file=sys.stderr)
                return 2
            check_output(o, what="--out")
        fixed = frozenset(x.strip() for x in args.fixed.split(",") if x.strip())
        cons = Constraints(args.keep_length, args.min_scatter_spacing, args.max_stack, fixed)
        kw: dict[str, Any] = {
            "reels": args.reels, "constraints": cons, "tolerance": Fraction(str(args.tolerance_pp)) / 100,
            "hit_frequency": args.hit_frequency, "sd": args.sd, "hf_tol": args.hf_tol, "sd_tol": args.sd_tol,
            "seed": args.seed, "max_steps": args.max_steps, "progress": None,
        }
        with located(path=args.game):
            if args.reels is not None:
                game.reel_set(args.reels)
            if args.variants:
                results = tune_variants(game, targets, **kw)
            else:
                results = [tune(game, targets[0], vary=args.vary, **kw)]
        for res, o in zip(results, outs, strict=True):
            write_result(res, o, force=args.force, source=args.game)
        summaries = [_summary(r, o) for r, o in zip(results, outs, strict=True)]
        table: list[dict[str, Any]] = []
        if args.variants:
            from ..report import write_atomic

            table = variants_table(results, outs)
            write_atomic(args.out.with_name(f"{args.out.stem}_variants.csv"), _table_csv(table))
        if args.json:
            print(json.dumps({"results": summaries, "variants": table} if args.variants else summaries[0], indent=2,
                             ensure_ascii=False))
        else:
            for r, o in zip(results, outs, strict=True):
                _print_result(r, o)
            if table:
                print()
                print(_table_text(table))
                print(f"table written to {args.out.with_name(f'{args.out.stem}_variants.csv')}")
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FileExistsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if all(r.reached for r in results) else 1
