"""The command line misused as a new user would: every case of issue 13's list gives a clear error.

Exit status 2 (argparse's own usage error or a located mathkit error), one
message naming the argument or the file and field, no traceback, nothing
computed or written; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mathkit.cli import main
from mathkit.report import par as par_module

CLASSIC = "data/games/classic_3reel.toml"  # 1 line, coins [1, 2, 3]
BENCH = "data/games/benchmark_5x3.toml"  # 30 paylines


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``mathkit ARGV`` in-process: exit status and stderr (argparse's usage errors included)."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse refuses a bad value with exit 2
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return status, err


@pytest.fixture
def no_par(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if a PAR sheet is computed: misuse must be refused before any computing."""
    def refuse(*args: object, **kwargs: object) -> None:
        msg = "a PAR sheet was computed"
        raise AssertionError(msg)

    monkeypatch.setattr(par_module, "build_par", refuse)


@pytest.mark.parametrize(("argv", "words"), [
    (["par", CLASSIC, "--lines", "0"], "--lines: must be at least 1, not 0"),  # was a segmentation fault
    (["par", CLASSIC, "--lines", "-1"], "--lines: must be at least 1, not -1"),  # was exit 0 with RTP −2567%
    (["par", BENCH, "--lines", "31"], "--lines: 31 lines played, but the game has 30 paylines"),  # cannot reshape
    (["par", CLASSIC, "--coins", "-1"], "--coins: must be at least 1, not -1"),  # was a negative-bet PAR sheet
    (["par", CLASSIC, "--coins", "0"], "--coins: must be at least 1, not 0"),  # was ZeroDivisionError
    (["par", CLASSIC, "--coins", "4"], "--coins: 4 coins per line is not a coin option"),  # was IndexError
    (["par", CLASSIC, "--lines", "1.5"], "--lines: not a whole number"),
    (["par", CLASSIC, "--reels", "nope"], "no reel set 'nope'"),
    (["simulate", CLASSIC, "--lines", "0", "--spins", "1000"], "--lines: must be at least 1"),  # ZeroDivisionError
    (["simulate", CLASSIC, "--coins", "4", "--spins", "1000"], "--coins: 4 coins per line is not a coin option"),
    (["simulate", CLASSIC, "--spins", "1e30"], "more than the 100,000,000,000 one run holds"),  # grew until OOM
    (["simulate", CLASSIC, "--spins", "inf"], "--spins: not a whole number"),
    (["simulate", CLASSIC, "--spins", "0"], "--spins: must be at least 1"),
    (["simulate", CLASSIC, "--seed", "-3", "--spins", "10"], "--seed: must be 0 or more"),
    (["export", CLASSIC, "--xlsx", "out.xlsx", "--coins", "7"], "--coins: 7 coins per line is not a coin option"),
    (["check", "no/such/game.toml"], "no/such/game.toml: file: no such file"),
    # found by the fuzz (tests/fuzz_cli.py): an internal OverflowError, a render refusal without "error:"
    (["session", CLASSIC, "--spins", "1e400"], "--spins: 1e400 spins: a session has at most 1,000,000"),
    # a huge power of ten is refused as written, not expanded (Fraction("1e9999999") took 6 s, its digits flooded
    # the message)
    (["simulate", CLASSIC, "--spins", "1e9999999"], "--spins: 1e9999999 plays is more than the 100,000,000,000"),
    (["simulate", CLASSIC, "--spins=-1e400"], "--spins: -1e400 is out of range: give a number of fewer than 30"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--tolerance-pp", "1e-9999999"],
     "--tolerance-pp: 1e-9999999 is out of range"),
    (["session", CLASSIC, "--simulate", "inf"], "--simulate: not a whole number"),
    (["session", CLASSIC, "--spins", "0"], "--spins: must be at least 1, not 0"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY=-1"], "--max-run: 'CHERRY=-1': must be at least 1"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY=x"], "--max-run: 'CHERRY=x': not a whole number"),
    (["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml", "--max-run", "CHERRY"], "--max-run: 'CHERRY': write SYMBOL=N"),
    (["render", "no/such/folder", "out"], "error: no/such/folder: not a folder"),
    (["render", "--timeout", "0", "notebooks", "out"], "--timeout: must be at least 1, not 0"),
    (["render", "--only", "nope", "--", "notebooks", "out"], "error: no notebook source nope in notebooks"),
])
def test_bad_arguments_are_refused_before_computing(argv: list[str], words: str, no_par: None,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    status, err = run([a.replace("out.xlsx", str(tmp_path / "out.xlsx")).replace("out.toml", str(tmp_path / "out.toml"))
                       for a in argv], capsys)
    assert status == 2
    assert words in err


def test_tune_refuses_a_target_above_100_percent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.toml"
    status, err = run(["tune", CLASSIC, "--target-rtp", "1.5", "--out", str(out)], capsys)  # wrote a 150% game
    assert status == 2 and "--target-rtp: must be above 0% and at most 100%" in err and "not 1.5" in err
    assert not out.exists()
    status, err = run(["tune", CLASSIC, "--target-rtp", "nan", "--out", str(out)], capsys)
    assert status == 2 and "--target-rtp: not a number: 'nan'" in err
    # a tolerance taking the band past 100%: refused before the game is read, naming the tolerance
    status, err = run(["tune", CLASSIC, "--target-rtp", "0.9", "--tolerance-pp", "50", "--out", str(out)], capsys)
    assert status == 2 and "--tolerance-pp: the band 40.0000% to 140.0000% of the bet" in err
    # 100% itself with the default ±0.005 pp: the band reaches past it, and the message says so of --target-rtp
    status, err = run(["tune", CLASSIC, "--target-rtp", "1", "--out", str(out)], capsys)
    assert status == 2 and "--target-rtp: the band 99.9950% to 100.0050% of the bet" in err and "--tolerance-pp 0" in err


@pytest.mark.parametrize("option", ["par --out", "export --xlsx", "export --server-json", "tune --out"])
def test_an_unwritable_output_fails_before_computing(option: str, tmp_path: Path, no_par: None,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder", encoding="utf-8")
    command, flag = option.split()
    extra = ["--target-rtp", "0.9"] if command == "tune" else []
    for target, words in ((blocker / "out.json", "is not a folder"), (Path("/proc/mathkit-out.json"), "cannot write")):
        status, err = run([command, CLASSIC, flag, str(target), *extra], capsys)
        assert status == 2 and flag in err and words in err, err


def test_an_unknown_par_format_fails_before_computing(tmp_path: Path, no_par: None,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(["par", CLASSIC, "--out", str(tmp_path / "p.doc")], capsys)
    assert status == 2 and "unknown output format '.doc'" in err and ".json, .csv, .txt, .xlsx" in err


def test_errors_name_the_file_and_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(CLASSIC).read_text(encoding="utf-8").replace("rows = 1", "rows = 30"), encoding="utf-8")
    status, err = run(["par", str(bad)], capsys)
    assert status == 2 and f"{bad}: reels.base.strips[0]: reel 1 has 22 stops: a 30-row window" in err


def test_no_traceback_without_debug_and_one_with_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nname = "y"\n', encoding="utf-8")
    for argv, traced in ((["par", str(bad)], False), (["--debug", "par", str(bad)], True),
                         (["par", str(bad), "--debug"], True)):
        proc = subprocess.run([sys.executable, "-m", "mathkit", *argv], capture_output=True, text=True, check=False)
        assert proc.returncode == 2
        assert f"{bad}: name: not valid TOML at line 2: the key is written twice" in proc.stderr
        assert ("Traceback" in proc.stderr) is traced


def test_an_unexpected_error_is_reported_as_a_bug(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        msg = "oops"
        raise KeyError(msg)

    monkeypatch.setattr(par_module, "_build_par", broken)
    assert main(["par", CLASSIC]) == 3
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "--debug" in err and "Traceback" not in err


# --------------------------------------------------------------------------- issue 35: every flag where it is read
TUNE = ["tune", CLASSIC, "--target-rtp", "0.9", "--out", "out.toml"]
SESSION = ["session", CLASSIC]


@pytest.mark.parametrize(("argv", "flag", "value", "words"), [
    # the cases of issue 35: an OverflowError (exit 3), runs of 2-28 s ending in exit 1, numpy's message unnamed
    (["tune", CLASSIC, "--out", "out.toml"], "--target-rtp", "1e400", "out of range: must be above 0% and at most 100%"),
    (TUNE, "--tolerance-pp", "-1", "must be from 0 to 100, not -1"),
    (TUNE, "--sd", "-1", "must be more than 0, not -1"),
    (TUNE, "--hit-frequency", "2", "must be above 0 and at most 1 (0.30 or 30%), not 2"),
    (SESSION, "--lines", "-1", "must be at least 1, not -1"),  # was reported against --bankroll
    (SESSION, "--coins", "-1", "must be at least 1, not -1"),  # was reported against --bankroll
    (SESSION, "--seed", "-1", "must be 0 or more, not -1"),  # was numpy's "expected non-negative integer"
    # the other flags of every command
    (["par", CLASSIC], "--sample-rounds", "-1", "must be 0 or more, not -1"),
    (["par", CLASSIC], "--seed", "x", "not a whole number: 'x'"),
    (["simulate", CLASSIC], "--workers", "0", "must be at least 1, not 0"),
    (["simulate", CLASSIC], "--workers", "100000", "100,000 workers: this machine has"),
    (["simulate", CLASSIC], "--scheduler", "localhost", "not a scheduler address: 'localhost'"),
    (["simulate", CLASSIC], "--scheduler", "tcp://h:70000", "port must be from 1 to 65535, not 70000"),
    (SESSION, "--bankroll", "-5", "must be more than 0 credits (or × bet)"),
    (SESSION, "--bankroll", "0x", "must be more than 0 credits (or × bet)"),
    (SESSION, "--stop-win", "infx", "not an amount: 'infx'"),
    (SESSION, "--ceiling", "1" + "0" * 40, "must be more than 0 credits (or × bet) and at most 9007199254740992"),
    (SESSION, "--ceiling", "1e3", "not an amount: '1e3' (write credits, 2500, or a multiple of the bet, 100x)"),
    (SESSION, "--gamble-target", "nan", "not an amount: 'nan'"),
    (SESSION, "--big-win", "0x", "must be at least 1, not 0"),
    (SESSION, "--big-win", "1,2,3,4,5,6,7,8,9", "give 1 to 8 multiples of the bet"),
    (SESSION, "--table", "x", "not a whole number: 'x'"),
    (SESSION, "--simulate", "0", "must be at least 1, not 0"),
    (TUNE, "--target-rtp", "95%..90%", "the band 95%..90% is empty"),
    (TUNE, "--sd-tol", "-0.5", "must be 0 or more, not -0.5"),
    (TUNE, "--vi", "0", "must be more than 0, not 0"),
    (TUNE, "--hf-tol", "2", "must be from 0 to 1 (0% to 100%), not 2"),
    (TUNE, "--feature-frequency", "0.5", "must be at least 1 (1 in N with N ≥ 1), not 0.5"),
    (TUNE, "--top-award", "-3", "must be at least 1 (1 in N with N ≥ 1), not -3"),
    (TUNE, "--component", "lines=2", "must be from 0% to 100%, not 2"),
    (TUNE, "--component", "=0.5", "write NAME=RTP"),
    (TUNE, "--variants", "0.9,2", "must be above 0% and at most 100%"),
    (TUNE, "--variants", "0.9,0.9", "an RTP is given twice"),
    (TUNE, "--count-tolerance", "-1", "must be from 0 to 1 (0% to 100%), not -1"),
    (TUNE, "--scatter-spacing", "-1", "must be 0 or more, not -1"),
    (TUNE, "--hierarchy", "A//B/A", "write each symbol once"),
    (TUNE, "--no-adjacent", ",", "write comma-separated symbol names"),
    (TUNE, "--max-run", "CHERRY=0", "must be at least 1, not 0"),
    (TUNE, "--feature-frequency-tolerance", "2", "must be from 0 to 1 (0% to 100%), not 2"),
    (TUNE, "--candidates", "1000", "1,000 candidates: at most 100"),
    (TUNE, "--time-limit", "0", "must be more than 0, not 0"),
    (TUNE, "--time-limit", "inf", "not a number: 'inf'"),
    (["export", CLASSIC, "--diff", CLASSIC], "--lines", "0", "must be at least 1, not 0"),
    (["export", CLASSIC, "--diff", CLASSIC], "--sample-rounds", "-5", "must be 0 or more, not -5"),
    (["check", CLASSIC], "--profile", "bogus", "invalid choice: 'bogus'"),
    (["render", "notebooks", "out"], "--timeout", "1e9", "1,000,000,000 seconds: a cell runs at most a day"),
])
def test_every_flag_is_refused_when_the_line_is_parsed(argv: list[str], flag: str, value: str, words: str,
                                                       capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse's own usage error, naming the option, the value and the range: nothing read, nothing computed."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    line = [a.replace("out.toml", str(tmp_path / "out.toml")) for a in argv]
    status, err = run([*line[:1], f"{flag}={value}", *line[1:]], capsys)
    assert status == 2
    assert f"argument {flag}: " in err and words in err, err
    assert "usage:" in err


@pytest.mark.parametrize(("extra", "words"), [
    (["--hierarchy", "ZZ/YY"], "--hierarchy: unknown symbol 'ZZ'"),  # was exit 0, the tiers ignored
    (["--no-adjacent", "CHERRY,ZZ"], "--no-adjacent: unknown symbol 'ZZ'"),
    (["--max-run", "ZZ=2"], "--max-run: unknown symbol 'ZZ'"),
    (["--fixed", "CHERY"], "--fixed: unknown symbol 'CHERY' (fix: did you mean 'CHERRY'?"),
    (["--reels", "free"], "--reels: unknown reel set 'free' (fix: use one of: base)"),
])
def test_tune_refuses_a_name_the_game_lacks_before_any_work(extra: list[str], words: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mathkit.cli import tune as tune_cli

    def refuse(*args: object, **kwargs: object) -> None:
        msg = "the tuner ran"
        raise AssertionError(msg)

    monkeypatch.setattr(tune_cli, "tune", refuse)
    status, err = run(["tune", CLASSIC, "--target-rtp", "0.9", "--out", str(tmp_path / "t.toml"), *extra], capsys)
    assert status == 2 and f"{CLASSIC}: {words}" in err, err


def test_tune_refuses_an_unknown_component_with_the_names_it_has(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # was an internal KeyError (exit 3) after the first step
    status, err = run(["tune", CLASSIC, "--target-rtp", "0.9", "--component", "free spins=0.1", "--out",
                       str(tmp_path / "t.toml"), "--time-limit", "5"], capsys)
    assert status == 2 and "--component: Classic 3-reel: no RTP component 'free spins' to target" in err
    assert "(fix: use one of: lines)" in err and not (tmp_path / "t.toml").exists()


def test_session_checks_the_bet_against_the_game_before_computing(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(["session", BENCH, "--lines", "31"], capsys)
    assert status == 2 and "--lines: 31 lines played, but the game has 30 paylines" in err


# --------------------------------------------------------------------------- issue 35: broken pipes
BROKEN_PIPE = [
    ["par", CLASSIC, "--json"],
    ["par", CLASSIC],
    ["simulate", CLASSIC, "--spins", "1000", "--seed", "1", "--no-progress", "--json"],
    ["session", CLASSIC, "--spins", "50", "--json"],
    ["tune", CLASSIC, "--sensitivity"],
    ["check", CLASSIC],
    ["export", CLASSIC, "--diff", BENCH],
    ["render", "EMPTY", "OUT"],
    ["--help"],
]


@pytest.mark.parametrize("argv", BROKEN_PIPE, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_a_reader_that_left_ends_every_command_quietly(argv: list[str], tmp_path: Path) -> None:
    """Standard output is a real pipe whose reader has closed it before the command writes: exit 0, nothing said."""
    (tmp_path / "empty").mkdir()
    line = [a.replace("EMPTY", str(tmp_path / "empty")).replace("OUT", str(tmp_path / "out")) for a in argv]
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "mathkit", *line], stdout=write, stderr=subprocess.PIPE,
                              text=True, check=False, cwd=Path(__file__).resolve().parents[1])
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_par_json_into_head_exits_0_quietly(tmp_path: Path) -> None:
    """The issue's own line: ``mathkit par GAME --json | head -1`` (the whole pipeline's status, stderr apart)."""
    err = tmp_path / "err"
    line = f"set -o pipefail; {sys.executable} -m mathkit par {BENCH} --json 2>{err} | head -1"
    proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0 and proc.stdout.strip() == "{"
    assert err.read_text(encoding="utf-8") == ""


def test_a_broken_pipe_elsewhere_is_still_an_error(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Only standard output's reader leaving is quiet: a broken pipe to anything else (a worker) is exit 2."""
    def broken(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(par_module, "_build_par", broken)
    assert main(["par", CLASSIC]) == 2
    assert "error: Broken pipe" in capsys.readouterr().err
