"""``mathkit tune``: tune a game to its targets, write RTP variants, or print the exact sensitivities.

Targets come from the game's ``[targets]`` table and constraints from its
``[tuning]`` table, then from the flags (a flag wins).  Exit status 0 when every target is met, 1 when one is out
of reach under the constraints (the closest design is still written, and the
miss printed with the closest figures), 2 on a bad game file or bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import MathkitError, ModelError, located
from ..model.game import Game
from ..report.sensitivity import pay_sensitivity, play_reels, sensitivity_text, symbol_sensitivity
from ..tuner.constraints import Constraints
from ..tuner.result import TuneResult
from ..tuner.solve import tune
from ..tuner.targets import Target, parse_band
from ..tuner.variants import table_csv, table_text, tune_variants, variant_path, variants_table
from .args import check_output, fraction_arg, nonnegative, number, positive

__all__ = ["cli", "write_result"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mathkit tune", description="Tune strips or pays to target figures, exactly, with the fewest edits.",
        epilog="Targets take a value (default tolerance) or a band LOW..HIGH.  Exit status: 0 every target met, "
               "1 a target out of reach (closest design written), 2 bad game or arguments.")
    p.add_argument("game", type=Path, help="game file (TOML); never overwritten")
    t = p.add_argument_group("targets (besides the game's [targets]; the RTP defaults to declared_rtp)")
    t.add_argument("--target-rtp", help="total RTP: 0.94, 94%% or 94%%..94.01%%")
    t.add_argument("--tolerance-pp", type=fraction_arg, default=None, help="RTP tolerance in pp (default 0.005)")
    t.add_argument("--sd", help="σ of a whole play per total bet (default tolerance ±5%%)")
    t.add_argument("--sd-tol", help="tolerance on σ")
    t.add_argument("--vi", help="volatility index 1.645·σ (±5%%)")
    t.add_argument("--hit-frequency", help="P(a base spin pays), e.g. 0.30 (±0.005)")
    t.add_argument("--hf-tol", help="tolerance on the hit frequency")
    t.add_argument("--feature-frequency", help="1 in N base spins starts a feature (±5%% of N)")
    t.add_argument("--top-award", help="top line award 1 in N games per line (±10%% of N)")
    t.add_argument("--component", action="append", default=[], metavar="NAME=RTP",
                   help='RTP of one component, e.g. "free spins=0.24" (±0.1 pp); repeatable')
    t.add_argument("--variants", help="comma-separated RTPs: one file each, chained so neighbours differ least")
    c = p.add_argument_group("constraints (defaults: see mathkit.tuner.constraints)")
    c.add_argument("--reels", help="comma-separated reel sets to change (default: the default set)")
    c.add_argument("--vary", choices=("strips", "pays", "both"), help="what may change (default: strips)")
    c.add_argument("--fixed", help="comma-separated symbols whose stops never change, or 'none' "
                                   "(default: every wild, scatter and bonus symbol)")
    c.add_argument("--count-tolerance", type=fraction_arg, help="per-reel counts within ±this (default 0.25)")
    c.add_argument("--keep-stacks", action=argparse.BooleanOptionalAction, default=None)
    c.add_argument("--keep-length", action=argparse.BooleanOptionalAction, default=None)
    c.add_argument("--keep-order", action=argparse.BooleanOptionalAction, default=None,
                   help="a symbol paying more never gets more stops on a reel than one it had no more than (default)")
    c.add_argument("--scatter-spacing", type=nonnegative, help="stops between two scatters at least (default: rows)")
    c.add_argument("--hierarchy", help="symbol tiers high to low, tiers by '/' and ties by ',': DRAGON/PHOENIX/ACE,KING")
    c.add_argument("--no-adjacent", help="comma-separated symbols never next to themselves")
    c.add_argument("--max-run", help="longest runs, e.g. NINE=2,TEN=2")
    c.add_argument("--feature-frequency-tolerance", help="keep the feature frequency within ±this (0.05), or 'none'")
    o = p.add_argument_group("output")
    o.add_argument("--out", type=Path, help="tuned game file (variants and candidates: the names' base)")
    o.add_argument("--candidates", type=positive, default=1, help="up to K distinct solutions across σ, low to high")
    o.add_argument("--force", action="store_true", help="replace existing output files")
    o.add_argument("--json", action="store_true", help="print the result as JSON")
    o.add_argument("--time-limit", type=_seconds, default=120.0, help="seconds after which no new step starts")
    o.add_argument("--sensitivity", action="store_true",
                   help="print the exact ∂RTP/∂(symbol on reel) and ∂RTP/∂(pay) tables instead of tuning")
    return p


def _seconds(text: str) -> float:
    value = number(text)
    if value <= 0:
        msg = f"must be more than 0 seconds, not {text}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _rtp(text: str, tolerance: str | None = None, flag: str = "--target-rtp") -> Target:
    """An RTP target from the command line, above 0% and at most 100% of the bet (a tuned game never pays more)."""
    try:
        t = parse_band("rtp", text, tolerance)
    except ModelError:
        msg = f"not an RTP: {text!r}"
        raise ModelError(msg, field=flag, fix="write 0.92, 92%, 23/25 or a band 94%..94.01%") from None
    if t.low <= 0 or t.high > 1:
        msg = f"RTP {text} is {float(t.value):.4%} of the bet: a target RTP lies above 0% and at most 100%"
        raise ModelError(msg, field=flag, fix="write 0.92, 92% or 23/25")
    return t


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in (text or "").split(",") if x.strip())


def _targets(args: argparse.Namespace) -> list[Target]:
    out = []
    if args.target_rtp:
        tol = None if args.tolerance_pp is None else str(args.tolerance_pp / 100)
        out.append(_rtp(args.target_rtp, tol))
    for figure, tol in (("sd", args.sd_tol), ("vi", None), ("hit_frequency", args.hf_tol),
                        ("feature_frequency", None), ("top_award", None)):
        text = getattr(args, figure)
        if text:
            out.append(parse_band(figure, text, tol))
    for item in args.component:
        name, sep, value = item.partition("=")
        if not sep:
            msg = f'--component {item!r}: write NAME=RTP, e.g. "free spins=0.24"'
            raise ModelError(msg)
        out.append(parse_band(f"component:{name.strip()}", value))
    return out


def _run(item: str) -> tuple[str, int]:
    """One ``SYMBOL=N`` of ``--max-run``: the longest run N is a whole number ≥ 1 (as ``[tuning] max_run`` on load)."""
    name, sep, value = item.partition("=")
    try:
        if not (sep and name.strip()):
            raise argparse.ArgumentTypeError("write SYMBOL=N")
        return name.strip(), positive(value)
    except argparse.ArgumentTypeError as exc:
        msg = f"--max-run {item!r}: {exc} (fix: write SYMBOL=N with N the longest run, a whole number ≥ 1, e.g. NINE=2)"
        raise ModelError(msg) from None


def _constraints(game: Game, args: argparse.Namespace) -> Constraints:
    fixed = None if args.fixed is None else frozenset() if args.fixed.strip() == "none" else frozenset(_names(args.fixed))
    runs = None
    if args.max_run:
        runs = tuple(_run(x) for x in _names(args.max_run))
    hierarchy = None
    if args.hierarchy:
        hierarchy = tuple(_names(tier) for tier in args.hierarchy.split("/") if tier.strip())
    ff = args.feature_frequency_tolerance
    cons = Constraints.build(game, fixed=fixed, count_tolerance=args.count_tolerance, keep_stacks=args.keep_stacks,
                             keep_length=args.keep_length, keep_order=args.keep_order, scatter_spacing=args.scatter_spacing,
                             no_adjacent=None if args.no_adjacent is None else frozenset(_names(args.no_adjacent)),
                             max_run=runs, hierarchy=hierarchy,
                             feature_frequency_tolerance=None if ff in (None, "none") else Fraction(ff))
    if ff == "none":
        cons = dataclasses.replace(cons, feature_frequency_tolerance=None)
    cons.fixed_symbols(game)  # an unknown symbol is an error before any work
    return cons


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.exists() and a.samefile(b))
    except OSError:
        return False


def write_result(game: Game, out: str | Path, *, force: bool = False, source: str | Path | None = None) -> Path:
    """Save a tuned game atomically as an edit of ``source`` (:func:`mathkit.gamefile.io.save_game`: the designer's
    comments and layout kept, only the changed values rewritten); never over ``source``; an existing file only
    with ``force``."""
    target = Path(out)
    if source is not None and _same_file(Path(source), target):
        msg = f"{target} is the input game: the original is never overwritten; choose another --out"
        raise FileExistsError(msg)
    from ..gamefile.io import save_game

    return save_game(game, target, overwrite=force, template=source)


def _check_outputs(paths: Sequence[Path], source: Path, force: bool) -> None:
    for o in paths:
        check_output(o, what="--out")
        if _same_file(source, o):
            msg = f"{o} is the input game: the original is never overwritten; choose another --out"
            raise FileExistsError(msg)
        if o.exists() and not force:
            msg = f"{o} exists; pass --force to replace it"
            raise FileExistsError(msg)


def _summary(res: TuneResult, paths: Sequence[Path]) -> dict[str, Any]:
    return {"files": [str(p) for p in paths], "reached": res.reached, "reels": list(res.reels), "vary": res.vary,
            "targets": [{"figure": t.figure, "low": float(t.low), "high": float(t.high)} for t in
                        (*res.targets.items, *res.kept)],
            "before": {r["figure"]: None if r["before"] is None else float(r["before"]) for r in res.table()},
            "candidates": [c.as_dict() for c in res.candidates], "notes": list(res.notes),
            "evaluations": res.evaluations, "seconds": res.seconds, "cpu_seconds": res.cpu_seconds}


def _sensitivity(game: Game, args: argparse.Namespace) -> int:
    reels = _names(args.reels)
    sym = symbol_sensitivity(game, reels[0] if reels else None)
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
    from ..gamefile.io import load_game

    try:
        game = load_game(args.game)
        if args.sensitivity:
            with located(path=args.game):
                return _sensitivity(game, args)
        if args.out is None:
            print("mathkit tune: give --out FILE", file=sys.stderr)
            return 2
        check_output(args.out, what="--out")  # before any computing: the folder exists and takes new files
        extra = _targets(args)
        with located(path=args.game):
            cons = _constraints(game, args)
        kw: dict[str, Any] = {"reels": _names(args.reels) or None, "vary": args.vary, "time_limit": args.time_limit}
        if args.variants:
            rtps = [_rtp(x, flag="--variants").value for x in _names(args.variants)]
            paths = [variant_path(args.out, r) for r in rtps]
            csv_path = args.out.with_name(f"{args.out.stem}_variants.csv")
            _check_outputs([*paths, csv_path], args.game, args.force)
            others = [t for t in extra if t.figure != "rtp"]
            with located(path=args.game):
                results = tune_variants(game, rtps, others, cons, **kw)
            for res, path in zip(results, paths, strict=True):
                write_result(res.game, path, force=args.force, source=args.game)
            rows = variants_table(results, paths)
            from ..gamefile.io import write_atomic

            write_atomic(csv_path, table_csv(rows))
            if args.json:
                print(json.dumps({"variants": rows, "results": [_summary(r, [p]) for r, p in
                                                                zip(results, paths, strict=True)]},
                                 indent=2, ensure_ascii=False, default=str))
            else:
                for res, path in zip(results, paths, strict=True):
                    print(f"{path}: {res.text()}")
                print()
                print(table_text(rows))
                print(f"table written to {csv_path}")
            return 0 if all(r.reached for r in results) else 1
        with located(path=args.game):
            res = tune(game, extra, cons, candidates=args.candidates, **kw)
        stem = args.out
        paths = [stem] if len(res.candidates) == 1 else [stem.with_name(f"{stem.stem}_c{i + 1}{stem.suffix or '.toml'}")
                                                          for i in range(len(res.candidates))]
        _check_outputs(paths, args.game, args.force)
        for c, path in zip(res.candidates, paths, strict=True):
            write_result(c.game, path, force=args.force, source=args.game)
        if args.json:
            print(json.dumps(_summary(res, paths), indent=2, ensure_ascii=False, default=str))
        else:
            print(f"{args.game} → {', '.join(map(str, paths))} ({res.seconds:.1f} s, {res.cpu_seconds:.1f} s CPU, "
                  f"{res.evaluations} exact evaluations)")
            print(res.text())
        return 0 if res.reached else 1
    except (MathkitError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
