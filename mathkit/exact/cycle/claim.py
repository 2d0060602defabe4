"""Work shared out at run time between numba's threads: an atomic counter each thread claims the next piece from.

``prange`` splits its range between the threads before they start (a static
schedule), so on a shared machine a thread the system holds back leaves its
share undone while the other waits.  The threaded kernels instead start one
loop per thread, and each thread takes the next piece of work from a shared
counter (one atomic fetch-and-add) until none is left: a thread that runs more
does more, and the pieces can be small without planning their sizes.  Each
thread writes its own results (its own rows, or the outputs of its pieces),
so no two threads write the same cache line.

Examples
--------
>>> import numpy as np
>>> counter = np.zeros(1, dtype=np.int64)
>>> [int(claim(counter)) for _ in range(3)]
[0, 1, 2]
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["claim"]

IntArray = npt.NDArray[np.int64]


@intrinsic
def _fetch_add(typingctx: object, counter: object, add: object) -> object:  # pragma: no cover - compiled
    """``counter[0] += add`` as one atomic instruction; returns the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None
    sig = types.int64(counter, types.int64)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list[ir.Value]) -> ir.Value:
        ary = context.make_array(signature.args[0])(context, builder, args[0])  # type: ignore[attr-defined]
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary,  # type: ignore[attr-defined,no-untyped-call]
                                       [ir.Constant(ir.IntType(64), 0)])
        return builder.atomic_rmw("add", ptr, args[1], "seq_cst")

    return sig, codegen


@nb.njit(inline="always")
def claim(counter: IntArray) -> int:  # pragma: no cover - compiled
    """The next piece of work: ``counter[0]`` before it is incremented, atomically across threads."""
    return _fetch_add(counter, 1)  # type: ignore[call-arg,no-any-return]
