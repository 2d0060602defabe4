"""How every benchmark times: CPU and wall time, minimum and median, targets judged on CPU time; the machine's load.

The machine is shared (2 cores, several engineers): wall time includes the time
other processes held the core, CPU time does not, so targets are judged on CPU
time (``process_time``: this process's user + system time, every thread) and the
wall time is printed beside it.  A whole process (``mathkit par`` run as a user
runs it) is timed by its children's resource usage.  :class:`LoadMonitor`
samples the load average while the benchmarks run, so a reader can tell a busy
run from an idle one.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LoadMonitor", "Timing", "measure", "measure_process", "row"]

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Timing:
    """CPU and wall seconds of repeated runs."""

    cpu: tuple[float, ...]
    wall: tuple[float, ...]

    @property
    def cpu_min(self) -> float:
        return min(self.cpu)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_min(self) -> float:
        return min(self.wall)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def first_cpu(self) -> float:
        return self.cpu[0]


def measure(fn: Callable[[], object], repeat: int = 5, *, warm: bool = True) -> Timing:
    """Time ``repeat`` calls of ``fn`` (after one untimed call when ``warm``)."""
    if warm:
        fn()
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return Timing(tuple(cpu), tuple(wall))


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure_process(cmd: Sequence[str], repeat: int = 5, *, env: dict[str, str] | None = None) -> Timing:
    """Time ``repeat`` runs of the whole process ``cmd`` (started from the checkout, output discarded)."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = _child_cpu(), time.perf_counter()
        subprocess.run(list(cmd), cwd=ROOT, env=os.environ | (env or {}), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wall.append(time.perf_counter() - w)
        cpu.append(_child_cpu() - c)
    return Timing(tuple(cpu), tuple(wall))


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:9.2f} ms" if seconds < 10 else f"{seconds:9.2f} s "


def row(label: str, t: Timing, target: float | None = None, extra: str = "") -> bool:
    """Print CPU and wall (min / median) and the verdict on the CPU minimum; returns whether the target is met."""
    ok = target is None or t.cpu_min <= target
    status = "" if target is None else ("  ok" if ok else f"  MISSED (target {_fmt(target).strip()} CPU)")
    print(f"  {label:<50} cpu {_fmt(t.cpu_min)} / {_fmt(t.cpu_median)}   wall {_fmt(t.wall_min)} / "
          f"{_fmt(t.wall_median)}{status}{extra}", flush=True)
    return ok


def header() -> None:
    print(f"  {'':<50} cpu {'min':>12} / {'median':>12}   wall {'min':>12} / {'median':>12}", flush=True)


class LoadMonitor:
    """Samples the 1-minute load average every ``every`` seconds in a background thread."""

    def __init__(self, every: float = 2.0) -> None:
        self.every = every
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(os.getloadavg()[0])
            self._stop.wait(self.every)

    def __enter__(self) -> LoadMonitor:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        cores = os.cpu_count() or 1
        s = self.samples or [os.getloadavg()[0]]
        busy = "idle" if max(s) < 0.5 * cores else "BUSY: wall times and speed-ups include other processes' work"
        return (f"machine load while it ran (1-min load average over {len(s)} samples, {cores} cores): "
                f"min {min(s):.2f}, median {statistics.median(s):.2f}, max {max(s):.2f} — {busy}")
