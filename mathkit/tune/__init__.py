"""Solving strips or pays for a target RTP, exactly: ``mathkit tune``.

The search is an integer local search on the design itself — which symbol sits
on which stop, stop weights, integer pays — with the exact RTP of every
candidate from the fast path (:func:`mathkit.sensitivity.exact_rtp`, free
spins included).  No float ever decides whether the target is met: the result
is within ``tolerance`` (default ±0.005 pp) of the target in exact arithmetic,
or the nearest design found is returned with ``reached=False``.

How it searches
---------------
1. A linear model of the RTP in the design: for each reel ``r`` and symbol
   ``u`` the exact RTP given one more ``u`` on ``r`` (add-one-stop, see
   :mod:`mathkit.sensitivity`); for each pay, the exact change of one credit.
   On unweighted strips the line RTP is linear in one reel's symbol counts, so
   the model predicts any one-stop replacement exactly (scatters too, while they
   stay ``rows`` apart); free spins make it approximate.
2. Steepest descent: the single moves whose predicted RTP is closest to the
   target are made on a copy and evaluated exactly; the best one that gets
   closer is kept.  The model is rebuilt after every move when an exact
   evaluation is cheap (under 5 ms), every third move otherwise, and always
   before giving up on single moves.
3. When no single move gets closer, pairs of moves (sums of predictions, all
   pairs ranked with numpy) are tried the same way; no improving pair ends the
   search at a local optimum (reported as not reached).
4. Hit-frequency and σ targets are secondary: first a descent on
   ``((RTP − T)/0.25 pp)² + ((hf − H)/tol_hf)² + ((σ − S)/tol_σ)²`` with the same
   kind of model built from exact cycle enumerations, until hf and σ are within
   half their tolerances, then the RTP descent that only accepts moves keeping
   them within tolerance (or, if they never got there, no further away).  Both
   refer to one base spin (exact enumeration; free spins add to the RTP but not
   to these two).  ``scipy.optimize`` is not used: the design space is integer
   and the exact evaluations are cheap enough for a direct local search.

Moves and constraints
---------------------
* **strips** (unweighted reels): replace the symbol on one stop (length kept);
  with ``keep_length=False`` also insert or delete a stop.  **weighted** reels:
  move one unit of weight between two stops (total kept), or ±1 weight.
* A move never: touches a ``fixed`` symbol (its stops and count stay as they
  are); puts a symbol on a reel where it was not (so wilds stay on their
  reels); removes the last stop of a paying symbol (in a pay entry, a paying
  scatter, the free-spin trigger) from a reel, so every award stays reachable;
  brings two scatters closer than ``min_scatter_spacing`` stops (default: the
  window height, or the original's closest pair if closer);
  makes a run of one symbol longer than ``max_stack`` (default: that symbol's
  longest run in the original reel set, and at least 2).
* **pays**: one credit per coin more or less on one pay (a per-coin list moves
  by ``coins[i]`` at option ``i``), or all pays scaled by the same factor and
  rounded (only as a first, coarse step).  Positive pays stay ≥ 1, zero pays
  stay zero, pays never fall as the count grows, and a pay larger than another
  at the same count stays at least as large.

The result's declared RTP is the target when it is reached, otherwise the
achieved RTP rounded to 0.0001 pp.

``mathkit tune`` exits with 0 when every target is reached, 1 when a target is
not reachable under the constraints (the nearest design is still written and
the miss is printed), 2 on a bad game file or bad arguments.  Variants
(``--variants 0.92,0.94``) change strips only and write ``STEM_rtp92.toml``,
``STEM_rtp94.toml`` … beside ``--out`` (a target of 0.945 gives ``rtp94_5``),
plus the comparison table ``STEM_variants.csv``.
"""

# ``name as name``: names outside __all__, still importable from mathkit.tune (``_runs`` is used by the tests).
from .cli import cli
from .constraints import Constraints
from .constraints import _runs as _runs
from .moves import Kind as Kind
from .moves import Move
from .search import SHAPE_RTP as SHAPE_RTP
from .search import Cost as Cost
from .search import FloatArray as FloatArray
from .search import Vary as Vary
from .solve import TOLERANCE, TuneResult, tune, write_result
from .variants import tune_variants, variant_path, variants_table

__all__ = ["TOLERANCE", "Constraints", "Move", "TuneResult", "cli", "tune", "tune_variants", "variant_path",
           "variants_table", "write_result"]
