"""The lines driver's kept plans (mathkit/exact/cycle/plan.py): reused for the same inputs, never for changed ones."""

from __future__ import annotations

import numpy as np

from mathkit.exact.cycle import joint_counts, kernels, plan
from mathkit.gamefile.io import load_game
from mathkit.laws.stage import SpinModel
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables


def cells(jc: object) -> list[tuple[int, int, int]]:
    return sorted(zip(jc.wins.tolist(), jc.codes.tolist(), jc.counts.tolist(), strict=True))  # type: ignore[attr-defined]


def test_an_array_edited_in_place_makes_a_new_plan() -> None:
    game = load_game("data/games/classic_3reel.toml")
    t, st = pay_tables(game), stop_tables(game, SpinModel("base"))
    plan.clear()
    first = plan.line_plan(t, st)
    assert plan.line_plan(t, st) is first
    before = cells(joint_counts(t, st))
    st.weights[1][0] += 3  # the same objects, other contents: the digest differs
    st.cols[2][0, 0] = st.cols[2][1, 0]
    assert plan.line_plan(t, st) is not first
    kept = cells(joint_counts(t, st))
    plan.clear()
    fresh = cells(joint_counts(t, st))
    assert kept == fresh != before
    assert sum(c for _w, _c, c in fresh) == st.cycle


def test_each_build_of_the_kernels_plans_for_itself() -> None:
    game = load_game("data/games/classic_3reel.toml")
    t, st = pay_tables(game), stop_tables(game, SpinModel("base"))
    auto = plan.line_plan(t, st)
    with kernels.use("jit"):
        jit = plan.line_plan(t, st)
    assert jit is not auto
    assert all(np.array_equal(a, b) for a, b in zip(auto.ft, jit.ft, strict=True))


def test_only_the_last_few_are_kept() -> None:
    game = load_game("data/games/classic_3reel.toml")
    t, st = pay_tables(game), stop_tables(game, SpinModel("base"))
    plan.clear()
    first = plan.line_plan(t, st)
    for _ in range(plan.KEEP):
        st.weights[0][0] += 1
        plan.line_plan(t, st)
    st.weights[0][0] -= plan.KEEP
    assert plan.line_plan(t, st) is not first  # pushed out by KEEP newer ones
