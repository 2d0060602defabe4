"""One error hierarchy for mathkit.

Every error a user can cause carries enough context to fix it without reading
a traceback: the file, the field path (``reels.base[2][17]``), what is wrong
and what would be right.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GameError", "MathkitError", "ModelError"]


class MathkitError(Exception):
    """Base class of every error mathkit raises on purpose."""


class GameError(MathkitError):
    """A game file or game object is invalid.

    Parameters
    ----------
    message
        What is wrong.
    field
        The field path, for example ``reels.base[2][17]``.
    fix
        What would be right.
    path
        The file the game came from, if any.

    Examples
    --------
    >>> err = GameError("unknown symbol 'ZZ'", field="reels.base[2][17]",
    ...                 fix="use one of A, B, WILD", path="g.toml")
    >>> print(err)
    g.toml: reels.base[2][17]: unknown symbol 'ZZ' (fix: use one of A, B, WILD)
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

    def with_path(self, path: str | Path) -> GameError:
        """Return the same error located in ``path``."""
        return GameError(self.message, field=self.field, fix=self.fix, path=path)


class ModelError(MathkitError):
    """A model cannot be built or solved (for example a feature that never ends)."""
