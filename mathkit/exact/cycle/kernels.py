"""Where the compiled kernels come from: ahead-of-time compiled when built, just-in-time (numba) otherwise.

:data:`K` hands the enumeration drivers their kernels by name (``K.prefix_groups``).
Each kernel is written once, as a numba function in a kernel module
(:data:`KERNELS`).  ``make venv`` (``python -m mathkit.dev.warmup``) compiles the
serial ones into one extension module, ``mathkit/exact/cycle/_aot``, with the argument
types they were called with; loading it costs milliseconds and needs neither
numba nor a compiler, so a one-shot ``mathkit par`` never imports numba.  The
extension is used only while it matches the kernel sources it was built from (a
hash of those files, the Python and numpy versions, in ``_aot.json``); after an
edit, or without the extension, every kernel is numba's, compiled on first use
and cached on disk.  The threaded kernels are always numba's.

Compiled code does not check its arguments, so every call through the extension
converts them first to exactly the types it was built for (dtype, dimensions,
memory layout); a value that cannot be converted safely raises ``TypeError``.

``MATHKIT_KERNELS=jit`` (or :func:`use`) selects numba's kernels, ``aot``
requires the extension, ``auto`` (the default) prefers it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ArgumentTypeError, UsageError

__all__ = ["AOT_MODULE", "KERNELS", "K", "Kernels", "aot_key", "aot_status", "use"]

HERE = Path(__file__).resolve().parent
AOT_MODULE = "mathkit.exact.cycle._aot"
AOT_META = HERE / "_aot.json"

#: kernel name -> (module, function); ``parallel`` kernels are never compiled ahead of time
KERNELS: dict[str, tuple[str, str, bool]] = {
    "prefix_states_table": ("mathkit.exact.cycle.classes", "_prefix_states_table", False),
    "finish_table": ("mathkit.exact.cycle.classes", "_finish_table", False),
    "side_pass": ("mathkit.exact.cycle.passes", "_side_pass", False),
    "groups": ("mathkit.exact.cycle.passes", "_groups", False),
    "compact": ("mathkit.exact.cycle.passes", "_compact", False),
    "head_classes": ("mathkit.exact.cycle.prefix", "head_classes", False),
    "prefix_groups": ("mathkit.exact.cycle.prefix", "prefix_groups", False),
    "prefix_groups_parallel": ("mathkit.exact.cycle.prefix", "prefix_groups_parallel", True),
    "touched": ("mathkit.exact.cycle.finish", "_touched", False),
    "histograms": ("mathkit.exact.cycle.finish", "_histograms", False),
    "visit_plan": ("mathkit.exact.cycle.combine", "_visit_plan", False),
    "combine_all": ("mathkit.exact.cycle.combine", "_combine_all", False),
    "combine_all_parallel": ("mathkit.exact.cycle.combine", "_combine_all_parallel", True),
    "combine_sparse": ("mathkit.exact.cycle.combine", "_combine_sparse", False),
    "ways_prefix": ("mathkit.exact.cycle.ways_passes", "_ways_prefix", False),
    "ways_suffix": ("mathkit.exact.cycle.ways_passes", "_ways_suffix", False),
    "ways_combine": ("mathkit.exact.cycle.ways_passes", "_ways_combine", False),
    "ways_combine_sparse": ("mathkit.exact.cycle.ways_passes", "_ways_combine_sparse", False),
    "window_line_total": ("mathkit.spin.evaluate", "window_line_total", False),
    "line_wins": ("mathkit.spin.evaluate", "line_wins", False),
}

#: the sources the compiled kernels are made of (the extension is stale when one changes)
SOURCES = ("classes.py", "passes.py", "prefix.py", "finish.py", "combine.py", "ways_passes.py", "inputs.py",
           "../../spin/evaluate.py")


def aot_key() -> str:
    """The hash an extension must have been built with to be used: kernel sources, Python and numpy versions."""
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((HERE / name).read_bytes())
    h.update(sys.version.encode())
    h.update(np.__version__.encode())
    return h.hexdigest()


# --- converting arguments to the types the extension was built for ---------------------------------------------
Spec = Any  # a JSON description of a numba type, written by mathkit.exact.cycle.aot


def _converter(spec: Spec) -> Callable[[Any], Any]:
    kind = spec[0]
    if kind == "array":
        dtype, ndim, contiguous = np.dtype(spec[1]), int(spec[2]), spec[3] == "C"

        def array(x: Any) -> Any:
            if type(x) is np.ndarray and x.dtype == dtype and x.ndim == ndim and (x.flags.c_contiguous or not contiguous):
                return x  # already as built (the common case): nothing to check or convert
            a = np.asarray(x)
            if a.ndim != ndim or not np.can_cast(a.dtype, dtype, "safe"):
                msg = f"kernel argument: expected a {ndim}-d {dtype} array, got {a.ndim}-d {a.dtype}"
                raise ArgumentTypeError(msg)
            return np.ascontiguousarray(a, dtype=dtype) if contiguous else np.asarray(a, dtype=dtype)

        return array
    if kind == "int":
        return int
    if kind == "bool":
        return bool
    if kind == "float":
        return float
    if kind in ("tuple", "namedtuple"):
        parts = [_converter(s) for s in spec[-1]]
        cls: Any = tuple
        if kind == "namedtuple":
            module, name = spec[1].split(":")
            cls = getattr(importlib.import_module(module), name)

        def tuple_(x: Any) -> Any:
            if len(x) != len(parts):
                msg = f"kernel argument: expected a tuple of {len(parts)}, got {len(x)}"
                raise ArgumentTypeError(msg)
            values = [c(v) for c, v in zip(parts, x, strict=True)]
            return cls(*values) if kind == "namedtuple" else tuple(values)

        return tuple_
    msg = f"unknown kernel argument type {spec!r}"
    raise ArgumentTypeError(msg)


def _checked(fn: Callable[..., Any], specs: list[Spec]) -> Callable[..., Any]:
    converters = [_converter(s) for s in specs]

    def call(*args: Any) -> Any:
        if len(args) != len(converters):
            msg = f"kernel {fn.__name__}: {len(args)} arguments, expected {len(converters)}"
            raise ArgumentTypeError(msg)
        return fn(*(c(a) for c, a in zip(converters, args, strict=True)))

    call.__name__ = getattr(fn, "__name__", "kernel")
    return call


class Kernels:
    """The kernels by name (attribute access); see the module docstring."""

    def __init__(self) -> None:
        self._mode = os.environ.get("MATHKIT_KERNELS", "auto")
        self._aot: tuple[Any, dict[str, Any]] | None = None
        self._looked = False
        self._why = ""

    @property
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        if mode not in ("auto", "jit", "aot"):
            msg = f"kernel mode {mode!r}: use 'auto', 'jit' or 'aot'"
            raise UsageError(msg)
        self._mode = mode
        self._aot, self._looked = None, False  # look for the extension again (it may have been built since)
        for name in list(vars(self)):
            if name in KERNELS:
                delattr(self, name)

    def _extension(self) -> tuple[Any, dict[str, Any]] | None:
        if not self._looked:
            self._looked = True
            try:
                meta = json.loads(AOT_META.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self._why = "not built (python -m mathkit.dev.warmup builds it)"
                return None
            if meta.get("key") != aot_key():
                self._why = "stale: the kernel sources, Python or numpy changed since it was built"
                return None
            try:
                importlib.invalidate_caches()
                module = importlib.import_module(AOT_MODULE)
            except ImportError as exc:
                self._why = f"cannot be loaded: {exc}"
                return None
            self._aot = (module, meta["kernels"])
            self._why = "in use"
        return self._aot

    def status(self) -> str:
        """Whether the ahead-of-time extension is used, and if not why."""
        self._extension()
        return self._why

    def num_threads(self) -> int:
        """The threads numba's parallel kernels use."""
        import numba

        return int(numba.get_num_threads())

    def jit(self, name: str) -> Callable[..., Any]:
        """Kernel ``name`` as numba compiles it."""
        module, attr, _parallel = KERNELS[name]
        fn: Callable[..., Any] = getattr(importlib.import_module(module), attr)
        return fn

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in KERNELS:
            raise AttributeError(name)
        fn: Callable[..., Any] | None = None
        if self._mode != "jit" and not KERNELS[name][2]:
            ext = self._extension()
            if ext is not None and name in ext[1]:
                fn = _checked(getattr(ext[0], name), ext[1][name])
            elif self._mode == "aot":
                msg = f"kernel {name!r}: the ahead-of-time extension is {self._why or 'missing it'}"
                raise UsageError(msg)
        if fn is None:
            fn = self.jit(name)
        setattr(self, name, fn)
        return fn


#: the kernels the drivers call
K = Kernels()


def aot_status() -> str:
    """Whether the ahead-of-time extension is used, and if not why."""
    return K.status()


@contextmanager
def use(mode: str) -> Iterator[None]:
    """Use ``mode``'s kernels (``"jit"``, ``"aot"`` or ``"auto"``) inside the ``with`` block."""
    old = K.mode
    K.set_mode(mode)
    try:
        yield
    finally:
        K.set_mode(old)
