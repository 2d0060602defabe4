"""The fuzz suite: mutated game files of every family loaded in-process, their PAR sheets checked, under time limits.

A case is a family (``tests/fuzz_families.py``: the classic games, Warlords, Prince of
Riches, variable heights, hold and re-spin, three scatters; a new mechanic's games are one
line there), one of its base games and one to three mutations (``tests/fuzz_mutate.py``): of
any field of the format, of the ranges the bounds contract guards, of the text itself, or
gentle ones that usually keep the game valid.  The file is written and loaded with
:func:`mathkit.gamefile.io.load_game`.  What must hold:

* every failure is a :class:`~mathkit.errors.GameError` or
  :class:`~mathkit.errors.ModelError` naming the file and a field; no other
  exception, no crash, no hang (a worker past its family's CPU time limit is killed);
* every accepted file round-trips (dump, load: an equal game) and gives a PAR sheet
  (as ``mathkit par --sample-rounds 0``; for Warlords, whose whole sheet takes twenty CPU
  seconds, the sheet of the means, and the whole one on one case in eight) whose invariants
  hold (``tests/fuzz_checks.py``): components summing to the RTP, probabilities in [0, 1],
  σ ≥ 0, the distribution consistent with the figures, the base spin equal to the
  brute-force evaluator (``tests/brute.py``) on small games, strict JSON (no ``NaN`` or
  ``Infinity``), the RTP not falling when a pay rises by one credit, and the simulator's RTP
  and hit frequency inside distribution-free intervals of the exact ones;
* on one case in :data:`CLI_EVERY` a command line (``tests/fuzz_cli.py``: any command,
  good and bad flags) exits 0, 1 or 2 with a message, raising nothing but mathkit's own
  errors, its ``--json`` strict.

Cases run in worker processes (``spawn``) under tight resource limits
(:data:`LIMITS`), so a large computation is refused in time rather than run.
``python tests/fuzz.py`` (``make fuzz``) runs every family's ``cases`` and prints, family by
family, the mutants refused (by the field named), accepted (every invariant held), failed,
tracebacks and invalid JSON; ``--family NAME --count N`` runs fewer; ``--case FAMILY:N``
replays one case in this process with its traceback.  ``tests/test_fuzz.py`` runs each
family's ``sample``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
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

import tomli_w
from fuzz_checks import check_brute, check_json, check_monotone, check_sheet, check_simulation
from fuzz_cli import HEAVY, cli_argv, run_cli
from fuzz_families import FAMILIES, SHEET_EVERY, Family, family
from fuzz_mutate import CLI_BASES, make_case, raise_pay

LIMITS = {"MATHKIT_MAX_WORK": "1e9", "MATHKIT_MAX_MEMORY": "1G", "MATHKIT_MAX_STATES": "20000",
          "MATHKIT_MAX_SPINS": "1e7"}
"""Resource limits in the workers: what passes them finishes in a second or two."""
CLI_EVERY = 10
"""One case in this many also runs a command line in-process (:func:`fuzz_cli.cli_argv`)."""

# --------------------------------------------------------------------------- one case
def _located(exc: Exception, path: Path) -> bool:
    """The error names the file and a field, and says the field once."""
    field = getattr(exc, "field", "")
    return bool(getattr(exc, "path", None) == str(path) and field and f"{field}: {field}:" not in str(exc))


def _cli(seed: int, name: str, index: int, path: Path, *, heavy: bool = False) -> tuple[str | None, str]:
    """One command line of case ``index`` (:func:`fuzz_cli.cli_argv`) in-process: a problem or ``None``, a label."""
    import random

    rng = random.Random(f"cli:{seed}:{name}:{index}")
    argv = cli_argv(rng, path, path.parent, heavy=heavy)
    return run_cli(argv)


def _analyse(fam: Family, game: Any, index: int) -> list[Any]:
    """The sheets case ``index`` of ``fam`` checks: as ``mathkit par --sample-rounds 0`` computes it, or (a family
    checked at the means) the sheet of the means, and on one accepted case in ``SHEET_EVERY`` the whole one too."""
    from mathkit.report.par import build_sheet

    if fam.level == "sheet":
        return [build_sheet(game, parallel=False), *_mode_sheets(game)]
    sheets = [build_sheet(game, parallel=False, deepest="mean")]
    if index % SHEET_EVERY == SHEET_EVERY - 1:
        sheets.append(build_sheet(game, parallel=False))
    return sheets


def _mode_sheets(game: Any) -> list[Any]:
    """The sheet of the game each bet mode plays (``[modes.NAME]``: its reels, its bought entry, its cap), checked
    like the base game's: the modes' own invariants, JSON and simulation."""
    if not getattr(game, "modes", ()):
        return []
    from mathkit.report.modes import mode_table

    return [m.sheet for m in mode_table(game, base=False)]


def _accepted(fam: Family, seed: int, index: int, data: bytes, game: Any, out: dict[str, Any]) -> None:
    """Analyse an accepted mutant and check every invariant (:mod:`fuzz_checks`); the outcome into ``out``."""
    import random
    import tomllib

    from mathkit.errors import GameError, ModelError
    from mathkit.gamefile.io import loads_game

    sheets = _analyse(fam, game, index)
    bad, kinds = [], []
    for par in sheets:
        for kind, found in (("invariant", check_sheet(par)), ("brute force", check_brute(par) if hasattr(
                par, "distribution") else []), ("invalid JSON", check_json(par))):
            bad += found
            kinds += [kind] * len(found)
    out["checked"] = [par.level for par in sheets]
    rng = random.Random(f"raise:{seed}:{fam.name}:{index}")
    raised = raise_pay(rng, tomllib.loads(data.decode("utf-8")))
    if raised is not None:
        try:
            other = loads_game(tomli_w.dumps(raised[0]))
        except GameError:
            out["monotone"] = "refused on load"
        else:
            try:
                found = check_monotone(sheets[0].rtp.exact or sheets[0].rtp.value, other, raised[1],
                                       exact=fam.level == "sheet")
                out["monotone"] = "checked"
            except (GameError, ModelError):
                found, out["monotone"] = [], "refused"
            bad += found
            kinds += ["monotone"] * len(found)
    if fam.simulate:
        found, out["sim"] = check_simulation(sheets[-1], fam.simulate, seed * 1_000_003 + index)
        bad += found
        kinds += ["simulation"] * len(found)
    if bad:
        out["outcome"], out["class"], out["message"] = f"FAIL: {kinds[0]}", bad[0][:80], "; ".join(bad)[:500]
    else:
        out["outcome"] = "accepted"


def run_case(seed: int, name: str, index: int, folder: Path) -> dict[str, Any]:
    """Make, load and analyse case ``index`` of family ``name``; the outcome as a JSON-ready dict."""
    from mathkit.errors import GameError, LimitError, ModelError
    from mathkit.gamefile.io import dump_game, load_game, loads_game

    fam = family(name)
    base, data, mutations = make_case(seed, name, index)
    path = folder / f"case_{name}_{index}.toml"
    path.write_bytes(data)
    out: dict[str, Any] = {"family": name, "case": index, "base": base, "mutations": mutations}
    start = time.perf_counter()
    cpu0 = time.process_time()
    saved = {k: os.environ.get(k) for k in fam.limits}
    os.environ.update(fam.limits)
    try:
        try:
            game = load_game(path)
        except GameError as exc:
            out["outcome"] = "refused on load" if _located(exc, path) else "FAIL: unlocated error"
            head = exc.field.split(".")[0].split("[")[0] or "(no field)"
            out["class"] = "(the text, by line)" if head.startswith("line ") else head
            out["message"] = str(exc)[:300]
            if index % CLI_EVERY == 0:  # every command refuses the file cleanly too
                problem, out["cli"] = _cli(seed, name, index, path, heavy=base in HEAVY)
                if problem:
                    out["outcome"], out["class"], out["message"] = "FAIL: cli", "cli", problem
            return out
        if loads_game(dump_game(game)) != game:
            out["outcome"], out["class"] = "FAIL: invariant", "round trip"
            return out
        try:
            _accepted(fam, seed, index, data, game, out)
        except (GameError, ModelError) as exc:
            kind = "limit" if isinstance(exc, LimitError) else type(exc).__name__
            out["outcome"] = f"refused by the {kind}" if _located(exc, path) else "FAIL: unlocated error"
            out["class"] = kind
            out["message"] = str(exc)[:300]
            return out
        if index % CLI_EVERY == 0 and (base in CLI_BASES or base in HEAVY):
            problem, label = _cli(seed, name, index, path, heavy=base in HEAVY)
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
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out


def _worker(conn: Connection, seed: int, folder: str) -> None:
    os.environ.update(LIMITS)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    while True:
        case = conn.recv()
        if case is None:
            return
        conn.send(run_case(seed, *case, Path(folder)))


# --------------------------------------------------------------------------- the run
def _describe(seed: int, case: tuple[str, int]) -> dict[str, Any]:
    base, _, mutations = make_case(seed, *case)
    return {"family": case[0], "case": case[1], "base": base, "mutations": mutations}


def _cpu(proc: Any) -> float:
    """CPU seconds a worker has used (user + system, all its threads)."""
    import psutil

    try:
        t = psutil.Process(proc.pid).cpu_times()
    except psutil.Error:
        return 0.0
    return float(t.user + t.system)


def _rss(proc: Any) -> int:
    """Resident bytes of a worker (0 once it is gone)."""
    import psutil

    try:
        return int(psutil.Process(proc.pid).memory_info().rss)
    except psutil.Error:
        return 0


MEMORY_LIMIT = 4 << 30
"""Resident bytes a worker may hold on a case: past it the case fails as ``memory`` (the resource limits of
:mod:`mathkit.model.bounds` should have refused it first; a 10 GB worker was seen before the watch)."""


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


def _plan(counts: dict[str, int], start: int = 0) -> list[tuple[str, int]]:
    """Cases ``(family, index)``, the families interleaved (a long family does not wait for the others)."""
    lists = [[(name, start + i) for i in range(n)] for name, n in counts.items()]
    longest = max((len(x) for x in lists), default=0)
    return [x[i] for i in range(longest) for x in lists if i < len(x)]


def run_fuzz(counts: dict[str, int], *, seed: int = 0, workers: int = 2, start: int = 0,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run ``counts[family]`` cases of each family (indices from ``start``); the results by family, the failures.

    A case is a hang when its worker uses more CPU seconds on it than its family's ``timeout``
    (the machine is shared: CPU time is what a case costs), or stalls for twenty times that in
    wall time (at least 5 minutes).
    """
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    todo = _plan(counts, start)
    total = len(todo)
    with tempfile.TemporaryDirectory(prefix="mathkit-fuzz-") as folder:
        pool = _Pool(workers, seed, folder)
        busy: dict[int, tuple[tuple[str, int], float, float]] = {}  # worker -> (case, wall start, cpu at start)
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
                        results.append({"outcome": "FAIL: crash", "class": f"exit {code}", **_describe(seed, case)})
                        pool.replace(i)
                    if results[-1]["outcome"].startswith("FAIL"):  # said at once: a long run is read as it goes
                        r = results[-1]
                        print(f"  case {r['family']}:{r['case']} {r['outcome']}: {r.get('message', r.get('class', ''))}"
                              [:400], file=sys.stderr, flush=True)
                    if progress:
                        progress(len(results), total)
                now = time.perf_counter()
                for i, (case, wall, cpu) in list(busy.items()):
                    used = _cpu(pool.workers[i][0]) - cpu
                    limit = family(case[0]).timeout
                    rss = _rss(pool.workers[i][0])
                    if used > limit or now - wall > max(20 * limit, 300):
                        busy.pop(i)
                        results.append({"outcome": "FAIL: hang",
                                        "class": f"over {limit:g} s ({used:.0f} s CPU, {now - wall:.0f} s wall)",
                                        **_describe(seed, case)})
                        pool.replace(i)
                    elif rss > MEMORY_LIMIT:
                        busy.pop(i)
                        results.append({"outcome": "FAIL: memory",
                                        "class": f"{rss / 2**30:.1f} GiB resident (limit {MEMORY_LIMIT / 2**30:g})",
                                        **_describe(seed, case)})
                        pool.replace(i)
        finally:
            pool.close()
    return _summary(results, seed, time.perf_counter() - t0)


def _summary(results: list[dict[str, Any]], seed: int, seconds: float) -> dict[str, Any]:
    """The results by family: outcomes, refusals by class, checks run, failures, CPU time."""
    by: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(r["family"] for r in results):
        mine = [r for r in results if r["family"] == name]
        refused = Counter(f"{r['outcome']} — {r.get('class', '')}" for r in mine if r["outcome"].startswith("refused"))
        by[name] = {
            "count": len(mine), "outcomes": dict(Counter(r["outcome"] for r in mine)), "refused": dict(refused),
            "checked": dict(Counter("+".join(r["checked"]) for r in mine if "checked" in r)),
            "monotone": dict(Counter(r["monotone"] for r in mine if "monotone" in r)),
            "sim": dict(Counter(r["sim"] for r in mine if "sim" in r)),
            "cli": dict(Counter(r["cli"] for r in mine if "cli" in r)),
            "tracebacks": sum(r["outcome"] == "FAIL: traceback" for r in mine),
            "memory": sum(r["outcome"] == "FAIL: memory" for r in mine),
            "invalid_json": sum(r["outcome"] == "FAIL: invalid JSON" for r in mine),
            "cpu": sum(r.get("cpu", 0.0) for r in mine),
            "slowest": [(r["case"], round(r.get("cpu", 0.0), 2)) for r in sorted(mine, key=lambda r: -r.get("cpu", 0))[:3]],
        }
    fails = [r for r in results if r["outcome"].startswith("FAIL")]
    return {"count": len(results), "seed": seed, "seconds": seconds, "families": by, "failures": fails,
            "outcomes": dict(Counter(r["outcome"] for r in results)),
            "cpu": sum(r.get("cpu", 0.0) for r in results)}


def report(res: dict[str, Any]) -> str:
    """The run's summary as text, family by family."""
    lines = [f"{res['count']:,} mutated game files (seed {res['seed']}) in {res['seconds']:.0f} s "
             f"({res['count'] / max(res['seconds'], 1e-9):.1f} files/s), {res['cpu']:.0f} s CPU in the cases"]
    for name, f in res["families"].items():
        accepted = f["outcomes"].get("accepted", 0)
        refused = sum(v for k, v in f["outcomes"].items() if k.startswith("refused"))
        fails = sum(v for k, v in f["outcomes"].items() if k.startswith("FAIL"))
        lines.append(f"[{name}] {f['count']:,} mutants: {refused:,} refused (named), {accepted:,} accepted "
                     f"(invariants hold), {fails} failed; tracebacks {f['tracebacks']}, invalid JSON "
                     f"{f['invalid_json']}, over memory {f['memory']}; {f['cpu']:.0f} s CPU, slowest (case, CPU s) {f['slowest']}")
        for k, v in sorted(f["refused"].items(), key=lambda kv: -kv[1]):
            lines.append(f"    {v:>6,}  {k}")
        for what in ("checked", "monotone", "sim", "cli"):
            if f[what]:
                lines.append(f"    {what}: " + ", ".join(f"{k} {v:,}" for k, v in sorted(f[what].items())))
    failures = res["failures"]
    lines.append(f"failures: {len(failures)}")
    for r in failures[:30]:
        lines.append(f"  case {r['family']}:{r['case']} [{r.get('base')}] {r['outcome']} {r.get('class', '')}: "
                     f"{r.get('mutations')}")
        if r.get("message"):
            lines.append(f"      {r['message'][:300]}")
    return "\n".join(lines)


def _replay(seed: int, case: str) -> None:
    """Run one case (``FAMILY:N``) in this process, with the limits, and print everything."""
    os.environ.update(LIMITS)
    name, _, index = case.partition(":")
    base, _data, mutations = make_case(seed, name, int(index))
    print(f"case {case}: base {base}; mutations {mutations}")
    with tempfile.TemporaryDirectory() as folder:
        res = run_case(seed, name, int(index), Path(folder))
    print(json.dumps({k: v for k, v in res.items() if k != "traceback"}, indent=2, default=str))
    print(res.get("traceback", ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Fuzz mathkit with mutated game files, family by family.")
    p.add_argument("--family", action="append", choices=[f.name for f in FAMILIES],
                   help="run only this family (repeatable; default: every family)")
    p.add_argument("--count", type=int, help="cases per family (default: each family's own, tests/fuzz_families.py)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first case index")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--case", help="replay one case FAMILY:N in this process")
    p.add_argument("--json", type=Path, help="also write the full result as JSON")
    args = p.parse_args(argv)
    if args.case is not None:
        _replay(args.seed, args.case)
        return 0
    chosen = [f for f in FAMILIES if not args.family or f.name in args.family]
    counts = {f.name: f.cases if args.count is None else args.count for f in chosen}

    def tick(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done:,}/{total:,}", file=sys.stderr, flush=True)

    res = run_fuzz(counts, seed=args.seed, workers=args.workers, start=args.start, progress=tick)
    print(report(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str), encoding="utf-8")
    return 1 if res["failures"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
