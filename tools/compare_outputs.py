"""Compare what a user sees before and after a change: ``mathkit par GAME --json`` and
``mathkit simulate GAME --spins 200000 --seed 1 --json`` for every shipped game.

Usage::

    python tools/compare_outputs.py record DIR      # run every command, write DIR/<game>.<cmd>.json
    python tools/compare_outputs.py compare A B     # identical output, timing fields aside; exit 1 if not

Timing fields (seconds, spins per second, the time to get the kernels ready) are dropped before
comparing; everything else must be equal to the character.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMING = {"seconds", "spins_per_second", "kernels_ready_seconds", "ready_seconds", "elapsed", "cpu_seconds"}
COMMANDS = {
    "par": ["par", "{game}", "--json"],
    "simulate": ["simulate", "{game}", "--spins", "200000", "--seed", "1", "--json"],
}


def games() -> list[Path]:
    return sorted((ROOT / "data" / "games").rglob("*.toml"))


def strip(x: object) -> object:
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def record(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    mathkit = [sys.executable, "-m", "mathkit"]
    for game in games():
        name = game.relative_to(ROOT / "data" / "games").with_suffix("").as_posix().replace("/", "__")
        for cmd, args in COMMANDS.items():
            argv = [a.format(game=game.relative_to(ROOT)) for a in args]
            proc = subprocess.run(mathkit + argv, cwd=ROOT, capture_output=True, text=True, check=False)
            (out / f"{name}.{cmd}.json").write_text(json.dumps({"status": proc.returncode, "stdout": proc.stdout,
                                                                "stderr": proc.stderr}, indent=1))
            print(f"{name:40s} {cmd:9s} exit {proc.returncode}", flush=True)
    return 0


def normal(path: Path) -> object:
    rec = json.loads(path.read_text())
    try:
        body: object = strip(json.loads(rec["stdout"]))
    except json.JSONDecodeError:
        body = rec["stdout"]
    return {"status": rec["status"], "stdout": body, "stderr": rec["stderr"]}


def compare(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.glob("*.json")} | {p.name for p in b.glob("*.json")})
    bad = 0
    for name in names:
        pa, pb = a / name, b / name
        if not (pa.exists() and pb.exists()):
            print(f"{name}: only in {'A' if pa.exists() else 'B'}")
            bad += 1
            continue
        same = normal(pa) == normal(pb)
        bad += not same
        print(f"{name:55s} {'identical' if same else 'DIFFERS'}")
    print(f"{len(names) - bad} of {len(names)} identical")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "record":
        return record(Path(argv[1]))
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
