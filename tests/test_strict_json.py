"""``--json`` is strict JSON everywhere: no ``NaN`` or ``Infinity`` (which strict parsers refuse), ``null`` and a reason.

Every shipped game's ``par --json`` (as computed with nothing sampled), ``check --json`` and
``simulate --json`` are parsed with ``NaN``/``Infinity`` refused; the fuzz suite does the same
on every accepted mutant (``tests/fuzz_checks.py``).  A free-spin award that can never be
reached (``awards = { 99 = 10 }``) gave its "trigger frequency (1 in N)" as a bare
``Infinity``: it is ``null`` with the reason, and the text sheet says ``never``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_checks import strict_loads

from mathkit.cli import main
from mathkit.report.strict import dumps, strict
from mathkit.report.text import NEVER

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "data" / "games").glob("**/*.toml"))
SMALL_FREE = Path(__file__).resolve().parent / "fuzz_games" / "small_free.toml"


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> object:
    assert main(argv) in (0, 1)  # 1: a check failed, a figure disagreed: the JSON is printed all the same
    return strict_loads(capsys.readouterr().out)


@pytest.mark.parametrize("game", GAMES, ids=lambda p: p.stem)
def test_every_shipped_games_json_is_strict(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = _json(["par", str(game), "--json", "--sample-rounds", "0"], capsys)
    assert isinstance(sheet, dict) and sheet["rtp"] > 0
    assert isinstance(_json(["check", str(game), "--json"], capsys), list)
    sim = _json(["simulate", str(game), "--json", "--spins", "2000", "--seed", "1", "--no-exact", "--no-progress"],
                capsys)
    assert isinstance(sim, dict) and sim["spins"] == 2000


def test_odds_of_an_award_never_reached_are_null_with_the_reason(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    text = SMALL_FREE.read_text(encoding="utf-8")
    assert "awards = { 3 = 5 }" in text
    game = tmp_path / "never.toml"
    game.write_text(text.replace("awards = { 3 = 5 }", "awards = { 99 = 10 }"), encoding="utf-8")
    sheet = _json(["par", str(game), "--json"], capsys)
    assert isinstance(sheet, dict)
    free = next(s for s in sheet["features"] if s["name"] == "Free spins")
    assert free["figures"]["trigger frequency (1 in N)"] == {"value": None, "reason": NEVER, "method": "exact"}
    assert main(["par", str(game)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "trigger frequency (1 in N)" in x)
    assert line.split()[-2:] == ["never", "[exact]"]
    out = tmp_path / "never.json"
    assert main(["par", str(game), "--out", str(out)]) == 0  # the file --out writes is strict too
    strict_loads(out.read_text(encoding="utf-8"))


def test_the_net_under_every_json_output() -> None:
    nan, inf = float("nan"), float("inf")
    data = {"sd": nan, "rows": [1.0, -inf], "inner": {"odds": inf, "odds_reason": "never"}}
    assert strict(data) == {"sd": None, "sd_reason": "undefined (not a number)", "rows": [1.0, None],
                            "inner": {"odds": None, "odds_reason": "never"}}
    strict_loads(dumps(data))
    with pytest.raises(ValueError, match="not JSON: NaN"):
        strict_loads('{"sd": NaN}')
