"""Tuning a game to target figures, exactly, with the fewest edits: ``mathkit tune`` and :func:`tune`.

The public entry point is :func:`tune`: a game, its targets (:class:`Target`
bands on the RTP, σ of a whole play, volatility index, hit frequency, feature
frequency, the top award's odds, RTP by component) and its constraints
(:class:`Constraints`: fixed symbols, stack shapes, count bounds, runs,
spacing, hierarchy, lengths, the feature frequency kept), returning a
:class:`TuneResult` whose :class:`Candidate` solutions carry the tuned game,
its exact figures (:class:`Figures`) and its edits grouped by reel
(:class:`Edits`).  The game file declares its targets in ``[targets]``
(:class:`mathkit.model.game.Targets`) and its constraints in ``[tuning]``
(:mod:`mathkit.model.tuning`), so the workbench and the command line share them.

How it works
------------
The line RTP of unweighted circular strips is multilinear in the per-reel
symbol counts, so the design is the counts (or the stop weights of weighted
reels, or the pays): exact finite differences of every figure per unit of every
count (:mod:`~mathkit.tuner.space`), an integer program for the fewest edits that
puts every modelled figure in its band (:mod:`~mathkit.tuner.milp`, HiGHS), the
counts laid out on the strips with the fewest stop edits under the stack, run
and spacing rules (:mod:`~mathkit.tuner.place`), then exact verification and
refinement (:mod:`~mathkit.tuner.solve`).  σ and hit frequency follow a surrogate
refitted to every exact evaluation (:mod:`~mathkit.tuner.model`).  RTP variants
are chained so neighbouring variants differ least (:mod:`~mathkit.tuner.variants`).

Examples
--------
>>> from fractions import Fraction
>>> from mathkit.gamefile.io import load_game
>>> game = load_game("data/games/dynasty.toml")
>>> res = tune(game, [Target.of("rtp", Fraction("0.94"))])
>>> res.reached, res.best.edits.count <= 3, all(r.reels == "base" for r in res.best.edits.reels)
(True, True, True)
"""

from .changes import Edits, PayEdit, ReelEdits
from .constraints import Constraints
from .measure import Figures, measure
from .result import Candidate, TuneResult
from .solve import tune
from .targets import TOLERANCE, Target, TargetSet
from .variants import tune_variants, variant_path, variants_table

__all__ = ["TOLERANCE", "Candidate", "Constraints", "Edits", "Figures", "PayEdit", "ReelEdits", "Target", "TargetSet",
           "TuneResult", "measure", "tune", "tune_variants", "variant_path", "variants_table",]
