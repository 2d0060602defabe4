"""One error hierarchy for mathkit.

Every error a user can cause carries enough context to fix it without reading
a traceback: the file, the field path (``reels.base[2][17]``), what is wrong
and what would be right.  A :class:`GameError` is a bad game file or game
object; a :class:`ModelError` is a game that is well formed but cannot be
analysed as asked (a feature that never ends, a kernel limit); a
:class:`LimitError` is a computation refused before it starts because it
would outgrow a resource limit (see :mod:`mathkit.model.bounds`).

Errors raised deep inside an analysis rarely know the file or the feature:
:func:`located` fills them in on the way out, where they are known, without
losing the traceback (``mathkit --debug`` shows it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ArgumentTypeError", "GameError", "LimitError", "MathkitError", "ModelError", "UnknownNameError",
           "UsageError", "located"]


class MathkitError(Exception):
    """Base class of every error mathkit raises on purpose, with its location.

    Parameters
    ----------
    message
        What is wrong.
    field
        The field path, for example ``reels.base[2][17]`` (or the feature, ``free_spins``).
    fix
        What would be right.
    path
        The file the game came from, if any.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str = "",
        fix: str = "",
        path: str | Path | None = None,
    ) -> None:
        self.message = message
        self.field = field
        self.fix = fix
        self.path = str(path) if path is not None else None
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.path:
            parts.append(self.path)
        if self.field:
            parts.append(self.field)
        head = ": ".join(parts)
        text = f"{head}: {self.message}" if head else self.message
        if self.fix:
            text += f" (fix: {self.fix})"
        return text

    def locate(self, *, path: str | Path | None = None, field: str = "", fix: str = "") -> MathkitError:
        """Fill in what the error does not know yet (the file, the field, a fix); return it, changed in place.

        Examples
        --------
        >>> err = ModelError("the feature never ends")
        >>> print(err.locate(path="g.toml", field="free_spins"))
        g.toml: free_spins: the feature never ends
        >>> print(ModelError("cap: not whole credits").locate(field="cap"))
        cap: not whole credits
        """
        if path is not None and not self.path:
            self.path = str(path)
        if field and not self.field:
            self.field = field
            # a message written for a bare error may already name its block ("cap: ..."): say it once
            self.message = self.message.removeprefix(f"{field}: ")
        if fix and not self.fix:
            self.fix = fix
        self.args = (self._render(),)
        return self


class GameError(MathkitError):
    """A game file or game object is invalid.

    Examples
    --------
    >>> err = GameError("unknown symbol 'ZZ'", field="reels.base[2][17]",
    ...                 fix="use one of A, B, WILD", path="g.toml")
    >>> print(err)
    g.toml: reels.base[2][17]: unknown symbol 'ZZ' (fix: use one of A, B, WILD)
    """

    def with_path(self, path: str | Path) -> GameError:
        """Return the same error located in ``path``."""
        return GameError(self.message, field=self.field, fix=self.fix, path=path)


class ModelError(MathkitError):
    """A model cannot be built or solved (for example a feature that never ends)."""


class LimitError(ModelError):
    """A computation refused before it starts: it would need more memory, time or states than allowed.

    The message says the size and how to proceed (raise the limit, or estimate by simulation).
    """


class UsageError(MathkitError, ValueError):
    """A call with an argument out of its range, or arguments that contradict each other.

    Examples
    --------
    >>> print(UsageError("spins must be at least 1, not 0", field="spins"))
    spins: spins must be at least 1, not 0
    >>> isinstance(UsageError("x"), ValueError)
    True
    """


class ArgumentTypeError(MathkitError, TypeError):
    """A call with an argument of the wrong kind (a 2-d array where a 1-d one goes, a foreign generator)."""


class UnknownNameError(MathkitError, KeyError):
    """A name that is not there: a symbol, a feature, a figure, an asset.

    Examples
    --------
    >>> err = UnknownNameError("unknown symbol 'ZZ'", fix="use one of A, B")
    >>> print(err)
    unknown symbol 'ZZ' (fix: use one of A, B)
    >>> isinstance(err, KeyError)
    True
    """

    def __str__(self) -> str:  # KeyError quotes its message; a located error reads as a sentence
        return self._render()


@contextmanager
def located(*, path: str | Path | None = None, field: str = "", fix: str = "") -> Iterator[None]:
    """Fill in the file, field and fix of any :class:`MathkitError` raised in the block (traceback kept).

    Examples
    --------
    >>> try:
    ...     with located(path="g.toml"), located(field="cap"):
    ...         raise ModelError("the cap is not whole credits")
    ... except ModelError as exc:
    ...     print(exc)
    g.toml: cap: the cap is not whole credits
    """
    try:
        yield
    except MathkitError as exc:
        exc.locate(path=path, field=field, fix=fix)
        raise
