"""Certification checks (GLI-11, ANZ, UKGC profiles): ``mathkit check``.

:func:`run_checks` runs every check of ``shared/DOMAIN.md`` that the data can
decide and returns one :class:`Check` per rule — ``name``, ``passed``,
``detail`` (what was measured, against what).  A check that cannot even be
computed (an invalid game, a feature that never ends) fails with the reason; it
never raises.

The numbers
-----------
* **Declared RTP**: equal to the computed RTP (the whole play with the cap
  applied, gamble excluded) within ±0.005 pp — the tuner's tolerance, finer than
  the 4 decimals of a percent a PAR sheet prints.
* **RTP bounds**, at every bet option (each line option × each coin option):
  ``gli11`` at least 75% (GLI-11's usual minimum; jurisdictions override it),
  ``anz`` at least 85% (the lowest Australian state minimum, NSW/QLD), ``ukgc``
  no minimum (the UKGC RTS sets none; it requires the displayed RTP to be
  accurate, which the declared-RTP check covers).  All profiles also flag an RTP
  above 100%: not a regulatory limit, a game returning more than it takes is
  almost always a mistake.
* **Award odds**: every advertised award — each paid combination, each scatter
  pay, entry into the free-spin feature — must occur at least once in
  ``odds_limit`` games, at the least likely wager (one line): 1 in 100,000,000
  for ``gli11`` (GLI-11 v3.0 §4.8.2, as quoted in DOMAIN.md); DOMAIN.md says
  "some jurisdictions use 1 in 50M or 1 in 7M" without naming them, so ``anz``
  uses 1 in 50,000,000 and ``ukgc`` 1 in 7,000,000 — our assignment, to confirm
  with the test lab.  A line award's odds are per line (exactly one line's
  odds on unweighted strips, the average line's on weighted ones); an award only
  reachable in free spins counts ``P(trigger) × P(award on one free spin)``, a
  lower bound.
* **Gamble**: every option exactly 100% (``p × multiplier = 1``), at most 5 in a
  row (all profiles) and an amount limit per attempt.
* **64-bit**: the largest win of one play at the largest bet, in minor currency
  units (``coin_value × 100``), below 2⁶³; every cycle × lines below 2⁶³.  The
  largest win is bounded without enumeration (the top line pay × every wild
  multiplier × lines + the top scatter pay), and for free spins without a spin
  limit by the spins a feature reaches with probability at least 2⁻⁶⁴.
* **Near miss** (:mod:`.nearmiss`): for every reel, window height and symbol that
  matters (top award, scatter, bonus, jackpot, feature), the weight of the stops
  showing it just outside the window over the weight showing it inside, divided by
  the same ratio on the unweighted strip (1 exactly when unweighted), at most
  ``near_miss_limit`` = 1.25 in every profile.  Regulators (Nevada Regulation 14's
  ban on near-miss virtual-reel mapping, and the labs that follow it) state the
  rule, not a number: 1.25 is our tolerance for incidental weighting, to confirm
  with the test lab.
"""

# ``name as name``: public names that were never in __all__, still importable from mathkit.checks.
from .awards import check_award_odds as check_award_odds
from .awards import check_awards_reachable as check_awards_reachable
from .awards import check_declared_rtp as check_declared_rtp
from .awards import check_game_valid as check_game_valid
from .awards import check_rtp_bounds as check_rtp_bounds
from .limits import check_cycle_64bit as check_cycle_64bit
from .limits import check_features_terminate as check_features_terminate
from .limits import check_hit_frequency as check_hit_frequency
from .limits import check_win_overflow as check_win_overflow
from .limits import feature_checks as feature_checks
from .nearmiss import check_near_miss as check_near_miss
from .profiles import INT64 as INT64
from .profiles import MINOR_UNITS as MINOR_UNITS
from .profiles import PROFILES, Check, Profile
from .profiles import TOLERANCE as TOLERANCE
from .run import CHECK_NAMES, run_checks
from .run import CHECKS as CHECKS

__all__ = ["CHECK_NAMES", "PROFILES", "Check", "Profile", "run_checks"]
