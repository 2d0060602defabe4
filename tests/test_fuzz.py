"""A small run of the fuzz suite inside ``make test``: mutated game files, no traceback, no hang, invariants hold.

``make fuzz`` runs 10,000 cases (``tests/fuzz.py``); here a few hundred, on one
fixed seed range so a failure replays with ``python tests/fuzz.py --case N``.
"""

from __future__ import annotations

import pytest
from fuzz import report, run_fuzz

COUNT = 160


@pytest.mark.fuzz
def test_mutated_game_files_fail_cleanly_or_give_a_sound_par_sheet() -> None:
    res = run_fuzz(COUNT, seed=13, workers=2, timeout=30.0)
    assert res["count"] == COUNT
    assert not res["failures"], report(res)
    # the suite exercises both routes: files refused with a located error, and files accepted and checked
    assert res["outcomes"].get("accepted", 0) >= COUNT // 10, report(res)
    assert res["outcomes"].get("refused on load", 0) >= COUNT // 3, report(res)
