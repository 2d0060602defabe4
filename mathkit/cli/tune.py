"""``mathkit tune``: tune a game to its targets, write RTP variants, or print the exact sensitivities.

Targets come from the game's ``[targets]`` table and constraints from its
``[tuning]`` table, then from the flags (a flag wins).  Exit status 0 when every target is met, 1 when one is out
of reach under the constraints (the closest design is still written, and the
miss printed with the closest figures), 2 on a bad game file or bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import GameError, MathkitError, ModelError, located
from ..model.bounds import MAX_STOPS
from ..model.edits import play_reels
from ..model.fields import suggest
from ..model.game import Game
from ..report.sensitivity import pay_sensitivity, sensitivity_text, symbol_sensitivity
from ..tuner.constraints import Constraints
from ..tuner.result import TuneResult
from ..tuner.solve import tune
from ..tuner.targets import TOLERANCE, Target
from ..tuner.variants import table_csv, table_text, tune_variants, variant_path, variants_table
from .args import Interval, fraction_in, ranged, seconds_arg
from .exits import check_output, print_json
from .tuneargs import Band, band_arg, component_arg, hierarchy_arg, names_arg, rtp_arg, rtps_arg, runs_arg

__all__ = ["cli", "write_result"]


_TOL = Interval(Fraction(0))
"""A tolerance: 0 (the figure exactly) or more."""
_SHARE = Interval(Fraction(0), Fraction(1), words="from 0 to 1 (0% to 100%)")
_PROB = Interval(Fraction(0), Fraction(1), low_open=True, words="above 0 and at most 1 (0.30 or 30%)")
_ONE_IN = Interval(Fraction(1), words="at least 1 (1 in N with N ≥ 1)")
_SD = Interval(Fraction(0), low_open=True)
MAX_CANDIDATES = 100
"""Solutions one tuning looks for at most (``--candidates``)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mathkit tune", description="Tune strips or pays to target figures, exactly, with the fewest edits.",
        epilog="Targets take a value (default tolerance) or a band LOW..HIGH.  Exit status: 0 every target met, "
               "1 a target out of reach (closest design written), 2 bad game or arguments.")
    p.add_argument("game", type=Path, help="game file (TOML); never overwritten")
    t = p.add_argument_group("targets (besides the game's [targets]; the RTP defaults to declared_rtp)")
    t.add_argument("--target-rtp", type=rtp_arg, help="total RTP: 0.94, 94%% or 94%%..94.01%%")
    t.add_argument("--tolerance-pp", type=fraction_in(Interval(Fraction(0), Fraction(100))), default=None,
                   help="RTP tolerance in pp, 0 to 100 (default 0.005)")
    t.add_argument("--sd", type=band_arg(_SD), help="σ of a whole play per total bet (default tolerance ±5%%)")
    t.add_argument("--sd-tol", type=fraction_in(_TOL), help="tolerance on σ")
    t.add_argument("--vi", type=band_arg(_SD), help="volatility index 1.645·σ (±5%%)")
    t.add_argument("--hit-frequency", type=band_arg(_PROB, percent=True), help="P(a base spin pays), e.g. 0.30 (±0.005)")
    t.add_argument("--hf-tol", type=fraction_in(_SHARE, percent=True), help="tolerance on the hit frequency")
    t.add_argument("--feature-frequency", type=band_arg(_ONE_IN), help="1 in N base spins starts a feature (±5%% of N)")
    t.add_argument("--top-award", type=band_arg(_ONE_IN), help="top line award 1 in N games per line (±10%% of N)")
    t.add_argument("--component", type=component_arg, action="append", default=[], metavar="NAME=RTP",
                   help='RTP of one component, e.g. "free spins=0.24" (±0.1 pp); repeatable')
    t.add_argument("--modes", action="store_true",
                   help="tune the base game and every bet mode ([modes.NAME]) at once, each to its declared RTP "
                        "(or all to --target-rtp)")
    t.add_argument("--variants", type=rtps_arg, help="comma-separated RTPs: one file each, chained so neighbours differ "
                                                     "least")
    c = p.add_argument_group("constraints (defaults: see mathkit.tuner.constraints)")
    c.add_argument("--reels", type=names_arg, help="comma-separated reel sets to change (default: the default set)")
    c.add_argument("--vary", choices=("strips", "pays", "both"), help="what may change (default: strips)")
    c.add_argument("--fixed", type=_fixed, help="comma-separated symbols whose stops never change, or 'none' "
                                                "(default: every wild, scatter and bonus symbol)")
    c.add_argument("--count-tolerance", type=fraction_in(_SHARE), help="per-reel counts within ±this, 0 to 1 "
                                                                         "(default 0.25)")
    c.add_argument("--keep-stacks", action=argparse.BooleanOptionalAction, default=None)
    c.add_argument("--keep-length", action=argparse.BooleanOptionalAction, default=None)
    c.add_argument("--keep-order", action=argparse.BooleanOptionalAction, default=None,
                   help="a symbol paying more never gets more stops on a reel than one it had no more than (default)")
    c.add_argument("--scatter-spacing", type=ranged(0, MAX_STOPS, f"stops: a strip has at most {MAX_STOPS:,}"),
                   help="stops between two scatters at least (default: rows)")
    c.add_argument("--hierarchy", type=hierarchy_arg,
                   help="symbol tiers high to low, tiers by '/' and ties by ',': DRAGON/PHOENIX/ACE,KING")
    c.add_argument("--no-adjacent", type=names_arg, help="comma-separated symbols never next to themselves")
    c.add_argument("--max-run", type=runs_arg, help="longest runs, e.g. NINE=2,TEN=2")
    c.add_argument("--feature-frequency-tolerance", type=_share_or_none,
                   help="keep the feature frequency within ±this (0.05), 0 to 1, or 'none'")
    o = p.add_argument_group("output")
    o.add_argument("--out", type=Path, help="tuned game file (variants and candidates: the names' base)")
    o.add_argument("--candidates", type=ranged(1, MAX_CANDIDATES, f"candidates: at most {MAX_CANDIDATES}"), default=1,
                   help=f"up to K distinct solutions across σ, low to high (at most {MAX_CANDIDATES})")
    o.add_argument("--force", action="store_true", help="replace existing output files")
    o.add_argument("--json", action="store_true", help="print the result as JSON")
    o.add_argument("--time-limit", type=seconds_arg, default=120.0, help="seconds after which no new step starts")
    o.add_argument("--sensitivity", action="store_true",
                   help="print the exact ∂RTP/∂(symbol on reel) and ∂RTP/∂(pay) tables instead of tuning")
    return p


NONE = "none"


def _fixed(text: str) -> tuple[str, ...] | str:
    return NONE if text.strip() == NONE else names_arg(text)


def _share_or_none(text: str) -> Fraction | str:
    return NONE if text.strip() == NONE else fraction_in(_SHARE)(text)


def _target(figure: str, given: Band, tolerance: Fraction | None = None) -> Target:
    return Target.of(figure, given.value, tolerance, given.band)


def _rtp(given: Band, tolerance: Fraction | None) -> Target:
    """The RTP target, its band inside (0, 100%] (a tuned game never pays more than it takes)."""
    t = _target("rtp", given, tolerance)
    if t.low <= 0 or t.high > 1:
        shown = f"{_pct(t.low)} to {_pct(t.high)}"
        msg = f"the band {shown} of the bet reaches outside a target RTP's range: above 0% and at most 100%"
        if tolerance is None:  # the default tolerance around a value at the range's end
            raise ModelError(msg, field="--target-rtp", fix="aim inside the range, or give --tolerance-pp 0")
        raise ModelError(msg, field="--tolerance-pp", fix="give a smaller tolerance")
    return t


def _pct(x: Fraction) -> str:
    return f"{float(x):.4%}"


def _targets(args: argparse.Namespace) -> list[Target]:
    """The targets the flags give (each checked when parsed; here the RTP's band with its tolerance)."""
    out = []
    if args.target_rtp:
        out.append(_rtp(args.target_rtp, None if args.tolerance_pp is None else args.tolerance_pp / 100))
    for figure, tol in (("sd", args.sd_tol), ("vi", None), ("hit_frequency", args.hf_tol),
                        ("feature_frequency", None), ("top_award", None)):
        given = getattr(args, figure)
        if given:
            out.append(_target(figure, given, tol))
    out += [_target(f"component:{name}", given) for name, given in args.component]
    return out


def _check_names(game: Game, args: argparse.Namespace) -> None:
    """Refuse a symbol or reel set the game does not have, before any work (each flag named)."""
    symbols = game.symbol_names
    for flag, names in (("--fixed", () if args.fixed in (None, NONE) else args.fixed),
                        ("--no-adjacent", args.no_adjacent or ()),
                        ("--hierarchy", [s for tier in args.hierarchy or () for s in tier]),
                        ("--max-run", [s for s, _ in args.max_run or ()])):
        for name in names:
            if name not in symbols:
                msg = f"unknown symbol {name!r}"
                raise GameError(msg, field=flag, fix=suggest(name, symbols))
    sets = tuple(rs.name for rs in game.reel_sets)
    for name in args.reels or ():
        if name not in sets:
            msg = f"unknown reel set {name!r}"
            raise GameError(msg, field="--reels", fix=suggest(name, sets))


def _constraints(game: Game, args: argparse.Namespace) -> Constraints:
    fixed = None if args.fixed is None else frozenset() if args.fixed == NONE else frozenset(args.fixed)
    ff = args.feature_frequency_tolerance
    cons = Constraints.build(game, fixed=fixed, count_tolerance=args.count_tolerance, keep_stacks=args.keep_stacks,
                             keep_length=args.keep_length, keep_order=args.keep_order, scatter_spacing=args.scatter_spacing,
                             no_adjacent=None if args.no_adjacent is None else frozenset(args.no_adjacent),
                             max_run=args.max_run, hierarchy=args.hierarchy,
                             feature_frequency_tolerance=None if ff in (None, NONE) else ff)
    if ff == NONE:
        cons = dataclasses.replace(cons, feature_frequency_tolerance=None)
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
    reels = args.reels or ()
    sym = symbol_sensitivity(game, reels[0] if reels else None)
    pays = pay_sensitivity(game, play_reels(game, sym.reels))
    if args.json:
        print_json({
            "reels": sym.reels, "rtp": float(sym.rtp), "heatmap": sym.heatmap(),
            "symbols": [{**r, "delta": None if r["delta"] is None else str(r["delta"])} for r in sym.rows()],
            "pays": [{"pay": p.cell.label(), "kind": p.cell.kind, "entry": p.cell.entry, "count": p.cell.count,
                      "value": list(p.pay), "hits": p.hits, "delta": str(p.delta), "delta_pp": 100 * float(p.delta),
                      "marginal": None if p.marginal is None else str(p.marginal)} for p in pays],
        }, ensure_ascii=False)
    else:
        print(sensitivity_text(sym, pays), end="")
    return 0


def _modes(game: Game, args: argparse.Namespace, extra: list[Target]) -> int:
    """``mathkit tune GAME --modes --out FILE``: every mode on its target at once (:func:`mathkit.tuner.modes.tune_modes`)."""
    from ..tuner.modes import tune_modes

    if not game.modes:
        msg = "the game declares no bet modes"
        raise GameError(msg, field="modes", fix="declare [modes.NAME] tables, or tune without --modes")
    others = [t.figure for t in extra if t.figure != "rtp"]
    if others:
        msg = f"--modes tunes each mode's RTP only, not {', '.join(others)}"
        raise ModelError(msg, field="--modes", fix="tune the other figures without --modes")
    _check_outputs([args.out], args.game, args.force)
    rtp = next((t for t in extra if t.figure == "rtp"), None)
    target = None if rtp is None else (rtp.low + rtp.high) / 2
    tolerance = TOLERANCE if rtp is None else (rtp.high - rtp.low) / 2
    if rtp is None and args.tolerance_pp is not None:
        tolerance = args.tolerance_pp / 100
    with located(path=args.game):
        res = tune_modes(game, target, tolerance, time_limit=args.time_limit)
    write_result(res.game, args.out, force=args.force, source=args.game)
    if args.json:
        print_json({"file": str(args.out), "reached": res.reached, "seconds": res.seconds,
                    "cpu_seconds": res.cpu_seconds,
                    "modes": [{"mode": m.name, "target": float(m.target), "tolerance": float(m.tolerance),
                               "before": float(m.before), "after": float(m.after), "reached": m.reached, "how": m.how}
                              for m in res.modes]}, ensure_ascii=False)
    else:
        print(f"{args.game} → {args.out}")
        print(res.text(), end="")
    return 0 if res.reached else 1


def cli(argv: list[str]) -> int:
    """``mathkit tune``: see the module notes; returns the exit status."""
    args = _parser().parse_args(argv)
    from ..gamefile.io import load_game

    try:
        extra = _targets(args)  # the bands the flags make, before the game is read
        game = load_game(args.game)
        with located(path=args.game):
            _check_names(game, args)
        if args.sensitivity:
            with located(path=args.game):
                return _sensitivity(game, args)
        if args.out is None:
            print("mathkit tune: give --out FILE", file=sys.stderr)
            return 2
        check_output(args.out, what="--out")  # before any computing: the folder exists and takes new files
        with located(path=args.game):
            cons = _constraints(game, args)
        kw: dict[str, Any] = {"reels": args.reels or None, "vary": args.vary, "time_limit": args.time_limit}
        if args.modes:
            return _modes(game, args, extra)
        if args.variants:
            rtps = list(args.variants)
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
                print_json({"variants": rows, "results": [_summary(r, [p]) for r, p in zip(results, paths, strict=True)]},
                           ensure_ascii=False, default=str)
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
            print_json(_summary(res, paths), ensure_ascii=False, default=str)
        else:
            print(f"{args.game} → {', '.join(map(str, paths))} ({res.seconds:.1f} s, {res.cpu_seconds:.1f} s CPU, "
                  f"{res.evaluations} exact evaluations)")
            print(res.text())
        return 0 if res.reached else 1
    except (MathkitError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
