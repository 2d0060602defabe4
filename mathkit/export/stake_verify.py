"""The Stake Engine RGS's checks of a publication folder, in mathkit (run on every export and in tests).

The checks are those the RGS runs on upload, as its documentation
(https://stakeengine.github.io/math-sdk/rgs_docs/data_format) and the SDK's verification script
(``utils/rgs_verification.py`` of https://github.com/StakeEngine/math-sdk) state them:

* ``index.json``: an object ``{"modes": [...]}``, each mode with a string ``name``, a positive number
  ``cost``, and the file names ``events`` (``.jsonl.zst``) and ``weights`` (``.csv``), which exist;
* the lookup table: no header, every line three plain unsigned integers ``id,weight,payout`` (no
  sign, no decimal point, no spaces), each below 2⁶⁴; a payout is a multiple of 10 (so a non-zero one is
  at least 10); Σ weights ≤ 2⁶⁴ − 1; ids distinct;
* the books: zstandard-compressed JSON lines, one JSON object a line with ``id``, ``payoutMultiplier``
  (a JSON integer: not ``120.0``, not a boolean) and ``events`` (a list); exactly one book per table row,
  in the table's order and with the row's id;
* the md5 of the books' payouts equals the table's, computed as the SDK computes it
  (``hashlib.md5(pickle.dumps(list_of_ints))``: a hash of the two integer lists, nothing executed);
* at least three distinct payouts per mode (the RGS's statistics fail on fewer).

:func:`verify_stake` raises :class:`~mathkit.errors.ModelError` naming the file, the line and the
check; :func:`stake_problems` lists every problem found instead.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelError

__all__ = ["ModeCheck", "payout_md5", "stake_problems", "verify_stake"]

_UINT = re.compile(r"\A(0|[1-9][0-9]*)\Z")
_U64 = 2**64


@dataclass(frozen=True)
class ModeCheck:
    """What the checks read of one mode: rows, distinct payouts, the weight sum, the payouts' md5."""

    name: str
    rows: int
    distinct: int
    weight_sum: int
    md5: str


def payout_md5(payouts: list[int]) -> str:
    """The md5 of a list of payouts as the SDK's verification computes it (of its pickle).

    Examples
    --------
    >>> payout_md5([0, 10, 20]) == payout_md5([0, 10, 20]), payout_md5([0, 10, 20]) == payout_md5([0, 20, 10])
    (True, False)
    """
    return hashlib.md5(pickle.dumps(payouts), usedforsecurity=False).hexdigest()


def _table(path: Path, problems: list[str]) -> tuple[list[int], list[int]]:
    ids: list[int] = []
    payouts: list[int] = []
    total = 0
    try:
        text = path.read_bytes().decode("ascii")
    except UnicodeDecodeError:
        problems.append(f"{path}: not plain ASCII text")
        return ids, payouts
    if not text.endswith("\n") and text:
        problems.append(f"{path}: the last line has no line end")
    for n, line in enumerate(text.splitlines(), start=1):
        where = f"{path}:{n}"
        parts = line.split(",")
        if len(parts) != 3:
            problems.append(f"{where}: {len(parts)} fields; a row is id,weight,payoutMultiplier (no header)")
            continue
        if not all(_UINT.match(p) for p in parts):
            problems.append(f"{where}: {line[:60]!r} is not three plain unsigned integers (no header, sign, "
                            f"decimal point or spaces)")
            continue
        i, w, p = (int(x) for x in parts)
        if max(i, w, p) >= _U64:
            problems.append(f"{where}: a value above the uint64 range")
        if p % 10:
            problems.append(f"{where}: payout {p} is not a multiple of 10 (steps of 0.1×, least non-zero 10)")
        total += w
        ids.append(i)
        payouts.append(p)
    if total > _U64 - 1:
        problems.append(f"{path}: the weights sum to {total}, above 2^64 - 1")
    if len(set(ids)) != len(ids):
        problems.append(f"{path}: ids repeat")
    if len(set(payouts)) < 3:
        problems.append(f"{path}: {len(set(payouts))} distinct payouts; the RGS's statistics need at least 3")
    return ids, payouts


def _books(path: Path, problems: list[str]) -> tuple[list[Any], list[Any]]:
    import zstandard

    ids: list[Any] = []
    payouts: list[Any] = []
    try:
        with path.open("rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as reader:
            lines = io.TextIOWrapper(reader, encoding="utf-8").read().splitlines()
    except (zstandard.ZstdError, UnicodeDecodeError, OSError) as exc:
        problems.append(f"{path}: not zstandard-compressed UTF-8 JSON lines ({exc})")
        return ids, payouts
    for n, line in enumerate(lines, start=1):
        where = f"{path}: book {n}"
        if not line.strip():
            problems.append(f"{where}: an empty line")
            continue
        try:
            book = json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError as exc:
            problems.append(f"{where}: not strict JSON ({exc})")
            continue
        if not isinstance(book, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        missing = [k for k in ("id", "payoutMultiplier", "events") if k not in book]
        if missing:
            problems.append(f"{where}: missing {', '.join(missing)}")
            continue
        p = book["payoutMultiplier"]
        if type(p) is not int or p < 0:
            problems.append(f"{where}: payoutMultiplier {p!r} is not a non-negative JSON integer")
        if not isinstance(book["events"], list):
            problems.append(f"{where}: events is not a list")
        ids.append(book["id"])
        payouts.append(p)
    return ids, payouts


def _index(folder: Path, problems: list[str]) -> list[dict[str, Any]]:
    path = folder / "index.json"
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{path}: cannot be read as JSON ({exc})")
        return []
    modes = index.get("modes") if isinstance(index, dict) else None
    if not isinstance(modes, list) or not modes:
        problems.append(f"{path}: needs a non-empty list 'modes'")
        return []
    good = []
    for k, m in enumerate(modes):
        where = f"{path}: modes[{k}]"
        if not isinstance(m, dict) or set(m) != {"name", "cost", "events", "weights"}:
            problems.append(f"{where}: needs exactly the keys name, cost, events, weights")
            continue
        if not isinstance(m["name"], str) or not m["name"]:
            problems.append(f"{where}.name: not a non-empty string")
            continue
        if type(m["cost"]) not in (int, float) or not m["cost"] > 0:
            problems.append(f"{where}.cost: not a positive number")
            continue
        ok = True
        for key, suffix in (("events", ".jsonl.zst"), ("weights", ".csv")):
            name = m[key]
            if not isinstance(name, str) or not name.endswith(suffix) or "/" in name or "\\" in name:
                problems.append(f"{where}.{key}: {name!r} is not a file name ending in {suffix}")
                ok = False
            elif not (folder / name).is_file():
                problems.append(f"{where}.{key}: {folder / name} does not exist")
                ok = False
        if ok:
            good.append(m)
    return good


def stake_problems(folder: str | Path) -> tuple[list[str], list[ModeCheck]]:
    """Every problem the RGS's checks find in ``folder`` (empty when it passes), and what they read per mode."""
    root = Path(folder)
    problems: list[str] = []
    checks: list[ModeCheck] = []
    for m in _index(root, problems):
        before = len(problems)
        t_ids, t_pay = _table(root / m["weights"], problems)
        b_ids, b_pay = _books(root / m["events"], problems)
        if len(b_ids) != len(t_ids):
            problems.append(f"{root / m['events']}: {len(b_ids)} books for {len(t_ids)} table rows (one book a row)")
        else:
            for n, (a, b) in enumerate(zip(t_ids, b_ids, strict=True), start=1):
                if a != b:
                    problems.append(f"{root / m['events']}: book {n} has id {b!r}, the table's row {n} id {a}")
                    break
        digest = payout_md5(t_pay)
        if payout_md5(b_pay) != digest:
            problems.append(f"{root / m['events']}: the md5 of the books' payouts differs from the table's")
        if len(problems) == before:
            checks.append(ModeCheck(m["name"], len(t_ids), len(set(t_pay)),
                                    sum(int(line.split(",")[1]) for line in
                                        (root / m["weights"]).read_text(encoding="ascii").splitlines()), digest))
    return problems, checks


def verify_stake(folder: str | Path) -> list[ModeCheck]:
    """Run the RGS's checks on ``folder``; raise :class:`~mathkit.errors.ModelError` naming the first problem.

    Examples
    --------
    >>> import tempfile
    >>> verify_stake(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    mathkit.errors.ModelError: ...index.json: cannot be read as JSON ...
    """
    problems, checks = stake_problems(folder)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ModelError(problems[0] + more, field="stake files",
                         fix="the files do not pass the RGS's checks: re-export them with mathkit export --stake")
    return checks
