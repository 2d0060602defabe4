"""The values of the simulator's vocabulary: constants, registers, draws and a little arithmetic.

A value is a tree of nodes (:class:`Value`): what an action, a test or a spin's multiplier reads.  Each node
kind is one simulator *word*: its meaning in the driver, how it compiles and its instruction are declared once,
in the word's entry of :mod:`mathkit.sim.words` (the values of the window are in :mod:`mathkit.play.window`).

Examples
--------
>>> children(Sum((Const(1), Min(Reg("left"), Const(3)))))
(Const(value=1), Min(a=Reg(name='left', feature=None), b=Const(value=3)))
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Bits", "Const", "Law", "Lookup", "Max", "Min", "Pick", "Product", "Random", "Reg", "Sum", "Value",
           "Without", "children"]


@dataclass(frozen=True)
class Value:
    """A node of a value; its operands are its fields that hold values (:func:`children`)."""


@dataclass(frozen=True)
class Const(Value):
    """A constant integer."""

    value: int


@dataclass(frozen=True)
class Reg(Value):
    """A register: one of the feature's own (``feature=None``) or another feature's."""

    name: str
    feature: str | None = None


@dataclass(frozen=True)
class Bits(Value):
    """How many bits of a mask are set (cells held, new scatters ...)."""

    of: Value


@dataclass(frozen=True)
class Lookup(Value):
    """``table[min(of, len(table) − 1)]``: a table keyed by a value (a count, a register ...).

    A count-keyed table of a game (``at_most`` reading) is written out up to its largest
    key; larger values read its last entry.
    """

    table: tuple[int, ...]
    of: Value


@dataclass(frozen=True)
class Law:
    """An integer-weight law: ``values[i]`` with weight ``weights[i]``.

    Examples
    --------
    >>> Law.of({3: 40, 4: 25}).values
    (3, 4)
    """

    values: tuple[int, ...]
    weights: tuple[int, ...]

    @classmethod
    def of(cls, weights: dict[int, int]) -> Law:
        """The law of a ``{value: weight}`` table (values in order)."""
        items = sorted(weights.items())
        return cls(tuple(v for v, _ in items), tuple(w for _, w in items))


@dataclass(frozen=True)
class Random(Value):
    """A draw from ``laws[key]`` (one law: ``key`` may be ``None``), from the round's feature stream."""

    laws: tuple[Law, ...]
    key: Value | None = None


@dataclass(frozen=True)
class Pick(Value):
    """A mask of ``count`` distinct cells of the mask ``cells``, every such set alike (fewer when it holds fewer).

    Drawn from the round's feature stream one cell after another: each is the
    ``u``-th set bit of the cells left, ``u`` a uniform draw below their number.
    """

    cells: Value
    count: Value


@dataclass(frozen=True)
class Sum(Value):
    """The sum of values."""

    terms: tuple[Value, ...]


@dataclass(frozen=True)
class Min(Value):
    """The smaller of two values."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Max(Value):
    """The larger of two values."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Without(Value):
    """The mask ``a`` without the bits of ``b`` (``a & ~b``): new scatters outside the held cells."""

    a: Value
    b: Value


@dataclass(frozen=True)
class Product(Value):
    """The product of two values (activator total × stack positions ...)."""

    a: Value
    b: Value


def children(v: Value) -> tuple[Value, ...]:
    """The values ``v`` is computed from (its operands: the fields holding a value or a tuple of them), in order.

    Examples
    --------
    >>> children(Lookup((0, 5), Reg("n")))
    (Reg(name='n', feature=None),)
    """
    out: list[Value] = []
    for f in fields(v):
        x = getattr(v, f.name)
        if isinstance(x, Value):
            out.append(x)
        elif isinstance(x, tuple):
            out += [y for y in x if isinstance(y, Value)]
    return tuple(out)
