"""The round's stage laws are counted against MATHKIT_MAX_MEMORY while the round is composed (fuzz warlords:50: a
mutant whose pays spread every law took 4 GB before a ModelError; now it is refused by the limit, by name)."""

from __future__ import annotations

import pytest

from mathkit.errors import LimitError
from mathkit.gamefile.io import load_game
from mathkit.round import compose

GAME = "data/games/dynasty_small.toml"


def test_the_laws_kept_are_counted_and_refused_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = compose.check_cost

    def spy(what: str, **kw: object) -> None:
        if what.startswith("the round's win distribution"):
            seen.append(int(kw["memory"]))  # type: ignore[call-overload]
        real(what, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(compose, "check_cost", spy)
    game = load_game(GAME)
    composer = compose._Composer(compose.Engine(game), "distribution")
    composer.outcome(compose.BASE)
    held = sum(d.values.nbytes + d.probs.nbytes for law in composer.laws.values() for d in
               (b.dist for b in law.branches.values()) if d is not None)
    held += sum(o.dist.values.nbytes + o.dist.probs.nbytes for o in composer.outcomes.values() if o.dist is not None)
    assert seen and seen == sorted(seen) and seen[-1] == held > 0  # every law kept is counted, once

    # a limit below what the laws need (the real check, with their bytes scaled past the limit in force)
    monkeypatch.setattr(compose, "check_cost", lambda what, **kw: real(what, **{**kw, "memory": int(kw["memory"])
                                                                             << 40}))  # type: ignore[call-overload]
    with pytest.raises(LimitError, match="the round's win distribution") as err:
        compose._Composer(compose.Engine(game), "distribution").outcome(compose.BASE)
    assert err.value.field.startswith(("features.", "reels.")) and "MATHKIT_MAX_MEMORY" in (err.value.fix or "")
