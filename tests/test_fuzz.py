"""A sample of the fuzz suite inside ``make test``: mutants of every family, no traceback, no hang, invariants hold.

``make fuzz`` runs each family's ``cases`` (``tests/fuzz_families.py``: 10,000 classic
games, 300 of every other family); here each family's ``sample``, on one fixed seed so a
failure replays with ``python tests/fuzz.py --seed 13 --case FAMILY:N``.
"""

from __future__ import annotations

import pytest
from fuzz import report, run_fuzz
from fuzz_families import FAMILIES


@pytest.mark.fuzz
def test_mutated_game_files_fail_cleanly_or_give_a_sound_par_sheet() -> None:
    counts = {f.name: f.sample for f in FAMILIES}
    res = run_fuzz(counts, seed=13, workers=2)
    assert res["count"] == sum(counts.values())
    assert not res["failures"], report(res)
    # the suite exercises both routes: files refused with a located error, and files accepted and checked
    classic = res["families"]["classic"]["outcomes"]
    assert classic.get("accepted", 0) >= counts["classic"] // 10, report(res)
    assert classic.get("refused on load", 0) >= counts["classic"] // 3, report(res)
    assert sum(f["outcomes"].get("accepted", 0) for f in res["families"].values()) > classic.get("accepted", 0)
