"""The fuzz suite: mutated game files loaded in-process, each PAR sheet computed under a time limit.

Each case is a base game and one to three mutations (``tests/fuzz_mutate.py``): of
any field of the format, of the ranges the bounds contract guards, or of the text
itself.  The file is written and loaded with :func:`mathkit.gamefile.io.load_game`.  What
must hold:

* every failure is a :class:`~mathkit.errors.GameError` or
  :class:`~mathkit.errors.ModelError` naming the file and a field; no other
  exception, no crash, no hang (a worker past its CPU time limit is killed);
* every accepted file round-trips (dump, load: an equal game) and gives a PAR
  sheet whose invariants hold (:func:`check_par`), equal to the brute-force
  evaluator (``tests/brute.py``) on the base spin of small games;
* on one case in :data:`CLI_EVERY` a command line (``tests/fuzz_cli.py``: any command,
  good and bad flags) exits 0, 1 or 2 with a message, raising nothing but mathkit's own
  errors; Warlords and Prince of Riches (PAR sheets of tens of CPU seconds) are loaded,
  round-tripped and simulated briefly instead of analysed.

Cases run in worker processes (``spawn``) under tight resource limits
(:data:`LIMITS`), so a large computation is refused in time rather than run.
``python tests/fuzz.py --count 10000`` (``make fuzz``) prints the counts by
outcome and failure class and the run time; ``--case N`` replays one case in
this process with its traceback.  ``tests/test_fuzz.py`` runs a small count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import os
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from fuzz_cli import HEAVY, cli_argv, run_cli
from fuzz_mutate import CLI_BASES, make_case

LIMITS = {"MATHKIT_MAX_WORK": "1e9", "MATHKIT_MAX_MEMORY": "1G", "MATHKIT_MAX_STATES": "20000",
          "MATHKIT_MAX_SPINS": "1e7"}
"""Resource limits in the workers: what passes them finishes in a second or two."""
BRUTE_MAX = 30_000
"""Outcomes × lines up to which the base spin is compared with the brute-force evaluator."""
CLI_EVERY = 10
"""One case in this many also runs a command line in-process (:func:`fuzz_cli.cli_argv`)."""

# --------------------------------------------------------------------------- invariants
def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def check_par(par: Any) -> list[str]:
    """The invariants of one PAR sheet; the list of those violated (empty: all hold)."""
    bad: list[str] = []
    bet = par.total_bet
    comps = par.components
    if par.rtp.exact is not None and all(f.exact is not None for f in comps.values()):
        if sum(f.exact for f in comps.values()) != par.rtp.exact:
            bad.append("breakdown does not sum to the RTP exactly")
    elif not _close(math.fsum(f.value for f in comps.values()), par.rtp.value, 1e-9):
        bad.append("breakdown does not sum to the RTP")
    for name, f in comps.items():
        if not math.isfinite(f.value) or (f.value < -1e-12 if name != "cap" else f.value > 1e-12):
            bad.append(f"component {name} = {f.value}")
    if not (math.isfinite(par.rtp.value) and par.rtp.value >= 0):
        bad.append(f"RTP {par.rtp.value}")
    probs = [("hit frequency", par.hit_frequency), ("hit frequency ≥ bet", par.hit_frequency_bet),
             ("P(max win)", par.max_win_probability), *((f"P(win ≥ {m}× bet)", f) for m, f in par.tails.items())]
    for section in par.features:
        probs += [(f"{section.name}: {n}", f) for n, f in section.figures
                  if n.startswith("P(") or "probability" in n]
    for name, f in probs:
        if not (0 <= f.value <= 1 + 1e-12):
            bad.append(f"{name} = {f.value} outside [0, 1]")
    if not (math.isfinite(par.sd.value) and par.sd.value >= 0):
        bad.append(f"σ = {par.sd.value}")
    d = par.distribution
    p = d.probs()
    if (d.values < 0).any() or (p < 0).any():
        bad.append("negative win or probability in the distribution")
    if not _close(float(p.sum()) + d.lost_mass, 1.0, 1e-9):
        bad.append(f"distribution sums to {float(p.sum())} + lost {d.lost_mass}")
    if not _close(par.max_win.value, d.max_win / bet, 1e-12):
        bad.append(f"max win {par.max_win.value} is not the distribution's top {d.max_win / bet}")
    cap = par.cap.value if par.cap is not None else math.inf
    for e in par.entries:
        if e.hits and min(e.pay / bet, cap) > par.max_win.value * (1 + 1e-12):
            bad.append(f"max win {par.max_win.value} below the pay of {e.count} × {e.entry} ({e.pay / bet})")
        lines = par.lines if e.component == "lines" else 1
        if e.hits and e.probability.value / lines > par.hit_frequency.value * (1 + 1e-9):
            bad.append(f"hit frequency {par.hit_frequency.value} below P({e.count} × {e.entry})")
    if not _close(float(d.hit_frequency()), par.hit_frequency.value, 1e-12):
        bad.append("hit frequency differs from the distribution's P(win > 0)")
    if not _close(float(d.sf(bet)), par.hit_frequency_bet.value, 1e-12):
        bad.append("hit frequency ≥ bet differs from the distribution")
    if d.exact and par.rtp.exact is not None and d.rtp() != par.rtp.exact:
        bad.append("the exact distribution's mean is not the RTP")
    elif not d.exact and d.lost_mass == 0 and not _close(float(d.rtp()), par.rtp.value, 1e-6):
        bad.append(f"the distribution's mean {float(d.rtp())} is not the RTP {par.rtp.value}")
    if par.cycle != par.game.reel_set(par.reels).cycle:
        bad.append("cycle differs from the reel set's")
    return bad


def check_brute(par: Any) -> list[str]:
    """The base spin of a small game against the brute-force evaluator (hits, credits, distribution)."""
    from brute import brute_force

    game, base = par.game, par.base
    if base.cycle * max(base.lines, 1) > BRUTE_MAX:
        return []
    b = brute_force(game, base.reels, lines=base.lines, coins=base.coins)
    bad = []
    if base.components.cycle != b.cycle or base.rtp() != b.rtp():
        bad.append(f"base RTP {base.rtp()} differs from brute force {b.rtp()}")
    got = {w: int(c) for w, c in zip(base.win_distribution.values.tolist(), base.win_distribution.weights.tolist(),
                                     strict=True)}
    if got != {w: c for w, c in b.distribution.items() if c}:
        bad.append("base win distribution differs from brute force")
    return bad


# --------------------------------------------------------------------------- one case
def _located(exc: Exception, path: Path) -> bool:
    """The error names the file and a field, and says the field once."""
    field = getattr(exc, "field", "")
    return bool(getattr(exc, "path", None) == str(path) and field and f"{field}: {field}:" not in str(exc))


def _cli(seed: int, index: int, path: Path, *, heavy: bool = False) -> tuple[str | None, str]:
    """One command line of case ``index`` (:func:`fuzz_cli.cli_argv`) in-process: a problem or ``None``, a label."""
    import random

    rng = random.Random(f"cli:{seed}:{index}")
    argv = cli_argv(rng, path, path.parent, heavy=heavy)
    return run_cli(argv)


def run_case(seed: int, index: int, folder: Path) -> dict[str, Any]:
    """Make, load and analyse case ``index``; the outcome as a JSON-ready dict."""
    from mathkit.errors import GameError, LimitError, ModelError
    from mathkit.gamefile.io import dump_game, load_game, loads_game
    from mathkit.report.par import build_par

    base, data, mutations = make_case(seed, index)
    path = folder / f"case_{index}.toml"
    heavy = base in HEAVY
    path.write_bytes(data)
    out: dict[str, Any] = {"case": index, "base": base, "mutations": mutations}
    start = time.perf_counter()
    cpu0 = time.process_time()
    try:
        try:
            game = load_game(path)
        except GameError as exc:
            out["outcome"] = "refused on load" if _located(exc, path) else "FAIL: unlocated error"
            head = exc.field.split(".")[0].split("[")[0] or "(no field)"
            out["class"] = "(the text, by line)" if head.startswith("line ") else head
            out["message"] = str(exc)[:300]
            if index % CLI_EVERY == 0:  # every command refuses the file cleanly too
                problem, out["cli"] = _cli(seed, index, path, heavy=heavy)
                if problem:
                    out["outcome"], out["class"], out["message"] = "FAIL: cli", "cli", problem
            return out
        again = loads_game(dump_game(game))
        if again != game:
            out["outcome"], out["class"] = "FAIL: invariant", "round trip"
            return out
        if heavy:  # a PAR sheet of tens of CPU seconds: a brief simulation of the blocks instead
            problem, label = _cli(seed, index, path, heavy=True)
            out["cli"] = label
            out["outcome"], out["class"] = ("FAIL: cli", "cli") if problem else ("accepted (simulated)", label)
            if problem:
                out["message"] = problem
            return out
        try:
            par = build_par(game, parallel=False)
        except (GameError, ModelError) as exc:
            kind = "limit" if isinstance(exc, LimitError) else type(exc).__name__
            out["outcome"] = f"refused by the {kind}" if _located(exc, path) else "FAIL: unlocated error"
            out["class"] = kind
            out["message"] = str(exc)[:300]
            return out
        bad = check_par(par) + check_brute(par)
        if bad:
            out["outcome"], out["class"], out["message"] = "FAIL: invariant", bad[0], "; ".join(bad)[:500]
        else:
            out["outcome"] = "accepted"
        if index % CLI_EVERY == 0 and base in CLI_BASES:
            problem, label = _cli(seed, index, path)
            out["cli"] = label
            if problem:
                out["outcome"], out["class"], out["message"] = "FAIL: cli", "cli", problem
    except Exception as exc:
        out["outcome"], out["class"] = "FAIL: traceback", type(exc).__name__
        out["message"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        out["traceback"] = traceback.format_exc()[-2000:]
    finally:
        out["seconds"] = time.perf_counter() - start
        out["cpu"] = time.process_time() - cpu0
        path.unlink(missing_ok=True)
    return out


def _worker(conn: Connection, seed: int, folder: str) -> None:
    os.environ.update(LIMITS)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    while True:
        index = conn.recv()
        if index is None:
            return
        conn.send(run_case(seed, index, Path(folder)))


# --------------------------------------------------------------------------- the run
def _describe(seed: int, case: int) -> dict[str, Any]:
    base, _, mutations = make_case(seed, case)
    return {"base": base, "mutations": mutations}


def _cpu(proc: Any) -> float:
    """CPU seconds a worker has used (user + system, all its threads)."""
    import psutil

    try:
        t = psutil.Process(proc.pid).cpu_times()
    except psutil.Error:
        return 0.0
    return float(t.user + t.system)


class _Pool:
    """Worker processes started here, one case at a time each; a worker past the time limit is killed."""

    def __init__(self, n: int, seed: int, folder: str) -> None:
        self.ctx = mp.get_context("spawn")
        self.seed, self.folder = seed, folder
        self.workers: list[tuple[Any, Connection]] = [self._start() for _ in range(n)]

    def _start(self) -> tuple[Any, Connection]:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.seed, self.folder), daemon=True)
        proc.start()
        child.close()
        return proc, parent

    def replace(self, i: int) -> None:
        proc, conn = self.workers[i]
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        conn.close()
        self.workers[i] = self._start()

    def close(self) -> None:
        for proc, conn in self.workers:
            with contextlib.suppress(OSError, BrokenPipeError):
                conn.send(None)
            proc.join(5)
            if proc.is_alive():
                proc.kill()


def run_fuzz(count: int, *, seed: int = 0, workers: int = 2, timeout: float = 20.0, start: int = 0,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run cases ``start .. start+count-1``; counts by outcome and class, the failures, the run time.

    A case is a hang when its worker uses more than ``timeout`` CPU seconds on it (the
    machine is shared: CPU time is what a case costs), or stalls for twenty times that in
    wall time (at least 5 minutes).
    """
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mathkit-fuzz-") as folder:
        pool = _Pool(workers, seed, folder)
        todo = list(range(start, start + count))
        busy: dict[int, tuple[int, float, float]] = {}  # worker -> (case, wall start, cpu at start)
        try:
            while todo or busy:
                for i in range(len(pool.workers)):
                    if i not in busy and todo:
                        case = todo.pop(0)
                        pool.workers[i][1].send(case)
                        busy[i] = (case, time.perf_counter(), _cpu(pool.workers[i][0]))
                conns = {pool.workers[i][1]: i for i in busy}
                ready = wait(list(conns), timeout=0.2)
                for conn in ready:
                    i = conns[conn]  # type: ignore[index]
                    case, _, _ = busy.pop(i)
                    try:
                        results.append(conn.recv())  # type: ignore[union-attr]
                    except (EOFError, OSError):
                        code = pool.workers[i][0].exitcode
                        results.append({"case": case, "outcome": "FAIL: crash", "class": f"exit {code}",
                                        **_describe(seed, case)})
                        pool.replace(i)
                    if results[-1]["outcome"].startswith("FAIL"):  # said at once: a long run is read as it goes
                        r = results[-1]
                        print(f"  case {r['case']} {r['outcome']}: {r.get('message', r.get('class', ''))}"[:400],
                              file=sys.stderr, flush=True)
                    if progress:
                        progress(len(results), count)
                now = time.perf_counter()
                for i, (case, wall, cpu) in list(busy.items()):
                    used = _cpu(pool.workers[i][0]) - cpu
                    if used > timeout or now - wall > max(20 * timeout, 300):
                        busy.pop(i)
                        results.append({"case": case, "outcome": "FAIL: hang",
                                        "class": f"over {timeout:g} s ({used:.0f} s CPU, {now - wall:.0f} s wall)",
                                        **_describe(seed, case)})
                        pool.replace(i)
        finally:
            pool.close()
    outcomes = Counter(r["outcome"] for r in results)
    classes = Counter(f"{r['outcome']} — {r.get('class', '')}" for r in results)
    fails = [r for r in results if r["outcome"].startswith("FAIL")]
    slow = sorted((r for r in results if "cpu" in r), key=lambda r: -r["cpu"])[:5]
    cli = Counter(r["cli"] for r in results if "cli" in r)
    disagree = [r["case"] for r in results if r.get("cli") == "simulate disagrees"]
    samples: dict[str, list[str]] = {}
    for r in results:
        if r.get("message"):
            samples.setdefault(f"{r['outcome']} — {r.get('class', '')}", []).append(r["message"])
    return {"count": len(results), "seed": seed, "seconds": time.perf_counter() - t0, "outcomes": dict(outcomes),
            "classes": dict(classes), "failures": fails, "slowest": [(r["case"], round(r["cpu"], 2), round(r["seconds"], 2)) for r in slow],
            "cpu": sum(r.get("cpu", 0.0) for r in results), "cli": dict(cli), "simulate_disagrees": disagree,
            "samples": {k: v[:3] for k, v in samples.items()}}


def report(res: dict[str, Any]) -> str:
    """The run's summary as text."""
    lines = [f"{res['count']:,} mutated game files (seed {res['seed']}) in {res['seconds']:.0f} s "
             f"({res['count'] / max(res['seconds'], 1e-9):.1f} files/s)"]
    for k, v in sorted(res["outcomes"].items()):
        lines.append(f"  {k:<34} {v:>6,}")
    lines.append("by class:")
    for k, v in sorted(res["classes"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {v:>6,}  {k}")
    lines.append("command lines run (command, exit status):")
    for k, v in sorted(res.get("cli", {}).items()):
        lines.append(f"  {v:>6,}  {k}")
    lines.append(f"CPU time in the cases: {res['cpu']:.0f} s; slowest (case, CPU s, wall s): {res['slowest']}")
    failures = res["failures"]
    lines.append(f"failures: {len(failures)}")
    for r in failures[:30]:
        lines.append(f"  case {r['case']} [{r.get('base')}] {r['outcome']} {r.get('class', '')}: {r.get('mutations')}")
        if r.get("message"):
            lines.append(f"      {r['message'][:300]}")
    return "\n".join(lines)


def _replay(seed: int, case: int) -> None:
    """Run one case in this process, with the limits, and print everything."""
    os.environ.update(LIMITS)
    base, _data, mutations = make_case(seed, case)
    print(f"case {case}: base {base}; mutations {mutations}")
    with tempfile.TemporaryDirectory() as folder:
        res = run_case(seed, case, Path(folder))
    print(json.dumps({k: v for k, v in res.items() if k != "traceback"}, indent=2, default=str))
    print(res.get("traceback", ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Fuzz mathkit with mutated game files.")
    p.add_argument("--count", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it counts as a hang")
    p.add_argument("--case", type=int, help="replay one case in this process")
    p.add_argument("--json", type=Path, help="also write the full result as JSON")
    args = p.parse_args(argv)
    if args.case is not None:
        _replay(args.seed, args.case)
        return 0

    def tick(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done:,}/{total:,}", file=sys.stderr, flush=True)

    res = run_fuzz(args.count, seed=args.seed, workers=args.workers, timeout=args.timeout, start=args.start,
                   progress=tick)
    print(report(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())

