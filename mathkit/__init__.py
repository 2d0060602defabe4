"""mathkit: exact slot-game mathematics.

The public face is a handful of functions, each one meaning:

- :func:`load_game` (and :func:`loads_game`, :func:`save_game`): a game file ↔ a :class:`Game`;
- :func:`rtp`: the RTP of the **whole play** (base spin and every feature, the cap applied, the gamble left out);
- :func:`base_rtp`: the RTP of the **base spin** alone (lines and scatters), always exact;
- :func:`par`: the PAR sheet, as ``mathkit par`` prints it;
- :func:`simulate`: the independent Monte Carlo player;
- :func:`tune`: a game tuned to target figures with the fewest edits;
- :func:`check`: the certification checks of a jurisdiction profile.

The packages below are layered, each importing only the ones under it
(``pyproject.toml`` states the contract; ``make lint`` enforces it):
``model`` → ``laws``/``play`` → ``spin`` → ``exact`` → ``chains`` → ``features`` →
``round``/``gamefile`` → ``report``/``sim`` → ``export``/``tuner``/``checks``/``sessions`` →
``plots`` → ``workbench``/``dev`` → ``cli``.

Importing the package is cheap: the numeric modules load on first use, and the
compiled kernels come from an ahead-of-time extension or numba's disk cache,
both built at install (:mod:`mathkit.dev.warmup`).  In a source checkout numba's
cache lives in ``<checkout>/.numba_cache`` unless ``NUMBA_CACHE_DIR`` says
otherwise, so ``make``, the command line and notebooks share one cache.
OpenMP threads spin only briefly, then sleep, between parallel kernels
(``OMP_WAIT_POLICY=PASSIVE`` with ``GOMP_SPINCOUNT=100000``, unless either is
set): a thread that spins on takes a core from everyone else on a shared
machine, but one that sleeps at once must be woken for every parallel region,
and on a virtual machine waking an idle vCPU costs about a millisecond.  The
short spin (2–5 ms of CPU after a threaded enumeration here) keeps the
regions of one enumeration on awake threads: in ``python -m benchmarks speed``
the threaded kernel went from 1.14× to 1.69–1.79× its serial speed on 2 idle cores, and
the row "idle worker's spin" shows what the spin costs.  For the spinning
reason numpy's BLAS runs on one
thread (``OPENBLAS_NUM_THREADS=1`` unless set, effective when mathkit is imported
before numpy): its threads spin between calls, so on a busy machine a
40,000-element ``np.dot`` cost 2.6 ms of CPU against 9 µs on one thread, and
mathkit's own parallel kernels thread through numba.

Module paths from before the layered packages (``mathkit.game``, ``mathkit.io``,
``mathkit.cycle.lines`` …) still import, with a :class:`DeprecationWarning` naming the
new path, until mathkit 0.3; the README's changelog lists the names that moved.

Examples
--------
>>> import mathkit
>>> dynasty = mathkit.load_game("data/games/dynasty.toml")
>>> f"{mathkit.rtp(dynasty).value:.4f}", mathkit.rtp(dynasty).method
('0.9500', 'exact')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import GameError, LimitError, MathkitError, ModelError

# set before numba is first imported
_CHECKOUT = Path(__file__).resolve().parents[1]
if "NUMBA_CACHE_DIR" not in os.environ and (_CHECKOUT / "pyproject.toml").is_file() and os.access(_CHECKOUT, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = str(_CHECKOUT / ".numba_cache")
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ.setdefault("GOMP_SPINCOUNT", "100000")  # read by libgomp when numba first starts its threads
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from fractions import Fraction

    from .checks.profiles import Check, Profile
    from .laws.provenance import Figure
    from .model.game import Game
    from .report.par import RoundSheet
    from .sim.results import SimResult
    from .tuner.result import TuneResult

__all__ = ["Game", "GameError", "LimitError", "MathkitError", "ModelError", "base_rtp", "check", "load_game",
           "loads_game", "par", "rtp", "save_game", "simulate", "tune"]
__version__ = "0.1.0"


# --------------------------------------------------------------------------- the public face
def load_game(path: str | Path) -> Game:
    """The game in the TOML file ``path``, validated (a located :class:`GameError` otherwise).

    Examples
    --------
    >>> load_game("data/games/dynasty.toml").name
    'Dynasty'
    """
    from .gamefile.io import load_game as load

    return load(path)


def loads_game(text: str, path: str | Path | None = None) -> Game:
    """The game in TOML ``text`` (``path`` only names it in errors).

    Examples
    --------
    >>> loads_game(Path("data/games/dynasty.toml").read_text()).name
    'Dynasty'
    """
    from .gamefile.io import loads_game as loads

    return loads(text, path)


def save_game(game: Game, path: str | Path, *, overwrite: bool = False, template: str | Path | None = None) -> Path:
    """Write ``game`` to ``path`` atomically, in the style of ``template`` (comments and layout kept).

    Examples
    --------
    >>> import tempfile
    >>> dynasty = load_game("data/games/dynasty.toml")
    >>> with tempfile.TemporaryDirectory() as d:
    ...     load_game(save_game(dynasty, Path(d) / "copy.toml")) == dynasty
    True
    """
    from .gamefile.io import save_game as save

    return save(game, path, overwrite=overwrite, template=template)


def rtp(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None) -> Figure:
    """The RTP of a whole play from reel set ``reels``: base spin and every feature, the cap applied.

    The gamble is left out, as on the PAR sheet.  The figure says how it was obtained
    (``exact`` with its Fraction, ``markov`` where a chain's value is irrational).

    Examples
    --------
    >>> dynasty = load_game("data/games/dynasty.toml")
    >>> figure = rtp(dynasty)
    >>> figure.method, type(figure.exact).__name__
    ('exact', 'Fraction')
    >>> figure.exact > base_rtp(dynasty)   # the free spins are in the whole play only
    True
    """
    from .report.par import play_rtp

    return play_rtp(game, reels, lines=lines, coins=coins)


def base_rtp(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None) -> Fraction:
    """The exact RTP of one base spin from reel set ``reels``: line and scatter wins, no feature.

    Examples
    --------
    >>> dynasty = load_game("data/games/dynasty.toml")
    >>> 0 < base_rtp(dynasty) < rtp(dynasty).exact < 1
    True
    """
    from .exact.base import rtp as spin_rtp

    return spin_rtp(game, reels, lines=lines, coins=coins)


def par(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
        sample_rounds: int | None = None, seed: int | None = None, sessions: bool = False) -> RoundSheet:
    """The PAR sheet of ``game``, as ``mathkit par`` gives it (the same sampling defaults where a part is sampled).

    Examples
    --------
    >>> sheet = par(load_game("data/games/dynasty.toml"))
    >>> sheet.rtp == rtp(sheet.game), sheet.sd.value > 5
    (True, True)
    """
    from .report.par import build_sheet
    from .sim.sampling import route_sampler

    sampler = route_sampler(game, sample_rounds, seed, reels=reels, lines=lines, coins=coins)
    return build_sheet(game, reels, lines=lines, coins=coins, parallel=True, sessions=sessions, sampler=sampler)


def simulate(game: Game, spins: int, *, seed: int | None = None, reels: str | None = None,
             lines: int | None = None, coins: int | None = None, workers: int | None = None) -> SimResult:
    """Play ``spins`` whole plays of ``game`` literally (:func:`mathkit.sim.run.simulate` has every option).

    Examples
    --------
    >>> dynasty = load_game("data/games/dynasty.toml")
    >>> result = simulate(dynasty, 200_000, seed=1)
    >>> result.spins, abs(result.rtp.value - float(rtp(dynasty).value)) < 3 * result.rtp.se
    (200000, True)
    """
    from .sim.run import simulate as play

    return play(game, spins, seed=seed, reels=reels, lines=lines, coins=coins, workers=workers)


def tune(game: Game, target_rtp: Fraction | float | str, **options: Any) -> TuneResult:
    """``game`` tuned to ``target_rtp`` with the fewest edits (:func:`mathkit.tuner.tune` takes every target).

    Examples
    --------
    >>> result = tune(load_game("data/games/dynasty.toml"), "0.94")
    >>> result.reached, rtp(result.best.game).exact == result.best.figures.rtp
    (True, True)
    """
    from .tuner import tune as solve

    return solve(game, target_rtp, **options)


def check(game: Game, profile: str | Profile = "gli11", *, reels: str | None = None,
          only: Sequence[str] | None = None) -> list[Check]:
    """Every certification check of ``profile`` (``gli11``, ``anz``, ``ukgc``) on ``game``.

    Examples
    --------
    >>> failed = [c.name for c in check(load_game("data/games/dynasty.toml")) if not c.passed]
    >>> failed
    []
    """
    from .checks.run import run_checks

    return run_checks(game, profile, reels=reels, only=only)


def __getattr__(name: str) -> Any:
    if name == "Game":
        from .model.game import Game

        return Game
    if name == "exact_rtp":
        warnings.warn("mathkit.exact_rtp is now mathkit.base_rtp (the base spin's RTP; mathkit.rtp is the whole "
                      "play's)", DeprecationWarning, stacklevel=2)
        return base_rtp
    if name == "build_par":
        warnings.warn("mathkit.build_par is now mathkit.report.par.build_par (mathkit.par gives the sheet as "
                      "`mathkit par` does)", DeprecationWarning, stacklevel=2)
        from .report.par import build_par

        return build_par
    msg = f"module 'mathkit' has no attribute {name!r}"
    raise AttributeError(msg)


# --------------------------------------------------------------------------- old module paths, for one release
MOVED = {
    "bounds": "model.bounds", "cliargs": "cli.args", "convolve": "laws.convolve", "cycle": "exact.cycle",
    "dask_runner": "sim.cluster", "distribution": "laws.distribution", "evaluate": "spin.evaluate",
    "fields": "model.fields", "figures": "laws.provenance", "freespins": "chains.freespins",
    "gamble": "chains.ladder", "game": "model.game", "io": "gamefile.io", "labsetup": "dev.labsetup",
    "markov": "chains.markov", "markov.tails": "laws.tails", "mixture": "laws.mixture", "ordered": "model.ordered",
    "pairs": "exact.pairs", "parfigures": "report.simfigures", "parse": "gamefile.parse", "render": "dev.render",
    "sampling": "sim.sampling", "sensitivity": "report.sensitivity", "stage": "laws.stage", "stops": "spin.stops",
    "tables": "spin.tables", "tomledit": "gamefile.tomledit", "tomltext": "gamefile.tomltext",
    "tuning": "model.tuning", "validate": "model.validate", "volatility": "laws.volatility",
    "warmup": "dev.warmup", "widgets": "workbench", "sim.cli": "cli.simulate", "sim.sessions": "sim.players",
    "sessions.cli": "cli.session", "checks.cli": "cli.check", "export.cli": "cli.export",
}
"""Old module path → new one (under ``mathkit.``); a package's submodules follow it.  Paths whose old name is now a
public function or a package (``mathkit.rtp``, ``mathkit.par``, ``mathkit.simulate``, ``mathkit.tune``,
``mathkit.report``, ``mathkit.play``) are listed in the README's changelog instead."""


def moved_to(name: str) -> str | None:
    """The new path of the old module path ``name`` (``None`` if it did not move).

    Examples
    --------
    >>> moved_to("mathkit.cycle.lines"), moved_to("mathkit.io"), moved_to("mathkit.gamefile.io")
    ('mathkit.exact.cycle.lines', 'mathkit.gamefile.io', None)
    """
    if not name.startswith("mathkit."):
        return None
    parts = name.split(".")[1:]
    for i in range(len(parts), 0, -1):
        new = MOVED.get(".".join(parts[:i]))
        if new is not None:
            return ".".join(["mathkit", new, *parts[i:]])
    return None


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path as the module now at its new path (the same object), with a warning."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if moved_to(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = moved_to(spec.name) or spec.name  # find_spec made this spec for a moved name only
        warnings.warn(f"{spec.name} is now {new}: import it from there (the old path goes in mathkit 0.3)",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        # the import system sets the module's __spec__ to this alias spec after create_module: keep the real one
        # beside it so exec_module can put it back (relative imports and pickling read __spec__)
        module.__dict__["_mathkit_real_spec"] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module was imported under its new name); its own ``__spec__`` put back."""
        module.__spec__ = module.__dict__.pop("_mathkit_real_spec", module.__spec__)


if not any(isinstance(f, _Moved) for f in sys.meta_path):
    sys.meta_path.insert(0, _Moved())
