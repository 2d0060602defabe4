"""Run every benchmark module in this folder (``bench_*.py``) in turn, with the machine's load while each ran."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path

from benchmarks.timing import LoadMonitor


def main(argv: list[str]) -> int:
    wanted = set(argv)
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_"))
    with LoadMonitor() as whole:
        for name in names:
            if wanted and name not in wanted and name.removeprefix("bench_") not in wanted:
                continue
            print(f"\n#### {name}", flush=True)
            t0, c0 = time.perf_counter(), time.process_time()
            with LoadMonitor() as load:
                importlib.import_module(f"benchmarks.{name}").main()
            print(f"  {load.summary()}")
            print(f"#### {name} done in {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU",
                  flush=True)
    print(f"\n{whole.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
